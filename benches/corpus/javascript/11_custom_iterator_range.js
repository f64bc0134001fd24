class Range {
  constructor(start, end, step = 1) {
    this.start = start;
    this.end = end;
    this.step = step;
  }
  [Symbol.iterator]() {
    let current = this.start;
    const { end, step } = this;
    return {
      next() {
        if (step > 0 ? current < end : current > end) {
          const value = current;
          current += step;
          return { value, done: false };
        }
        return { value: undefined, done: true };
      },
    };
  }
  get length() {
    return Math.max(0, Math.ceil((this.end - this.start) / this.step));
  }
}

const r = new Range(0, 10, 3);
console.log(r, r.length);
console.log([...r]);
console.log([...new Range(10, 0, -2)]);
console.log(Array.from(new Range(1, 6), (x) => x ** 2));

const [first, second, ...rest] = new Range(100, 106);
console.log(first, second, rest);

const it = new Range(0, 2)[Symbol.iterator]();
console.log(it.next(), it.next(), it.next());

class Tree {
  constructor(value, ...children) {
    this.value = value;
    this.children = children;
  }
  *[Symbol.iterator]() {
    yield this.value;
    for (const child of this.children) yield* child;
  }
}
const tree = new Tree("root", new Tree("a", new Tree("a1"), new Tree("a2")), new Tree("b", new Tree("b1")));
console.log([...tree]);
console.log(tree);
const entries = Object.entries({ x: 1, y: 2 })[Symbol.iterator]();
for (const [k, v] of entries) console.log(k, v);
console.log(new Map([...new Range(1, 4)].map((n) => [n, "#".repeat(n)])));

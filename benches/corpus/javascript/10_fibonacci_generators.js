function* fibonacci() {
  let [a, b] = [0, 1];
  while (true) {
    yield a;
    [a, b] = [b, a + b];
  }
}

function* take(n, it) {
  for (const x of it) {
    if (n-- <= 0) return;
    yield x;
  }
}

function* filter(pred, it) {
  for (const x of it) if (pred(x)) yield x;
}

function* map(fn, it) {
  for (const x of it) yield fn(x);
}

console.log([...take(15, fibonacci())]);
console.log([...take(8, filter((x) => x % 2 === 0, fibonacci()))]);
console.log([...take(5, map((x) => x * x, fibonacci()))]);

const gen = fibonacci();
console.log(gen.next(), gen.next(), gen.next());
console.log(gen.return(99), gen.next());

function* counter() {
  let total = 0;
  while (true) {
    const add = yield total;
    if (add === undefined) break;
    total += add;
  }
  return `done at ${total}`;
}
const c = counter();
c.next();
for (const n of [5, 10, 20]) console.log("running total:", c.next(n).value);
console.log(c.next());

function* chain(...iters) {
  for (const it of iters) yield* it;
}
console.log([...chain([1, 2], "ab", new Set([3, 4]), take(3, fibonacci()))]);
const firstOver1000 = [...take(50, fibonacci())].findIndex((x) => x > 1000);
console.log("first Fibonacci over 1000 is F(" + firstOver1000 + ")");
console.log(Object.prototype.toString.call(gen), typeof gen.next);

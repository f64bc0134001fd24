class Stack {
  #items = [];
  push(...xs) {
    this.#items.push(...xs);
    return this;
  }
  pop() { return this.#items.pop(); }
  peek() { return this.#items.at(-1); }
  get size() { return this.#items.length; }
}

class Queue {
  items = {};
  headIdx = 0;
  tailIdx = 0;
  enqueue(x) { this.items[this.tailIdx++] = x; }
  dequeue() {
    if (this.headIdx === this.tailIdx) return undefined;
    const x = this.items[this.headIdx];
    delete this.items[this.headIdx++];
    return x;
  }
  get length() { return this.tailIdx - this.headIdx; }
}

function balanced(expr) {
  const pairs = { ")": "(", "]": "[", "}": "{" };
  const st = new Stack();
  for (const ch of expr) {
    if ("([{".includes(ch)) st.push(ch);
    else if (ch in pairs && st.pop() !== pairs[ch]) return false;
  }
  return st.size === 0;
}
for (const e of ["(a[b]{c})", "([)]", "((())", "{[()()]}", ""]) console.log(JSON.stringify(e), balanced(e));

function evalRPN(tokens) {
  const st = new Stack();
  const ops = { "+": (a, b) => a + b, "-": (a, b) => a - b, "*": (a, b) => a * b, "/": (a, b) => a / b };
  for (const t of tokens.split(" ")) {
    if (!(t in ops)) st.push(Number(t));
    else {
      const b = st.pop(), a = st.pop();
      st.push(ops[t](a, b));
    }
  }
  return st.pop();
}
console.log(evalRPN("3 4 + 2 *"), evalRPN("5 1 2 + 4 * + 3 -"), evalRPN("2 3 4 * 5 6 * + -"), evalRPN("1 3 /"));

const s = new Stack().push(1, 2, 3);
console.log(s, s.size, s.peek());
const q = new Queue();
["ann", "bob", "cy", "di"].forEach((n) => q.enqueue(n));
console.log(q.dequeue(), q.dequeue(), q.length, q);
q.enqueue("eve");
const served = [];
while (q.length) served.push(q.dequeue());
console.log(served, q.dequeue(), q);

function fibNaive(n) {
  return n < 2 ? n : fibNaive(n - 1) + fibNaive(n - 2);
}

const memo = new Map();
function fibMemo(n) {
  if (n < 2) return n;
  if (memo.has(n)) return memo.get(n);
  const v = fibMemo(n - 1) + fibMemo(n - 2);
  memo.set(n, v);
  return v;
}

function fibIter(n) {
  let a = 0, b = 1;
  for (let i = 0; i < n; i++) [a, b] = [b, a + b];
  return a;
}

let calls = 0;
function fibCounted(n) {
  calls++;
  return n < 2 ? n : fibCounted(n - 1) + fibCounted(n - 2);
}

console.log(Array.from({ length: 20 }, (_, i) => fibNaive(i)));
fibCounted(20);
console.log("naive calls for fib(20):", calls);
console.log("fibMemo(90) =", fibMemo(90), "cache size:", memo.size);
console.log("fibIter(78) =", fibIter(78), Number.isSafeInteger(fibIter(78)));
console.log("fibIter(79) =", fibIter(79), Number.isSafeInteger(fibIter(79)));

const climbStairs = (() => {
  const cache = {};
  return function ways(n) {
    if (n <= 1) return 1;
    return (cache[n] ??= ways(n - 1) + ways(n - 2));
  };
})();
console.log([1, 2, 3, 4, 5, 10, 30].map((n) => `${n}:${climbStairs(n)}`).join(" "));

function gridPaths(r, c, cache = {}) {
  const key = `${r},${c}`;
  if (r === 0 || c === 0) return 1;
  return (cache[key] ??= gridPaths(r - 1, c, cache) + gridPaths(r, c - 1, cache));
}
console.log("paths in 10x10 grid:", gridPaths(10, 10));
const ratio = fibMemo(40) / fibMemo(39);
console.log("golden ratio approx:", ratio, ratio.toFixed(10), ((1 + Math.sqrt(5)) / 2).toFixed(10));
console.log([...memo.entries()].slice(0, 8));

function binarySearch(arr, target) {
  let lo = 0, hi = arr.length - 1, steps = 0;
  while (lo <= hi) {
    steps++;
    const mid = (lo + hi) >>> 1;
    if (arr[mid] === target) return { index: mid, steps };
    if (arr[mid] < target) lo = mid + 1;
    else hi = mid - 1;
  }
  return { index: -1, steps, insertAt: lo };
}

function lowerBound(arr, target) {
  let lo = 0, hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (arr[mid] < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const primes = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97];
for (const t of [2, 41, 97, 50, 1, 100]) console.log(t, binarySearch(primes, t));

const scores = [55, 60, 60, 60, 72, 80, 80, 91];
console.log("first 60 at", lowerBound(scores, 60), "first >60 at", lowerBound(scores, 61), "count of 80:", lowerBound(scores, 81) - lowerBound(scores, 80));

const grades = [[90, "A"], [80, "B"], [70, "C"], [60, "D"]];
const grade = (s) => grades.find(([min]) => s >= min)?.[1] ?? "F";
console.log(scores.map((s) => `${s}${grade(s)}`).join(" "));

function sqrtBisect(x, eps = 1e-10) {
  let lo = 0, hi = Math.max(1, x), iters = 0;
  while (hi - lo > eps) {
    const mid = (lo + hi) / 2;
    if (mid * mid < x) lo = mid;
    else hi = mid;
    iters++;
  }
  return [+lo.toFixed(8), iters];
}
console.log(sqrtBisect(2), sqrtBisect(1e6), Math.sqrt(2));

const words = ["apple", "banana", "cherry", "grape", "kiwi", "lemon", "mango", "peach"];
const idx = lowerBound(words, "fig");
console.log(`insert "fig" at ${idx}:`, words.toSpliced(idx, 0, "fig"));
const big = Array.from({ length: 1000000 }, (_, i) => i * 2);
console.log(binarySearch(big, 777776), binarySearch(big, 777777).steps, Math.ceil(Math.log2(big.length)));

const multiply = (A, B) => {
  if (A[0].length !== B.length) throw new Error(`shape mismatch: ${A.length}x${A[0].length} * ${B.length}x${B[0].length}`);
  return A.map((row) => B[0].map((_, j) => row.reduce((sum, a, k) => sum + a * B[k][j], 0)));
};
const transpose = (M) => M[0].map((_, j) => M.map((row) => row[j]));
const identity = (n) => Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => +(i === j)));
const det = (M) =>
  M.length === 1 ? M[0][0] : M[0].reduce((s, v, j) => s + (j % 2 ? -1 : 1) * v * det(M.slice(1).map((r) => r.filter((_, c) => c !== j))), 0);
const show = (M) => M.map((r) => r.map((v) => String(v).padStart(5)).join("")).join("\n");

const A = [[1, 2, 3], [4, 5, 6]];
const B = [[7, 8], [9, 10], [11, 12]];
console.log(multiply(A, B));
console.log(show(multiply(B, A)));
console.log(transpose(A));
console.log(identity(4));

const M = [[2, -1, 0], [-1, 2, -1], [0, -1, 2]];
console.log("det(M) =", det(M), "det(I5) =", det(identity(5)));
console.log(JSON.stringify(multiply(M, identity(3))) === JSON.stringify(M));

const power = (M, n) => (n === 0 ? identity(M.length) : multiply(M, power(M, n - 1)));
console.log("Fibonacci via matrix power:", power([[1, 1], [1, 0]], 10));

try {
  multiply(A, A);
} catch (err) {
  console.log("error:", err.message);
}

const rotation = (deg) => {
  const r = (deg * Math.PI) / 180;
  return [[Math.cos(r), -Math.sin(r)], [Math.sin(r), Math.cos(r)]];
};
const p = multiply(rotation(90), [[1], [0]]);
console.log(p, p.map(([v]) => +v.toFixed(10)));
const big = Array.from({ length: 8 }, (_, i) => Array.from({ length: 8 }, (_, j) => (i + 1) * (j + 1)));
console.log(big);
console.log(show(big));

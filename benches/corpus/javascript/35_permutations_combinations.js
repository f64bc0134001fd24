function permutations(items) {
  if (items.length <= 1) return [items];
  return items.flatMap((item, i) =>
    permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((p) => [item, ...p])
  );
}

function combinations(items, k) {
  if (k === 0) return [[]];
  if (items.length < k) return [];
  const [first, ...rest] = items;
  return [...combinations(rest, k - 1).map((c) => [first, ...c]), ...combinations(rest, k)];
}

function powerSet(items) {
  return items.reduce((subsets, item) => [...subsets, ...subsets.map((s) => [...s, item])], [[]]);
}

console.log(permutations([1, 2, 3]));
console.log(permutations(["a", "b", "c", "d"]).map((p) => p.join("")).join(" "));
console.log(permutations([..."abcde"]).length, "permutations of 5 letters");
console.log(combinations(["red", "green", "blue", "yellow"], 2));
console.log(powerSet(["x", "y", "z"]));

const uniquePerms = new Set(permutations([..."aabb"]).map((p) => p.join("")));
console.log(uniquePerms);

const coins = [1, 5, 10, 25];
function changeWays(amount, idx = 0) {
  if (amount === 0) return 1;
  if (amount < 0 || idx === coins.length) return 0;
  return changeWays(amount - coins[idx], idx) + changeWays(amount, idx + 1);
}
console.log("ways to make 50 cents:", changeWays(50));

function solveNQueens(n) {
  const solutions = [];
  const place = (row, cols) => {
    if (row === n) return solutions.push([...cols]);
    for (let c = 0; c < n; c++) {
      if (cols.every((pc, pr) => pc !== c && Math.abs(pc - c) !== row - pr)) place(row + 1, [...cols, c]);
    }
  };
  place(0, []);
  return solutions;
}
const sols = solveNQueens(6);
console.log(sols.length, "solutions for 6 queens; first:");
console.log(sols[0].map((c) => ".".repeat(c) + "Q" + ".".repeat(6 - c - 1)).join("\n"));

const maze = [
  "S.#.......",
  ".##.####..",
  "....#..#.#",
  "#.#.#.##..",
  "..#...#..#",
  ".####.#.#.",
  "......#..E",
];

function solve(grid) {
  const rows = grid.length, cols = grid[0].length;
  const find = (ch) => {
    const r = grid.findIndex((row) => row.includes(ch));
    return [r, grid[r].indexOf(ch)];
  };
  const start = find("S"), end = find("E");
  const prev = new Map([[start.join(","), null]]);
  const queue = [start];
  const dirs = [[0, 1], [1, 0], [0, -1], [-1, 0]];
  while (queue.length) {
    const [r, c] = queue.shift();
    if (r === end[0] && c === end[1]) break;
    for (const [dr, dc] of dirs) {
      const nr = r + dr, nc = c + dc;
      const key = `${nr},${nc}`;
      if (nr < 0 || nc < 0 || nr >= rows || nc >= cols || grid[nr][nc] === "#" || prev.has(key)) continue;
      prev.set(key, `${r},${c}`);
      queue.push([nr, nc]);
    }
  }
  const path = [];
  for (let k = end.join(","); k; k = prev.get(k)) path.unshift(k.split(",").map(Number));
  return { start, end, path: prev.has(end.join(",")) ? path : null, explored: prev.size };
}

const { start, end, path, explored } = solve(maze);
console.log({ start, end, steps: path.length - 1, explored });
const canvas = maze.map((row) => [...row]);
for (const [r, c] of path.slice(1, -1)) canvas[r][c] = "*";
console.log(canvas.map((row) => row.join("")).join("\n"));
console.log(path.slice(0, 5), "...");

const blocked = solve(["S#.", "##.", "..E"]);
console.log("blocked maze:", blocked.path, "explored", blocked.explored);

const dist = maze.map((row) => [...row].map((ch) => (ch === "#" ? "##" : "  ")));
const q = [[0, 0, 0]];
const seen = new Set(["0,0"]);
while (q.length) {
  const [r, c, d] = q.shift();
  dist[r][c] = String(d).padStart(2);
  for (const [nr, nc] of [[r + 1, c], [r - 1, c], [r, c + 1], [r, c - 1]]) {
    if (maze[nr]?.[nc] && maze[nr][nc] !== "#" && !seen.has(`${nr},${nc}`)) {
      seen.add(`${nr},${nc}`);
      q.push([nr, nc, d + 1]);
    }
  }
}
console.log(dist.map((row) => row.join(" ")).join("\n"));

const tasks = {
  deploy: ["test", "build", "migrate"], test: ["build"], build: ["install", "codegen"], codegen: ["install"],
  install: [], migrate: ["backup"], backup: [], lint: ["install"],
};

function topoSortKahn(graph) {
  const indegree = Object.fromEntries(Object.keys(graph).map((k) => [k, 0]));
  for (const deps of Object.values(graph)) for (const d of deps) indegree[d] ??= 0;
  for (const [node, deps] of Object.entries(graph)) indegree[node] += deps.length;
  const dependents = {};
  for (const [node, deps] of Object.entries(graph)) for (const d of deps) (dependents[d] ??= []).push(node);

  const ready = Object.keys(indegree).filter((n) => indegree[n] === 0).sort();
  const order = [];
  while (ready.length) {
    const n = ready.shift();
    order.push(n);
    for (const m of dependents[n] ?? []) {
      if (--indegree[m] === 0) {
        ready.push(m);
        ready.sort();
      }
    }
  }
  if (order.length !== Object.keys(indegree).length) throw new Error("cycle detected");
  return order;
}

function topoSortDfs(graph) {
  const state = {};
  const order = [];
  const visit = (n, path) => {
    if (state[n] === "done") return;
    if (state[n] === "visiting") throw new Error(`cycle: ${[...path, n].join(" -> ")}`);
    state[n] = "visiting";
    for (const d of graph[n] ?? []) visit(d, [...path, n]);
    state[n] = "done";
    order.push(n);
  };
  Object.keys(graph).forEach((n) => visit(n, []));
  return order;
}

console.log(topoSortKahn(tasks));
console.log(topoSortDfs(tasks));

const levels = {};
const levelOf = (n) => (levels[n] ??= tasks[n].length ? 1 + Math.max(...tasks[n].map(levelOf)) : 0);
Object.keys(tasks).forEach(levelOf);
const stages = Object.entries(levels).reduce((acc, [n, l]) => ((acc[l] ??= []).push(n), acc), []);
stages.forEach((s, i) => console.log(`stage ${i}: ${s.sort().join(", ")}`));
console.log(levels);

const cyclic = { a: ["b"], b: ["c"], c: ["a"], d: [] };
for (const sorter of [topoSortKahn, topoSortDfs]) {
  try { sorter(cyclic); } catch (err) { console.log(`${sorter.name}: ${err.message}`); }
}

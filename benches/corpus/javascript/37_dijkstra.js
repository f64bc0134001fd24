const graph = {
  A: { B: 4, C: 2 },
  B: { C: 5, D: 10 },
  C: { E: 3 },
  D: { F: 11 },
  E: { D: 4 },
  F: {},
  G: { A: 1 },
};

function dijkstra(graph, source) {
  const dist = {};
  const prev = {};
  const visited = new Set();
  for (const node of Object.keys(graph)) dist[node] = Infinity;
  dist[source] = 0;

  while (visited.size < Object.keys(graph).length) {
    let current = null;
    for (const node of Object.keys(graph)) {
      if (!visited.has(node) && (current === null || dist[node] < dist[current])) current = node;
    }
    if (dist[current] === Infinity) break;
    visited.add(current);
    for (const [neighbor, weight] of Object.entries(graph[current])) {
      const alt = dist[current] + weight;
      if (alt < dist[neighbor]) {
        dist[neighbor] = alt;
        prev[neighbor] = current;
      }
    }
  }
  return { dist, prev };
}

function path(prev, target) {
  const out = [];
  for (let n = target; n !== undefined; n = prev[n]) out.unshift(n);
  return out;
}

const { dist, prev } = dijkstra(graph, "A");
console.log(dist);
console.log(prev);
for (const node of Object.keys(graph)) {
  const d = dist[node];
  console.log(`A -> ${node}: ${d === Infinity ? "unreachable" : `${d} via ${path(prev, node).join(" -> ")}`}`);
}

const edges = Object.entries(graph).flatMap(([from, to]) => Object.entries(to).map(([t, w]) => [from, t, w]));
console.log(edges.length, "edges; heaviest:", edges.reduce((a, b) => (b[2] > a[2] ? b : a)));
const fromG = dijkstra(graph, "G");
console.log("from G:", fromG.dist, path(fromG.prev, "F").join(""));

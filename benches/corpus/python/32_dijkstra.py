import heapq

edges = [
    ("A", "B", 4), ("A", "C", 2), ("B", "C", 5), ("B", "D", 10),
    ("C", "E", 3), ("E", "D", 4), ("D", "F", 11), ("E", "F", 9), ("G", "F", 1),
]
graph = {}
for u, v, w in edges:
    graph.setdefault(u, []).append((v, w))
    graph.setdefault(v, []).append((u, w))


def dijkstra(graph, source):
    dist = {source: 0}
    prev = {}
    heap = [(0, source)]
    visited = set()
    while heap:
        d, node = heapq.heappop(heap)
        if node in visited:
            continue
        visited.add(node)
        for neighbor, weight in graph[node]:
            nd = d + weight
            if nd < dist.get(neighbor, float("inf")):
                dist[neighbor] = nd
                prev[neighbor] = node
                heapq.heappush(heap, (nd, neighbor))
    return dist, prev


def path_to(prev, target):
    path = [target]
    while path[-1] in prev:
        path.append(prev[path[-1]])
    return path[::-1]


dist, prev = dijkstra(graph, "A")
for node in sorted(graph):
    print(f"A -> {node}: {dist[node]:>2}  via {' -> '.join(path_to(prev, node))}")

farthest = max(dist, key=dist.get)
print("farthest from A:", farthest, dist[farthest])
total_weight = sum(w for _, _, w in edges)
print("edges:", len(edges), "total weight:", total_weight)
print("degree:", {n: len(adj) for n, adj in sorted(graph.items())})

from collections import defaultdict, deque

deps = {
    "app": ["web", "db", "auth"],
    "web": ["http", "templates"],
    "auth": ["db", "crypto"],
    "db": ["driver"],
    "templates": ["strings"],
    "http": ["sockets"],
    "crypto": [],
    "driver": ["sockets"],
    "sockets": [],
    "strings": [],
}


def kahn(deps):
    indegree = {node: 0 for node in deps}
    users = defaultdict(list)
    for node, reqs in deps.items():
        for r in reqs:
            users[r].append(node)
            indegree[node] += 1
    ready = deque(sorted(n for n, d in indegree.items() if d == 0))
    order = []
    while ready:
        node = ready.popleft()
        order.append(node)
        for user in sorted(users[node]):
            indegree[user] -= 1
            if indegree[user] == 0:
                ready.append(user)
    if len(order) != len(deps):
        raise ValueError("cycle detected")
    return order


def levels(deps):
    memo = {}
    def depth(n):
        if n not in memo:
            memo[n] = 1 + max((depth(d) for d in deps[n]), default=0)
        return memo[n]
    out = defaultdict(list)
    for n in deps:
        out[depth(n)].append(n)
    return {k: sorted(v) for k, v in sorted(out.items())}


print("build order:", " -> ".join(kahn(deps)))
for level, nodes in levels(deps).items():
    print(f"  stage {level}: {', '.join(nodes)}")

cyclic = {"a": ["b"], "b": ["c"], "c": ["a"], "d": []}
try:
    kahn(cyclic)
except ValueError as e:
    print("cyclic graph:", e)

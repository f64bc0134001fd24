class DisjointSet:
    def __init__(self, items):
        self.parent = {x: x for x in items}
        self.rank = {x: 0 for x in items}

    def find(self, x):
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return False
        if self.rank[ra] < self.rank[rb]:
            ra, rb = rb, ra
        self.parent[rb] = ra
        if self.rank[ra] == self.rank[rb]:
            self.rank[ra] += 1
        return True

    def groups(self):
        out = {}
        for x in self.parent:
            out.setdefault(self.find(x), []).append(x)
        return sorted(sorted(g) for g in out.values())


cities = ["Ames", "Boise", "Cary", "Dover", "Erie", "Fargo"]
roads = [("Ames", "Boise", 7), ("Ames", "Dover", 5), ("Boise", "Cary", 8), ("Boise", "Dover", 9),
         ("Boise", "Erie", 7), ("Cary", "Erie", 5), ("Dover", "Erie", 15), ("Dover", "Fargo", 6),
         ("Erie", "Fargo", 8), ("Fargo", "Cary", 9)]

ds = DisjointSet(cities)
mst = [(a, b, w) for a, b, w in sorted(roads, key=lambda r: (r[2], r[0], r[1])) if ds.union(a, b)]
print("Minimum spanning tree:")
for a, b, w in mst:
    print(f"  {a:<6}- {b:<6} {w}")
print("total cost:", sum(w for *_, w in mst), "of", sum(w for *_, w in roads))

islands = DisjointSet(range(10))
for a, b in [(0, 1), (2, 3), (1, 4), (5, 6), (3, 7), (8, 8)]:
    islands.union(a, b)
print("components:", islands.groups())
print("0 and 4 connected:", islands.find(0) == islands.find(4))
print("0 and 7 connected:", islands.find(0) == islands.find(7))

from functools import lru_cache

items = [("map", 9, 150), ("compass", 13, 35), ("water", 153, 200), ("sandwich", 50, 160),
         ("glucose", 15, 60), ("tin", 68, 45), ("banana", 27, 60), ("apple", 39, 40),
         ("cheese", 23, 30), ("beer", 52, 10), ("suntan cream", 11, 70), ("camera", 32, 30)]
CAPACITY = 400


def knapsack(items, capacity):
    n = len(items)
    table = [[0] * (capacity + 1) for _ in range(n + 1)]
    for i, (_, weight, value) in enumerate(items, 1):
        for w in range(capacity + 1):
            table[i][w] = table[i - 1][w]
            if weight <= w:
                table[i][w] = max(table[i][w], table[i - 1][w - weight] + value)
    chosen, w = [], capacity
    for i in range(n, 0, -1):
        if table[i][w] != table[i - 1][w]:
            chosen.append(items[i - 1])
            w -= items[i - 1][1]
    return table[n][capacity], chosen[::-1]


best, chosen = knapsack(items, CAPACITY)
print(f"best value {best}, weight {sum(i[1] for i in chosen)}/{CAPACITY}")
for name, weight, value in chosen:
    print(f"  {name:<13}{weight:>4}{value:>5}")


@lru_cache(maxsize=None)
def edit_distance(a, b):
    if not a or not b:
        return len(a) + len(b)
    if a[0] == b[0]:
        return edit_distance(a[1:], b[1:])
    return 1 + min(edit_distance(a[1:], b), edit_distance(a, b[1:]), edit_distance(a[1:], b[1:]))


for a, b in (("kitten", "sitting"), ("flaw", "lawn"), ("intention", "execution")):
    print(f"edit_distance({a}, {b}) = {edit_distance(a, b)}")


def lis(seq):
    best = [1] * len(seq)
    for i in range(len(seq)):
        for j in range(i):
            if seq[j] < seq[i]:
                best[i] = max(best[i], best[j] + 1)
    return max(best)


print("LIS length:", lis([10, 9, 2, 5, 3, 7, 101, 18, 4, 19]))
print("cache info:", edit_distance.cache_info().hits > 0)

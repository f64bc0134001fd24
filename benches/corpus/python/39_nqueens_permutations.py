from itertools import permutations, combinations


def solve_queens(n):
    solutions = []
    cols, diag1, diag2 = set(), set(), set()
    placement = []

    def place(row):
        if row == n:
            solutions.append(placement[:])
            return
        for c in range(n):
            if c in cols or row - c in diag1 or row + c in diag2:
                continue
            cols.add(c); diag1.add(row - c); diag2.add(row + c)
            placement.append(c)
            place(row + 1)
            placement.pop()
            cols.discard(c); diag1.discard(row - c); diag2.discard(row + c)

    place(0)
    return solutions


for n in range(4, 9):
    print(f"{n}-queens: {len(solve_queens(n))} solutions")
first = solve_queens(8)[0]
for c in first:
    print(" ".join("Q" if i == c else "." for i in range(8)))

brute = sum(all(abs(p[i] - p[j]) != j - i for i, j in combinations(range(6), 2))
            for p in permutations(range(6)))
print("6-queens by brute force:", brute)

coins = [1, 5, 10, 25]
ways = [1] + [0] * 100
for coin in coins:
    for amount in range(coin, 101):
        ways[amount] += ways[amount - coin]
print("ways to make 100 cents:", ways[100])

target = 15
subsets = [c for r in range(1, 5) for c in combinations([1, 3, 5, 7, 9, 11], r) if sum(c) == target]
print("subsets summing to 15:", subsets)

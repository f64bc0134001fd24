import random
from collections import Counter

random.seed(42)

rolls = [random.randint(1, 6) + random.randint(1, 6) for _ in range(3600)]
counts = Counter(rolls)
print("Two-dice sums (3600 rolls):")
for total in range(2, 13):
    expected = (6 - abs(total - 7)) * 100
    print(f"  {total:>2}: {counts[total]:>4} (expected {expected:>3}) {'*' * (counts[total] // 25)}")

inside = sum(random.random() ** 2 + random.random() ** 2 <= 1.0 for _ in range(20000))
print(f"Monte Carlo pi ≈ {4 * inside / 20000:.4f}")

deck = [f"{r}{s}" for s in "SHDC" for r in "A23456789TJQK"]
random.shuffle(deck)
print("hand:", sorted(deck[:5]))
print("sample:", random.sample(range(100), 6))
print("choice:", random.choice(["red", "green", "blue"]))
weighted = Counter(random.choices("abc", weights=[5, 3, 2], k=1000))
print("weighted:", sorted(weighted.items()))


def walk(steps):
    pos = 0
    furthest = 0
    for _ in range(steps):
        pos += random.choice((-1, 1))
        furthest = max(furthest, abs(pos))
    return pos, furthest


print("random walk (final, furthest):", [walk(100) for _ in range(4)])
print(f"gauss: {random.gauss(0, 1):.6f}, uniform: {random.uniform(10, 20):.6f}")

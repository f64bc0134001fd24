import bisect


def binary_search(items, target):
    lo, hi = 0, len(items) - 1
    steps = 0
    while lo <= hi:
        steps += 1
        mid = (lo + hi) // 2
        if items[mid] == target:
            return mid, steps
        if items[mid] < target:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1, steps


data = list(range(3, 300, 7))
for target in (3, 150, 157, 297, 298):
    idx, steps = binary_search(data, target)
    print(f"search {target:>3}: index {idx:>3} in {steps} steps")

grades_cut = [60, 70, 80, 90]
letters = "FDCBA"
scores = [33, 60, 69, 70, 85, 90, 99, 100]
print([f"{s}:{letters[bisect.bisect_right(grades_cut, s)]}" for s in scores])

sorted_list = []
for x in (5, 1, 4, 1, 5, 9, 2, 6, 5, 3):
    bisect.insort(sorted_list, x)
print("insort result:", sorted_list)
print("count of 5 via bisect:", bisect.bisect_right(sorted_list, 5) - bisect.bisect_left(sorted_list, 5))


def isqrt_search(n):
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if mid * mid <= n:
            lo = mid
        else:
            hi = mid - 1
    return lo


print("isqrt:", [isqrt_search(n) for n in (0, 1, 15, 16, 17, 10**12 + 7)])
ranges = [(0, 10), (15, 20), (30, 45)]
starts = [r[0] for r in ranges]
for q in (5, 12, 16, 45, 50):
    i = bisect.bisect_right(starts, q) - 1
    hit = i >= 0 and ranges[i][0] <= q < ranges[i][1]
    print(f"{q} in range {ranges[i] if hit else None}")

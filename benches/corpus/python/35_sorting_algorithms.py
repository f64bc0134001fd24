import random


def bubble_sort(a):
    a = a[:]
    swaps = 0
    for end in range(len(a) - 1, 0, -1):
        for i in range(end):
            if a[i] > a[i + 1]:
                a[i], a[i + 1] = a[i + 1], a[i]
                swaps += 1
    return a, swaps


def merge_sort(a):
    if len(a) <= 1:
        return a
    mid = len(a) // 2
    left, right = merge_sort(a[:mid]), merge_sort(a[mid:])
    merged, i, j = [], 0, 0
    while i < len(left) and j < len(right):
        if left[i] <= right[j]:
            merged.append(left[i]); i += 1
        else:
            merged.append(right[j]); j += 1
    return merged + left[i:] + right[j:]


def quick_sort(a):
    if len(a) <= 1:
        return a
    pivot, *rest = a
    return quick_sort([x for x in rest if x < pivot]) + [pivot] + quick_sort([x for x in rest if x >= pivot])


def counting_sort(a):
    lo, hi = min(a), max(a)
    counts = [0] * (hi - lo + 1)
    for x in a:
        counts[x - lo] += 1
    return [i + lo for i, c in enumerate(counts) for _ in range(c)]


random.seed(7)
data = [random.randint(-50, 50) for _ in range(25)]
print("input :", data)
expected = sorted(data)
bubbled, swaps = bubble_sort(data)
for name, result in (("bubble", bubbled), ("merge", merge_sort(data)),
                     ("quick", quick_sort(data)), ("counting", counting_sort(data))):
    print(f"{name:<9} ok={result == expected}")
print("sorted:", expected)
print("inversions (bubble swaps):", swaps)

people = [("Zoe", 31), ("adam", 25), ("Bea", 31), ("carl", 25), ("Dan", 40)]
print(sorted(people, key=lambda p: (-p[1], p[0].lower())))
print(sorted(people, key=lambda p: p[0]))
print(sorted(people, key=lambda p: p[0].casefold()))

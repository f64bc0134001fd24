from itertools import (accumulate, chain, combinations, compress, count, cycle, groupby,
                       islice, pairwise, permutations, product, repeat, starmap, takewhile,
                       zip_longest, combinations_with_replacement)
import operator

print("count/islice:", list(islice(count(10, 5), 6)))
print("cycle:", "".join(islice(cycle("ABC"), 8)))
print("repeat:", list(repeat("x", 3)))
print("accumulate sum:", list(accumulate([3, 1, 4, 1, 5, 9, 2, 6])))
print("accumulate max:", list(accumulate([3, 1, 4, 1, 5, 9, 2, 6], max)))
print("running product:", list(accumulate(range(1, 8), operator.mul)))
print("chain:", list(chain("ab", [1, 2], ("z",))))
print("chain.from_iterable:", list(chain.from_iterable([[1, 2], [3], [], [4, 5]])))
print("compress:", list(compress("ABCDEF", [1, 0, 1, 0, 1, 1])))
print("takewhile:", list(takewhile(lambda x: x < 10, [1, 4, 9, 16, 25])))
print("pairwise diffs:", [b - a for a, b in pairwise([1, 4, 9, 16, 25])])
print("starmap pow:", list(starmap(pow, [(2, 5), (3, 2), (10, 3)])))
print("zip_longest:", list(zip_longest("abc", [1, 2], fillvalue="-")))
print("product:", ["".join(p) for p in product("ab", "xy", "12")])
print("permutations:", ["".join(p) for p in permutations("abc", 2)])
print("combinations:", list(combinations([1, 2, 3, 4], 3)))
print("with replacement:", len(list(combinations_with_replacement(range(5), 3))))

data = "aaabccddddde"
print("run-length:", "".join(f"{k}{len(list(g))}" for k, g in groupby(data)))
nums = [1, 2, 3, 7, 8, 10, 11, 12, 13, 20]
runs = [list(map(operator.itemgetter(1), g)) for _, g in groupby(enumerate(nums), lambda t: t[1] - t[0])]
print("consecutive runs:", ", ".join(f"{r[0]}-{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs))


def batched(iterable, n):
    it = iter(iterable)
    while batch := tuple(islice(it, n)):
        yield batch


print("batched:", list(batched(range(10), 4)))

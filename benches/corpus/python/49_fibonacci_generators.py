from itertools import islice, takewhile


def fibonacci():
    a, b = 0, 1
    while True:
        yield a
        a, b = b, a + b


def primes():
    found = []
    n = 2
    while True:
        if all(n % p for p in found if p * p <= n):
            found.append(n)
            yield n
        n += 1


def collatz(n):
    while n != 1:
        yield n
        n = n // 2 if n % 2 == 0 else 3 * n + 1
    yield 1


def running_average():
    total = count = 0
    average = None
    while True:
        value = yield average
        total += value
        count += 1
        average = total / count


print("first 15 fib:", list(islice(fibonacci(), 15)))
print("even fib < 4M sum:", sum(f for f in takewhile(lambda f: f < 4_000_000, fibonacci()) if f % 2 == 0))
print("first 12 primes:", list(islice(primes(), 12)))
print("100th prime:", next(islice(primes(), 99, None)))
print("collatz(27) length:", sum(1 for _ in collatz(27)), "peak:", max(collatz(27)))
longest = max(range(1, 1000), key=lambda n: sum(1 for _ in collatz(n)))
print("longest collatz start < 1000:", longest)

avg = running_average()
next(avg)
for v in (10, 20, 60, 10):
    print(f"sent {v:>2} -> average {avg.send(v):.2f}")


def chunked_squares(limit):
    yield from (x * x for x in range(limit))
    yield "done"


print(list(chunked_squares(6)))
gen = fibonacci()
print(type(gen).__name__, next(gen), next(gen), next(gen), next(gen))

import math


def sieve(limit):
    is_prime = [True] * (limit + 1)
    is_prime[0:2] = [False, False]
    for i in range(2, math.isqrt(limit) + 1):
        if is_prime[i]:
            is_prime[i * i::i] = [False] * len(range(i * i, limit + 1, i))
    return [i for i, p in enumerate(is_prime) if p]


def factorize(n):
    factors = {}
    d = 2
    while d * d <= n:
        while n % d == 0:
            factors[d] = factors.get(d, 0) + 1
            n //= d
        d += 1
    if n > 1:
        factors[n] = factors.get(n, 0) + 1
    return factors


primes = sieve(200)
print(f"{len(primes)} primes below 200; last five: {primes[-5:]}")
twins = [(p, p + 2) for p in primes if p + 2 in set(primes)]
print("twin primes:", twins[:8], "...")
gaps = [b - a for a, b in zip(primes, primes[1:])]
print("largest gap:", max(gaps), "after", primes[gaps.index(max(gaps))])

for n in (360, 9973, 123456, 2**10 * 3**4, 600851475143):
    f = factorize(n)
    text = " * ".join(f"{p}^{e}" if e > 1 else str(p) for p, e in f.items())
    print(f"{n} = {text}")

print("gcd(462, 1071) =", math.gcd(462, 1071), " lcm(4, 6, 10) =", math.lcm(4, 6, 10))

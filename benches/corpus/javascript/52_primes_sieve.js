function sieve(limit) {
  const isPrime = new Uint8Array(limit + 1).fill(1);
  isPrime[0] = isPrime[1] = 0;
  for (let i = 2; i * i <= limit; i++) {
    if (isPrime[i]) for (let j = i * i; j <= limit; j += i) isPrime[j] = 0;
  }
  return isPrime.reduce((acc, flag, n) => (flag ? [...acc, n] : acc), []);
}

const primes = sieve(1000);
console.log(primes.length, "primes below 1000");
console.log(primes.slice(0, 30));
console.log(primes);

const factorize = (n) => {
  const factors = [];
  for (let p = 2; p * p <= n; p++) {
    while (n % p === 0) {
      factors.push(p);
      n /= p;
    }
  }
  if (n > 1) factors.push(n);
  return factors;
};
for (const n of [360, 97, 1001, 65536, 999983, 600851475143]) {
  const f = factorize(n);
  const grouped = Object.entries(f.reduce((a, p) => ({ ...a, [p]: (a[p] ?? 0) + 1 }), {}));
  console.log(`${n} = ${grouped.map(([p, e]) => (e > 1 ? `${p}^${e}` : p)).join(" * ")}`);
}

const twins = primes.filter((p, i) => primes[i + 1] - p === 2).map((p) => [p, p + 2]);
console.log("twin primes < 100:", twins.filter(([a]) => a < 100));
const gaps = primes.slice(1).map((p, i) => p - primes[i]);
const maxGap = Math.max(...gaps);
console.log("largest gap below 1000:", maxGap, "after", primes[gaps.indexOf(maxGap)]);
const goldbach = (n) => primes.find((p) => primes.includes(n - p));
console.log([4, 28, 100, 998].map((n) => `${n}=${goldbach(n)}+${n - goldbach(n)}`).join(", "));
const gcd = (a, b) => (b ? gcd(b, a % b) : a);
console.log(gcd(1071, 462), gcd(17, 5), (12 * 18) / gcd(12, 18));

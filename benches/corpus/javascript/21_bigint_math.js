function factorial(n) {
  let result = 1n;
  for (let i = 2n; i <= n; i++) result *= i;
  return result;
}

console.log(factorial(20n));
console.log(factorial(30n));
console.log(factorial(50n).toString().length, "digits in 50!");

const big = 2n ** 100n;
console.log(big, typeof big);
console.log([1n, -5n, 0n, 12345678901234567890n]);
console.log({ id: 9007199254740993n, safe: Number.MAX_SAFE_INTEGER });
console.log(Number.MAX_SAFE_INTEGER + 2, BigInt(Number.MAX_SAFE_INTEGER) + 2n);
console.log(7n / 2n, -7n / 2n, 7n % 3n, (-7n) % 3n);
console.log(0xffn, BigInt("123456789012345678901234567890") * 3n);
console.log(BigInt.asUintN(8, 257n), BigInt.asIntN(8, 255n));

function modPow(base, exp, mod) {
  let result = 1n;
  base %= mod;
  while (exp > 0n) {
    if (exp & 1n) result = (result * base) % mod;
    base = (base * base) % mod;
    exp >>= 1n;
  }
  return result;
}
console.log("3^1000 mod 1e9+7 =", modPow(3n, 1000n, 1000000007n));

function fib(n) {
  let [a, b] = [0n, 1n];
  for (let i = 0; i < n; i++) [a, b] = [b, a + b];
  return a;
}
console.log("fib(100) =", fib(100));
console.log(10n > 9, 10n == 10, 10n === 10, [3n, 1, 2n, -4].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)));
try {
  console.log(1n + 1);
} catch (err) {
  console.log("TypeError:", err.message);
}
console.log(`${2n ** 64n - 1n}`, (255n).toString(16), (2n ** 64n).toString(2).length);
console.log(JSON.stringify({ n: String(42n) }), Number(123n) + 1);

// A seeded Math.random: xoshiro128** over a state filled by splitmix32 from
// the two halves of the seed, so one seed gives one sequence, everywhere.
// Returns `reseed(high, low)`, which starts the same generator (whoever
// holds it) on another seed's sequence.
(seedHigh, seedLow) => {
  let a, b, c, d;
  const seed = (high, low) => {
    let s = low >>> 0;
    const splitmix = () => {
      s = (s + 0x9e3779b9) | 0;
      let z = s ^ (high >>> 0);
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    a = splitmix(); b = splitmix(); c = splitmix(); d = splitmix();
    if ((a | b | c | d) === 0) a = 1;
  };
  seed(seedHigh, seedLow);
  const next = () => {
    const result = Math.imul(((Math.imul(b, 5) << 7) | (Math.imul(b, 5) >>> 25)), 9) >>> 0;
    const t = b << 9;
    c ^= a; d ^= b; b ^= c; a ^= d; c ^= t;
    d = (d << 11) | (d >>> 21);
    return result;
  };
  // 53 random bits make a double in [0, 1), as engines do.
  const random = () => ((next() >>> 5) * 67108864 + (next() >>> 6)) / 9007199254740992;
  Object.defineProperty(Math, 'random', { value: random, writable: true, configurable: true });
  return seed;
}

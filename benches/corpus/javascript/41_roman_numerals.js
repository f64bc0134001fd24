const TABLE = [
  [1000, "M"], [900, "CM"], [500, "D"], [400, "CD"], [100, "C"], [90, "XC"],
  [50, "L"], [40, "XL"], [10, "X"], [9, "IX"], [5, "V"], [4, "IV"], [1, "I"],
];

function toRoman(n) {
  if (!Number.isInteger(n) || n < 1 || n > 3999) throw new RangeError(`cannot convert ${n}`);
  let out = "";
  for (const [value, symbol] of TABLE) {
    while (n >= value) {
      out += symbol;
      n -= value;
    }
  }
  return out;
}

function fromRoman(s) {
  const values = { I: 1, V: 5, X: 10, L: 50, C: 100, D: 500, M: 1000 };
  let total = 0;
  for (let i = 0; i < s.length; i++) {
    const v = values[s[i]];
    if (v === undefined) throw new SyntaxError(`bad numeral character '${s[i]}' in ${s}`);
    total += v < (values[s[i + 1]] ?? 0) ? -v : v;
  }
  if (toRoman(total) !== s) throw new SyntaxError(`non-canonical numeral ${s}`);
  return total;
}

const years = [1, 4, 9, 14, 40, 90, 400, 1987, 1999, 2024, 3999];
console.log(years.map((y) => `${y}=${toRoman(y)}`).join(" "));
console.log(Object.fromEntries(years.slice(-4).map((y) => [y, toRoman(y)])));

for (const s of ["XLII", "MCMXCIV", "MMXXIV", "IIII", "ABC", "IC"]) {
  try {
    console.log(s, "->", fromRoman(s));
  } catch (err) {
    console.log(s, "->", err.name, err.message);
  }
}
for (const bad of [0, 4000, 2.5]) {
  try {
    toRoman(bad);
  } catch (err) {
    console.log(err.message);
  }
}
let ok = 0;
for (let i = 1; i <= 3999; i++) if (fromRoman(toRoman(i)) === i) ok++;
console.log("roundtrip ok for", ok, "numbers");
const longest = Array.from({ length: 3999 }, (_, i) => toRoman(i + 1)).reduce((a, b) => (b.length > a.length ? b : a));
console.log("longest numeral:", longest, longest.length, "=", fromRoman(longest));

const heights = [172.5, 168.0, 181.2, 175.4, 159.8, 190.1, 177.7, 165.3, 170.0, 183.6, 168.0, 174.9];

const sum = (xs) => xs.reduce((a, b) => a + b, 0);
const mean = (xs) => sum(xs) / xs.length;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};
const variance = (xs, sample = true) => {
  const m = mean(xs);
  return sum(xs.map((x) => (x - m) ** 2)) / (xs.length - (sample ? 1 : 0));
};
const stdev = (xs) => Math.sqrt(variance(xs));
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (pos - lo);
};
const mode = (xs) => {
  const counts = xs.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map());
  const max = Math.max(...counts.values());
  return [...counts].filter(([, c]) => c === max).map(([x]) => x);
};

const summary = {
  n: heights.length,
  mean: +mean(heights).toFixed(3),
  median: median(heights),
  mode: mode(heights),
  stdev: +stdev(heights).toFixed(3),
  min: Math.min(...heights),
  max: Math.max(...heights),
  q1: quantile(heights, 0.25),
  q3: quantile(heights, 0.75),
};
console.log(summary);
const zscores = heights.map((h) => +((h - mean(heights)) / stdev(heights)).toFixed(2));
console.log(zscores);

const bins = {};
for (const h of heights) {
  const b = Math.floor(h / 10) * 10;
  bins[`${b}-${b + 9}`] = (bins[`${b}-${b + 9}`] ?? 0) + 1;
}
for (const [range, count] of Object.entries(bins).sort()) console.log(range.padEnd(8), "█".repeat(count), count);

const weights = [68.2, 61.0, 85.3, 74.1, 52.6, 95.0, 79.8, 58.4, 66.0, 88.7, 63.5, 72.2];
const cov = sum(heights.map((h, i) => (h - mean(heights)) * (weights[i] - mean(weights)))) / (heights.length - 1);
const r = cov / (stdev(heights) * stdev(weights));
console.log("correlation height/weight:", r.toFixed(4));
const slope = cov / variance(heights);
const intercept = mean(weights) - slope * mean(heights);
console.log(`weight ≈ ${slope.toFixed(3)} * height ${intercept < 0 ? "-" : "+"} ${Math.abs(intercept).toFixed(2)}`);
console.log("predicted for 180cm:", (slope * 180 + intercept).toFixed(1), "kg");
console.log(mean([]), median([5]), mode([1, 2, 2, 3, 3]));

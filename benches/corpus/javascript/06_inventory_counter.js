const shipments = [
  "apple:12", "banana:30", "apple:5", "cherry:100", "banana:-4",
  "durian:1", "apple:-10", "cherry:-35", "elderberry:8", "banana:6",
];

const stock = new Map();
for (const entry of shipments) {
  const [item, qty] = entry.split(":");
  stock.set(item, (stock.get(item) ?? 0) + Number(qty));
}
console.log(stock);

const sorted = [...stock].sort((a, b) => b[1] - a[1]);
console.log("Most stocked:", sorted[0]);
console.log("Least stocked:", sorted.at(-1));

const lowStock = [...stock.entries()].filter(([, q]) => q < 10).map(([k]) => k);
console.log("Reorder:", lowStock);

const total = [...stock.values()].reduce((s, q) => s + q, 0);
console.log(`Total units: ${total}`);

for (const [item, qty] of sorted) {
  const bar = "#".repeat(Math.round(qty / 5));
  console.log(`${item.padEnd(11)}${String(qty).padStart(4)} ${bar}`);
}

const counts = shipments
  .map((s) => s.split(":")[0])
  .reduce((m, k) => m.set(k, (m.get(k) || 0) + 1), new Map());
console.log("Shipments per item:", Object.fromEntries(counts));

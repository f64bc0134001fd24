const sales = [
  { region: "North", product: "Widget", units: 12, price: 2.5 },
  { region: "South", product: "Gadget", units: 5, price: 10.0 },
  { region: "North", product: "Gadget", units: 3, price: 10.0 },
  { region: "East", product: "Widget", units: 20, price: 2.5 },
  { region: "South", product: "Widget", units: 7, price: 2.5 },
  { region: "East", product: "Doohickey", units: 1, price: 99.99 },
  { region: "North", product: "Doohickey", units: 2, price: 99.99 },
];

const byRegion = {};
for (const { region, units, price } of sales) {
  byRegion[region] ??= { units: 0, revenue: 0 };
  byRegion[region].units += units;
  byRegion[region].revenue += units * price;
}

console.log("Region".padEnd(8) + "Units".padStart(6) + "Revenue".padStart(12));
console.log("-".repeat(26));
const ranked = Object.entries(byRegion).sort((a, b) => b[1].revenue - a[1].revenue);
for (const [region, { units, revenue }] of ranked) {
  console.log(region.padEnd(8) + String(units).padStart(6) + revenue.toFixed(2).padStart(12));
}
console.log("-".repeat(26));
const totalUnits = sales.reduce((s, r) => s + r.units, 0);
const totalRevenue = sales.reduce((s, r) => s + r.units * r.price, 0);
console.log("Total".padEnd(8) + String(totalUnits).padStart(6) + totalRevenue.toFixed(2).padStart(12));

const best = sales.reduce((a, b) => (b.units * b.price > a.units * a.price ? b : a));
console.log(`Largest line: ${best.product} in ${best.region} (${(best.units * best.price).toFixed(2)})`);
console.log(byRegion);

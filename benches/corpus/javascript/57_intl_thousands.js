const cities = [
  { name: "Tokyo", population: 37400068, area: 2194.07 },
  { name: "Delhi", population: 28514000, area: 1484 },
  { name: "Shanghai", population: 25582000, area: 6340.5 },
  { name: "Reykjavik", population: 131136, area: 273 },
  { name: "Vatican City", population: 825, area: 0.49 },
];

console.log("City".padEnd(14) + "Population".padStart(12) + "Area km²".padStart(11) + "Density".padStart(10));
for (const c of cities) {
  const density = c.population / c.area;
  console.log(
    c.name.padEnd(14) +
      c.population.toLocaleString("en-US").padStart(12) +
      c.area.toLocaleString("en-US").padStart(11) +
      Math.round(density).toLocaleString("en-US").padStart(10)
  );
}
const total = cities.reduce((s, c) => s + c.population, 0);
console.log("Total population:", total.toLocaleString("en-US"));

console.log((1234567.891).toLocaleString("en-US"));
console.log((1234567.891).toLocaleString("en-US", { maximumFractionDigits: 1 }));
console.log((0.5).toLocaleString("en-US", { minimumFractionDigits: 2 }), (42).toLocaleString("en-US", { minimumIntegerDigits: 4 }));
console.log((-98765.4321).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 }));
console.log([1e3, 1e6, 1e9, 1e12].map((n) => n.toLocaleString("en-US")));
console.log((123456789n).toLocaleString("en-US"), (2n ** 70n).toLocaleString("en-US"));
console.log([NaN, Infinity, -0].map((n) => n.toLocaleString("en-US")));
const compact = new Intl.NumberFormat("en-US", { notation: "compact" });
console.log(cities.map((c) => `${c.name}: ${compact.format(c.population)}`).join(", "));
const sci = new Intl.NumberFormat("en-US", { notation: "scientific", maximumFractionDigits: 3 });
console.log(sci.format(total), new Intl.NumberFormat("en-US", { notation: "engineering" }).format(123456));
console.log(new Intl.NumberFormat("en-US", { style: "unit", unit: "kilometer-per-hour" }).format(88.5));
console.log(new Intl.NumberFormat("en-US", { signDisplay: "always" }).format(5), new Intl.NumberFormat("en-US", { signDisplay: "exceptZero" }).format(0));

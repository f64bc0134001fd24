const report = {
  title: "Quarterly Summary",
  generated: new Date(Date.UTC(2024, 2, 31, 23, 59, 0)),
  quarters: [
    { q: "Q1", revenue: 120500.5, costs: 98000, notes: null },
    { q: "Q2", revenue: 134200, costs: 101250.75, notes: "new region" },
  ],
  tags: new Set(["finance", "internal"]),
  secret: "do-not-export",
  ratio: NaN,
  callback() {},
  missing: undefined,
};

console.log(JSON.stringify(report));
console.log(JSON.stringify(report, null, 2));
console.log(JSON.stringify(report, ["title", "quarters", "q", "revenue"], "\t"));

const replacer = (key, value) => {
  if (key === "secret") return undefined;
  if (value instanceof Set) return [...value];
  if (typeof value === "number" && !Number.isInteger(value)) return Math.round(value * 100) / 100;
  return value;
};
console.log(JSON.stringify(report, replacer, 4));

class Money {
  constructor(cents, currency) {
    this.cents = cents;
    this.currency = currency;
  }
  toJSON() {
    return `${(this.cents / 100).toFixed(2)} ${this.currency}`;
  }
}
console.log(JSON.stringify({ price: new Money(1999, "EUR"), list: [new Money(5, "USD")] }, null, 1));

const text = '{"id": 7, "when": "2024-05-01T10:00:00.000Z", "amounts": [1.5, 2.25]}';
const parsed = JSON.parse(text, (k, v) => (k === "when" ? new Date(v) : v));
console.log(parsed, parsed.when.getUTCHours());
console.log(JSON.stringify([undefined, function () {}, Symbol("s"), Infinity, -0, 1e21]));
console.log(JSON.stringify("line\n\"quoted\"\ttab"), JSON.stringify({}), JSON.stringify([], null, 2));

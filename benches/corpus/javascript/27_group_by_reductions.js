const transactions = [
  { date: "2024-01-03", category: "groceries", amount: 54.2, account: "checking" },
  { date: "2024-01-05", category: "transport", amount: 12.0, account: "credit" },
  { date: "2024-01-09", category: "groceries", amount: 38.75, account: "credit" },
  { date: "2024-01-12", category: "dining", amount: 61.3, account: "credit" },
  { date: "2024-02-01", category: "rent", amount: 1200, account: "checking" },
  { date: "2024-02-03", category: "groceries", amount: 71.1, account: "checking" },
  { date: "2024-02-14", category: "dining", amount: 89.9, account: "credit" },
  { date: "2024-02-20", category: "transport", amount: 30.0, account: "checking" },
];

const groupBy = (list, keyFn) =>
  list.reduce((acc, item) => {
    const key = keyFn(item);
    (acc[key] ||= []).push(item);
    return acc;
  }, {});

const byCategory = groupBy(transactions, (t) => t.category);
console.log(Object.keys(byCategory));
console.log(byCategory.dining);

const totals = Object.fromEntries(
  Object.entries(byCategory).map(([cat, list]) => [cat, +list.reduce((s, t) => s + t.amount, 0).toFixed(2)])
);
console.log(totals);

const byMonth = groupBy(transactions, (t) => t.date.slice(0, 7));
for (const [month, list] of Object.entries(byMonth)) {
  const sum = list.reduce((s, t) => s + t.amount, 0);
  const biggest = list.reduce((a, b) => (b.amount > a.amount ? b : a));
  console.log(`${month}: ${list.length} txns, total ${sum.toFixed(2)}, biggest ${biggest.category} ${biggest.amount}`);
}

const nested = transactions.reduce((acc, t) => {
  const month = t.date.slice(0, 7);
  acc[month] ??= {};
  acc[month][t.account] = (acc[month][t.account] ?? 0) + t.amount;
  return acc;
}, {});
console.log(nested);

const asMap = transactions.reduce((m, t) => m.set(t.account, [...(m.get(t.account) ?? []), t.amount]), new Map());
console.log(asMap);
const [minT, maxT] = transactions.reduce(([lo, hi], t) => [Math.min(lo, t.amount), Math.max(hi, t.amount)], [Infinity, -Infinity]);
console.log({ minT, maxT, count: transactions.length });
const partition = transactions.reduce(([big, small], t) => (t.amount >= 50 ? [[...big, t.amount], small] : [big, [...small, t.amount]]), [[], []]);
console.log(partition);

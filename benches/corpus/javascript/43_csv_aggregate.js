const csv = `date,store,product,qty,unit_price
2024-04-01,Downtown,Espresso,42,2.80
2024-04-01,Downtown,Latte,30,3.90
2024-04-01,Airport,Espresso,65,3.20
2024-04-02,Airport,"Flat White, Large",18,4.60
2024-04-02,Downtown,Latte,27,3.90
2024-04-02,Suburb,Espresso,12,2.60
2024-04-03,Suburb,Latte,9,3.70
2024-04-03,Airport,Latte,40,4.30
2024-04-03,Downtown,"Flat White, Large",22,4.20`;

function parseLine(line) {
  const cells = [];
  let cur = "", quoted = false;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    else if (ch === "," && !quoted) {
      cells.push(cur);
      cur = "";
    } else cur += ch;
  }
  cells.push(cur);
  return cells;
}

const [headerLine, ...lines] = csv.split("\n");
const headers = parseLine(headerLine);
const rows = lines.map((l) => {
  const obj = Object.fromEntries(parseLine(l).map((v, i) => [headers[i], v]));
  return { ...obj, qty: Number(obj.qty), unit_price: Number(obj.unit_price) };
});
console.log(headers, rows.length, "rows");
console.log(rows[3]);

const agg = {};
for (const r of rows) {
  const s = (agg[r.store] ??= { orders: 0, units: 0, revenue: 0 });
  s.orders++;
  s.units += r.qty;
  s.revenue = +(s.revenue + r.qty * r.unit_price).toFixed(2);
}
console.table(agg);

const byProduct = rows.reduce((m, r) => m.set(r.product, (m.get(r.product) ?? 0) + r.qty), new Map());
console.log(byProduct);
const byDay = Object.entries(rows.reduce((a, r) => ({ ...a, [r.date]: (a[r.date] ?? 0) + r.qty * r.unit_price }), {}));
for (const [day, rev] of byDay) console.log(day, rev.toFixed(2).padStart(8), "#".repeat(Math.round(rev / 25)));

const toCsv = (objs) => [Object.keys(objs[0]).join(","), ...objs.map((o) => Object.values(o).map((v) => (/[",]/.test(v) ? `"${v}"` : v)).join(","))].join("\n");
console.log(toCsv(Object.entries(agg).map(([store, s]) => ({ store, ...s, avg: (s.revenue / s.orders).toFixed(2) }))));
console.log(toCsv(rows.filter((r) => r.product.includes(",")).map(({ date, product }) => ({ date, product }))));

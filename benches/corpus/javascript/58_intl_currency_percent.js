const usd = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" });
const eur = new Intl.NumberFormat("en-US", { style: "currency", currency: "EUR" });
const jpy = new Intl.NumberFormat("en-US", { style: "currency", currency: "JPY" });
const pct = new Intl.NumberFormat("en-US", { style: "percent", maximumFractionDigits: 1 });

const cart = [
  { item: "Noise-cancelling headphones", price: 249.99, qty: 1 },
  { item: "USB-C cable", price: 12.5, qty: 3 },
  { item: "Laptop stand", price: 39, qty: 1 },
  { item: "Screen cleaner", price: 6.25, qty: 2 },
];

let subtotal = 0;
for (const { item, price, qty } of cart) {
  const line = price * qty;
  subtotal += line;
  console.log(`${item.padEnd(28)} ${String(qty).padStart(2)} x ${usd.format(price).padStart(8)} = ${usd.format(line).padStart(9)}`);
}
const discountRate = 0.075;
const taxRate = 0.0825;
const discount = subtotal * discountRate;
const tax = (subtotal - discount) * taxRate;
console.log("Subtotal:".padEnd(46), usd.format(subtotal).padStart(9));
console.log(`Discount (${pct.format(discountRate)}):`.padEnd(46), usd.format(-discount).padStart(9));
console.log(`Tax (${pct.format(taxRate)}):`.padEnd(46), usd.format(tax).padStart(9));
console.log("Total:".padEnd(46), usd.format(subtotal - discount + tax).padStart(9));

console.log(eur.format(1234.5), jpy.format(1234.5), usd.format(0.005), usd.format(-42));
const rates = { EUR: 0.92, GBP: 0.79, JPY: 151.4, CHF: 0.9 };
for (const [code, rate] of Object.entries(rates)) {
  const fmt = new Intl.NumberFormat("en-US", { style: "currency", currency: code });
  console.log(`${usd.format(100)} = ${fmt.format(100 * rate)}`);
}

const growth = [0.1234, -0.0456, 0.5, 1.25, 0.00049];
console.log(growth.map((g) => pct.format(g)));
const pct0 = new Intl.NumberFormat("en-US", { style: "percent" });
const pct2 = new Intl.NumberFormat("en-US", { style: "percent", minimumFractionDigits: 2 });
console.log(pct0.format(0.4567), pct2.format(0.4567), pct0.format(2));
const accounting = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", currencySign: "accounting" });
console.log(accounting.format(-1500.75), accounting.format(1500.75));
console.log(new Intl.NumberFormat("en-US", { style: "currency", currency: "EUR", currencyDisplay: "name" }).format(3));
console.log(new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", maximumFractionDigits: 0 }).format(1999.5));
console.log(usd.formatToParts(-1234.5).map((p) => `${p.type}:${p.value}`).join(" "));
console.log(usd.resolvedOptions().minimumFractionDigits, jpy.resolvedOptions().maximumFractionDigits);

function amortize(principal, annualRate, years) {
  const r = annualRate / 12;
  const n = years * 12;
  const payment = (principal * r) / (1 - (1 + r) ** -n);
  const schedule = [];
  let balance = principal;
  for (let month = 1; month <= n; month++) {
    const interest = balance * r;
    const toPrincipal = payment - interest;
    balance -= toPrincipal;
    schedule.push({ month, payment: +payment.toFixed(2), interest: +interest.toFixed(2), principal: +toPrincipal.toFixed(2), balance: +Math.max(0, balance).toFixed(2) });
  }
  return { payment, schedule };
}

const { payment, schedule } = amortize(25000, 0.069, 5);
console.log(`Monthly payment: ${payment.toFixed(2)}`);
console.log(schedule.slice(0, 3));
console.log(" Mo    Payment   Interest  Principal     Balance");
for (const row of [...schedule.slice(0, 6), ...schedule.slice(-3)]) {
  console.log(
    String(row.month).padStart(3),
    row.payment.toFixed(2).padStart(10),
    row.interest.toFixed(2).padStart(10),
    row.principal.toFixed(2).padStart(10),
    row.balance.toFixed(2).padStart(11)
  );
}
const totalInterest = schedule.reduce((s, r) => s + r.interest, 0);
console.log("Total interest:", totalInterest.toFixed(2), "Total paid:", (payment * schedule.length).toFixed(2));

const yearly = schedule.reduce((acc, r) => {
  const y = Math.ceil(r.month / 12);
  acc[y] ??= { interest: 0, principal: 0 };
  acc[y].interest = +(acc[y].interest + r.interest).toFixed(2);
  acc[y].principal = +(acc[y].principal + r.principal).toFixed(2);
  return acc;
}, {});
console.table(yearly);

for (const [rate, years] of [[0.05, 15], [0.05, 30], [0.07, 30]]) {
  const p = amortize(300000, rate, years).payment;
  console.log(`${(rate * 100).toFixed(1)}% over ${years}y: ${p.toFixed(2)}/month, interest ${(p * years * 12 - 300000).toFixed(0)}`);
}
const compound = (p, r, n, t) => p * (1 + r / n) ** (n * t);
console.log([1, 4, 12, 365].map((n) => compound(1000, 0.05, n, 10).toFixed(2)), (1000 * Math.exp(0.5)).toFixed(2));

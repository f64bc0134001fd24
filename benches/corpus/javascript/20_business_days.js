const holidays = new Set(["2024-12-25", "2024-12-26", "2025-01-01"]);
const iso = (d) => d.toISOString().slice(0, 10);
const isWeekend = (d) => d.getUTCDay() === 0 || d.getUTCDay() === 6;

function addBusinessDays(start, n) {
  const d = new Date(start);
  let added = 0;
  while (added < n) {
    d.setUTCDate(d.getUTCDate() + 1);
    if (!isWeekend(d) && !holidays.has(iso(d))) added++;
  }
  return d;
}

function businessDaysBetween(a, b) {
  let count = 0;
  for (let d = new Date(a); d < b; d.setUTCDate(d.getUTCDate() + 1)) {
    if (!isWeekend(d) && !holidays.has(iso(d))) count++;
  }
  return count;
}

const orderDate = new Date(Date.UTC(2024, 11, 19));
for (const sla of [1, 3, 5, 10]) {
  console.log(`SLA ${String(sla).padStart(2)} business days from ${iso(orderDate)} -> ${iso(addBusinessDays(orderDate, sla))}`);
}

const start = new Date(Date.UTC(2024, 11, 1));
const end = new Date(Date.UTC(2025, 0, 1));
console.log("Working days in December 2024:", businessDaysBetween(start, end));

const weekdayNames = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const counts = {};
for (let d = new Date(start); d < end; d.setUTCDate(d.getUTCDate() + 1)) {
  const name = weekdayNames[d.getUTCDay()];
  counts[name] = (counts[name] || 0) + 1;
}
console.log(counts);
const nextMonday = (d) => {
  const r = new Date(d);
  r.setUTCDate(r.getUTCDate() + ((8 - r.getUTCDay()) % 7 || 7));
  return r;
};
console.log([...holidays].map((h) => [h, weekdayNames[new Date(h).getUTCDay()], iso(nextMonday(new Date(h)))]));

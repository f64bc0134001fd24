const events = [
  { name: "Product launch", at: new Date(Date.UTC(2024, 2, 14, 16, 0)) },
  { name: "Quarterly review", at: new Date(Date.UTC(2024, 5, 28, 9, 30)) },
  { name: "Team offsite", at: new Date(Date.UTC(2024, 8, 3, 7, 15)) },
  { name: "Year-end party", at: new Date(Date.UTC(2024, 11, 20, 19, 45)) },
];

const medium = new Intl.DateTimeFormat("en-US", { timeZone: "UTC", dateStyle: "medium" });
const full = new Intl.DateTimeFormat("en-US", { timeZone: "UTC", dateStyle: "full", timeStyle: "short" });
for (const e of events) {
  console.log(`${e.name.padEnd(17)} ${medium.format(e.at).padEnd(13)} | ${full.format(e.at)}`);
}

const d = events[0].at;
console.log(d.toLocaleDateString("en-GB", { timeZone: "UTC" }));
console.log(d.toLocaleDateString("en-US", { timeZone: "UTC" }));
console.log(d.toLocaleDateString("de-DE", { timeZone: "UTC" }));
console.log(d.toLocaleString("en-US", { timeZone: "UTC" }));
console.log(d.toLocaleTimeString("en-GB", { timeZone: "UTC" }));
console.log(d.toLocaleDateString("en-US", { timeZone: "UTC", weekday: "long", year: "numeric", month: "long", day: "numeric" }));
console.log(new Intl.DateTimeFormat("en-US", { timeZone: "UTC", month: "short", year: "2-digit" }).format(d));
console.log(new Intl.DateTimeFormat("en-US", { timeZone: "UTC", dateStyle: "short", timeStyle: "long" }).format(d));
console.log(new Intl.DateTimeFormat("en-US", { timeZone: "UTC", hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(d));

const byMonth = events.map((e) => new Intl.DateTimeFormat("en-US", { timeZone: "UTC", month: "long" }).format(e.at));
console.log(byMonth);
const parts = new Intl.DateTimeFormat("en-US", { timeZone: "UTC", year: "numeric", month: "2-digit", day: "2-digit" }).formatToParts(d);
console.log(parts.filter((p) => p.type !== "literal").map((p) => `${p.type}=${p.value}`).join(" "));
const weekdays = Array.from({ length: 7 }, (_, i) =>
  new Intl.DateTimeFormat("en-US", { timeZone: "UTC", weekday: "short" }).format(new Date(Date.UTC(2024, 0, 7 + i)))
);
console.log(weekdays);
console.log(medium.formatRange(events[0].at, events[1].at));
console.log(new Intl.DateTimeFormat("en-GB", { timeZone: "UTC", dateStyle: "long" }).format(events[3].at));

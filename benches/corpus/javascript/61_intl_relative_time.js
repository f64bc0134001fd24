const rtf = new Intl.RelativeTimeFormat("en", { numeric: "auto" });
const rtfAlways = new Intl.RelativeTimeFormat("en");
const rtfShort = new Intl.RelativeTimeFormat("en", { style: "short" });

console.log(rtf.format(-1, "day"), "|", rtfAlways.format(-1, "day"));
console.log(rtf.format(1, "day"), "|", rtf.format(0, "day"), "|", rtf.format(0, "year"));
console.log(rtf.format(-3, "hour"), "|", rtfShort.format(-3, "hour"), "|", rtfShort.format(2, "month"));
console.log(rtf.format(1, "week"), "|", rtf.format(-1, "quarter"), "|", rtfAlways.format(1.5, "hours"));

const now = new Date(Date.UTC(2024, 4, 15, 12, 0, 0));
const UNITS = [
  ["year", 365 * 24 * 3600],
  ["month", 30 * 24 * 3600],
  ["week", 7 * 24 * 3600],
  ["day", 24 * 3600],
  ["hour", 3600],
  ["minute", 60],
  ["second", 1],
];
function timeAgo(date) {
  const seconds = Math.round((date - now) / 1000);
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size || unit === "second") return rtf.format(Math.round(seconds / size), unit);
  }
}

const activity = [
  ["commented", new Date(Date.UTC(2024, 4, 15, 11, 59, 30))],
  ["pushed 3 commits", new Date(Date.UTC(2024, 4, 15, 9, 10))],
  ["opened issue", new Date(Date.UTC(2024, 4, 14, 12, 0))],
  ["merged PR", new Date(Date.UTC(2024, 4, 2))],
  ["joined", new Date(Date.UTC(2022, 0, 20))],
  ["release scheduled", new Date(Date.UTC(2024, 5, 1))],
  ["meeting", new Date(Date.UTC(2024, 4, 15, 14, 30))],
  ["right now", now],
];
for (const [what, when] of activity) console.log(`${what.padEnd(18)} ${timeAgo(when)}`);

const parts = rtfAlways.formatToParts(100, "day");
console.log(parts);
console.log(rtf.resolvedOptions());
const narrow = new Intl.RelativeTimeFormat("en", { style: "narrow", numeric: "always" });
console.log([-2, -1, 1, 2].map((n) => narrow.format(n, "minute")));

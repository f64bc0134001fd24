const launch = new Date(Date.UTC(2024, 0, 15, 9, 30, 0));
console.log(launch);
console.log(launch.toISOString());
console.log(launch.getTime(), launch.valueOf() === launch.getTime());
console.log(JSON.stringify({ launch }));

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const fmt = (d) => `${DAYS[d.getUTCDay()]} ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;

console.log(fmt(launch));

const addDays = (d, n) => new Date(d.getTime() + n * 86400000);
const milestones = [7, 30, 90, 365].map((n) => ({ days: n, date: addDays(launch, n) }));
console.log(milestones);
for (const m of milestones) console.log(`+${String(m.days).padStart(3)} days: ${fmt(m.date)}`);

const a = new Date(Date.UTC(2024, 1, 28));
const b = new Date(Date.UTC(2024, 2, 1));
console.log("days between:", (b - a) / 86400000, "(2024 is a leap year)");

const endOfMonth = (y, m) => new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
console.log([2023, 2024].map((y) => `${y}: Feb has ${endOfMonth(y, 1)} days`));

const parsed = new Date("2024-07-04T18:45:10Z");
console.log(parsed.getUTCHours(), parsed.getUTCMinutes(), parsed.getUTCSeconds(), DAYS[parsed.getUTCDay()]);
console.log([launch, parsed].sort((x, y) => y - x).map((d) => d.toISOString().slice(0, 10)));
console.log(new Date(Date.UTC(1999, 11, 31, 23, 59, 59, 999)).toISOString());
console.log(new Date(0), new Date(Date.UTC(2038, 0, 19, 3, 14, 7)));
console.log(new Date("not a date").getTime(), String(new Date(NaN)));
console.log(launch.toUTCString());

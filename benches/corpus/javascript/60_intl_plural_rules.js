const plural = new Intl.PluralRules("en-US");
const ordinal = new Intl.PluralRules("en-US", { type: "ordinal" });

const forms = { one: "file", other: "files" };
for (const n of [0, 1, 2, 5, 1.5]) {
  console.log(`${n} ${forms[plural.select(n)]} (${plural.select(n)})`);
}

const suffixes = { one: "st", two: "nd", few: "rd", other: "th" };
const ordinalize = (n) => `${n}${suffixes[ordinal.select(n)]}`;
console.log([1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111, 112].map(ordinalize).join(" "));

const leaderboard = [
  { player: "Ana", points: 1280 },
  { player: "Ben", points: 1175 },
  { player: "Cho", points: 990 },
  { player: "Dev", points: 640 },
  { player: "Eli", points: 1 },
];
leaderboard
  .sort((a, b) => b.points - a.points)
  .forEach((p, i) => console.log(`${ordinalize(i + 1).padStart(4)} place: ${p.player} with ${p.points} point${plural.select(p.points) === "one" ? "" : "s"}`));

const units = { day: ["day", "days"], hour: ["hour", "hours"], minute: ["minute", "minutes"] };
function duration(totalMinutes) {
  const d = Math.floor(totalMinutes / 1440), h = Math.floor((totalMinutes % 1440) / 60), m = totalMinutes % 60;
  return Object.entries({ day: d, hour: h, minute: m })
    .filter(([, v]) => v > 0)
    .map(([u, v]) => `${v} ${units[u][plural.select(v) === "one" ? 0 : 1]}`)
    .join(", ") || "0 minutes";
}
console.log([1, 59, 61, 1440, 1501, 3000, 0].map(duration));

console.log(plural.resolvedOptions().pluralCategories, ordinal.resolvedOptions().pluralCategories);
console.log(new Intl.PluralRules("en-US", { minimumFractionDigits: 1 }).select(1));
const items = new Map([["apple", 1], ["box", 3], ["child", 0]]);
const irregular = { apple: "apples", box: "boxes", child: "children" };
for (const [word, n] of items) console.log(`You have ${n} ${plural.select(n) === "one" ? word : irregular[word]}.`);

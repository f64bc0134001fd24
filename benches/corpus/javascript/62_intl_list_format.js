const and = new Intl.ListFormat("en", { type: "conjunction" });
const or = new Intl.ListFormat("en", { type: "disjunction" });
const unit = new Intl.ListFormat("en", { type: "unit", style: "narrow" });
const short = new Intl.ListFormat("en", { style: "short", type: "conjunction" });

const lists = [[], ["apples"], ["apples", "pears"], ["apples", "pears", "plums"], ["red", "green", "blue", "yellow", "black"]];
for (const l of lists) console.log(JSON.stringify(l).padEnd(42), "->", and.format(l));
console.log(or.format(["tea", "coffee", "juice"]));
console.log(unit.format(["5 ft", "11 in"]), "|", short.format(["Mon", "Wed", "Fri"]));

const team = [
  { name: "Ana", skills: ["Go", "SQL"] },
  { name: "Ben", skills: ["TypeScript", "React", "CSS"] },
  { name: "Cho", skills: ["Python"] },
];
for (const { name, skills } of team) console.log(`${name} knows ${and.format(skills)}.`);

const allSkills = [...new Set(team.flatMap((t) => t.skills))].sort();
console.log(`Team skills: ${and.format(allSkills)}.`);
const missing = ["Rust", "Kotlin"].filter((s) => !allSkills.includes(s));
console.log(`We need someone with ${or.format(missing)}.`);

const summarize = (names, max = 3) =>
  names.length <= max ? and.format(names) : and.format([...names.slice(0, max), `${names.length - max} others`]);
console.log(summarize(["Ana"]), "|", summarize(["Ana", "Ben", "Cho", "Dev", "Eli", "Fay"]));
console.log(and.formatToParts(["x", "y", "z"]));
console.log(new Intl.ListFormat("en", { style: "long", type: "conjunction" }).resolvedOptions());

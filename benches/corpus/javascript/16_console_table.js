const employees = [
  { name: "Alice", dept: "Engineering", salary: 125000, remote: true },
  { name: "Bob", dept: "Sales", salary: 72000, remote: false },
  { name: "Chloe", dept: "Engineering", salary: 118500, remote: false },
  { name: "Dmitri", dept: "Support", salary: 56000, remote: true },
  { name: "Eve", dept: "Sales", salary: 81250 },
];

console.table(employees);
console.table(employees, ["name", "salary"]);

const byDept = {};
for (const e of employees) {
  const d = (byDept[e.dept] ??= { count: 0, total: 0 });
  d.count++;
  d.total += e.salary;
}
for (const d of Object.values(byDept)) d.average = Math.round(d.total / d.count);
console.table(byDept);

console.table([[1, 2, 3], [4, 5], [6]]);
console.table(["red", "green", "blue"]);
console.table(new Map([["x", 1], ["y", 2]]));
console.table([{ id: 1, info: { nested: true } }, { id: 2, info: [1, 2] }]);
console.table("not tabular");

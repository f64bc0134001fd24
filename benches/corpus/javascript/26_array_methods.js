const orders = [
  { id: 1, customer: "ann", items: ["pen", "ink"], total: 12.5, status: "shipped" },
  { id: 2, customer: "bob", items: ["notebook"], total: 8.0, status: "pending" },
  { id: 3, customer: "ann", items: ["stapler", "pen", "clips"], total: 23.75, status: "shipped" },
  { id: 4, customer: "cy", items: [], total: 0, status: "cancelled" },
  { id: 5, customer: "bob", items: ["ink", "paper"], total: 17.2, status: "shipped" },
];

console.log(orders.map((o) => o.total));
console.log(orders.filter((o) => o.status === "shipped").map(({ id }) => id));
console.log(orders.reduce((sum, o) => sum + o.total, 0).toFixed(2));
console.log(orders.flatMap((o) => o.items));
console.log([...new Set(orders.flatMap((o) => o.items))].sort());
console.log(orders.find((o) => o.customer === "bob")?.id, orders.findLast((o) => o.customer === "bob")?.id);
console.log(orders.findIndex((o) => o.total > 20), orders.findLastIndex((o) => o.total === 999));
console.log(orders.some((o) => o.total === 0), orders.every((o) => o.id > 0));
console.log(orders.at(0).id, orders.at(-1).id, orders.at(10));

const byTotalDesc = orders.toSorted((a, b) => b.total - a.total);
console.log(byTotalDesc.map((o) => `${o.id}:${o.total}`).join(", "));
console.log(orders.map((o) => o.id).join(","), "(original order kept)");

const nums = [10, 1, 5, 100, 25, 3];
console.log([...nums].sort(), [...nums].sort((a, b) => a - b));
console.log(nums.includes(5), nums.indexOf(100), nums.slice(1, 3), nums.slice(-2));
const spliced = [...nums];
console.log(spliced.splice(1, 2, "x", "y", "z"), spliced);
console.log([[1, 2], [3, [4, [5]]]].flat(), Array.from({ length: 5 }, (_, i) => i * 2));
console.log(Array.of(7), new Array(3).fill(0), [1, 2, 3].fill(9, 1), [..."abc"].entries().next());
console.log(nums.reduceRight((acc, n) => acc + "," + n), [3, 2, 1].reverse(), [1, 2, 3, 4].copyWithin(0, 2));
console.log(orders.map(({ id, items: { length } }) => ({ id, count: length })));
console.log(Object.entries(orders.reduce((acc, o) => ({ ...acc, [o.status]: [...(acc[o.status] ?? []), o.id] }), {})));
console.log(["1", "2", "3"].map(Number), ["1", "2", "3"].map(parseInt), [0, "", null, "a", 2].filter(Boolean));

const capitals = new Map([
  ["France", "Paris"],
  ["Japan", "Tokyo"],
  ["Kenya", "Nairobi"],
]);
capitals.set("Peru", "Lima");
console.log(capitals);
console.log(capitals.size, capitals.get("Japan"), capitals.has("Chile"));

for (const [country, city] of capitals) {
  console.log(`${country} -> ${city}`);
}

const tags = new Set(["js", "node", "web", "js", "api", "node"]);
console.log(tags);
tags.add("cli").delete("web");
console.log([...tags].sort(), tags.size);

const a = new Set([1, 2, 3, 4, 5]);
const b = new Set([4, 5, 6, 7]);
const union = new Set([...a, ...b]);
const intersection = new Set([...a].filter((x) => b.has(x)));
const difference = new Set([...a].filter((x) => !b.has(x)));
console.log({ union, intersection, difference });

const objKey = { id: 1 };
const weird = new Map([[objKey, "object key"], [42, "number"], ["42", "string"], [null, "null"]]);
console.log(weird);
console.log(weird.get(42), weird.get("42"), weird.get({ id: 1 }));

const nestedMap = new Map([["users", new Map([["ann", { age: 31, roles: new Set(["admin"]) }]])]]);
console.log(nestedMap);
console.log(Object.fromEntries(capitals));
console.log(new Map(Object.entries({ x: 1, y: 2 })));

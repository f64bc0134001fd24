function deepEqual(a, b) {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (a.constructor !== b.constructor) return false;
  if (a instanceof Date) return a.getTime() === b.getTime();
  if (a instanceof Map || a instanceof Set) return deepEqual([...a], [...b]);
  const ka = Object.keys(a), kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => deepEqual(a[k], b[k]));
}

function diff(a, b, path = "") {
  if (deepEqual(a, b)) return [];
  if (typeof a !== "object" || typeof b !== "object" || !a || !b) return [`${path || "(root)"}: ${JSON.stringify(a)} -> ${JSON.stringify(b)}`];
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  return keys.flatMap((k) => diff(a[k], b[k], path ? `${path}.${k}` : k));
}

const original = {
  id: 42,
  name: "Widget",
  price: { amount: 19.99, currency: "EUR" },
  tags: ["tools", "metal"],
  created: new Date(Date.UTC(2023, 10, 5)),
  stock: new Map([["berlin", 4], ["paris", 0]]),
};

const shallow = { ...original };
const deep = structuredClone(original);
shallow.price.amount = 17.5;
deep.tags.push("sale");
deep.stock.set("paris", 9);

console.log(original.price.amount, "(shallow copy shares nested objects)");
console.log(deep);
console.log(deep.created instanceof Date, deep.stock instanceof Map, deep.created !== original.created);
console.log("deepEqual(original, shallow):", deepEqual(original, shallow));
console.log("deepEqual(original, deep):", deepEqual(original, deep));
console.log(diff(original, deep));
console.log(diff({ a: 1, b: { c: [1, 2] }, d: "x" }, { a: 1, b: { c: [1, 3] }, e: null }));
console.log(deepEqual([1, [2, { x: NaN }]], [1, [2, { x: NaN }]]), deepEqual({ a: undefined }, { b: undefined }), deepEqual(0, -0));

const viaJson = JSON.parse(JSON.stringify(original));
console.log(viaJson);
try {
  structuredClone({ fn: () => 1 });
} catch (err) {
  console.log(err.name, err.message.includes("could not be cloned"));
}
const frozen = Object.freeze({ level: 1, inner: { level: 2 } });
frozen.level = 99;
frozen.inner.level = 99;
console.log(frozen, Object.isFrozen(frozen), Object.isFrozen(frozen.inner));

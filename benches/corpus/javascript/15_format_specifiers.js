const user = { name: "Ann", tags: ["admin", "ops"], address: { city: "Oslo", geo: { lat: 59.91, lng: 10.75 } } };

console.log("Hello %s, you have %d new messages", "Ann", 42);
console.log("%s is %d years and %f metres tall", "Bob", 34.9, 1.82);
console.log("Integer part: %i, %i, %i", 42.99, -7.5, "123abc");
console.log("Float: %f, %f", "3.25", 10);
console.log("JSON: %j", user);
console.log("Object (%%o): %o", { a: 1, list: [1, 2] });
console.log("Object (%%O): %O", user);
console.log("String of object: %s", user);
console.log("String of array: %s", [1, "two", 3]);
console.log("Number of string: %d", "not a number");
console.log("Percent sign: 100%% done");
console.log("Too few args: %s and %s", "only one");
console.log("Extra args:", "%s", "a", "b", 3);
console.log("%s|%s|%s|%s", null, undefined, true, 12n);
console.log("%d + %d = %d", 0.1, 0.2, 0.1 + 0.2);
console.log("%c styled text is ignored", "color: red");
const rows = [["apples", 3, 0.5], ["pears", 12, 0.25]];
for (const [item, qty, price] of rows) {
  console.log("%s x%i @ %f = %s", item.padEnd(7), qty, price, (qty * price).toFixed(2));
}
console.info("info goes to stdout too: %s", "yes");
console.log("%O", { deep: { deeper: { deepest: { bottom: 1 } } } });
console.log("%j", { n: NaN, u: undefined, list: [undefined, () => 1] });

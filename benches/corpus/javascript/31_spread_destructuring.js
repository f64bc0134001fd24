const defaults = { theme: "light", fontSize: 14, language: "en", notifications: { email: true, sms: false } };
const userPrefs = { fontSize: 16, notifications: { sms: true }, timezone: "UTC" };

const shallow = { ...defaults, ...userPrefs };
console.log(shallow);
const deep = { ...defaults, ...userPrefs, notifications: { ...defaults.notifications, ...userPrefs.notifications } };
console.log(deep);

const { theme, fontSize: size = 12, missing = "n/a", notifications: { email } } = deep;
console.log(theme, size, missing, email);

const { language, ...rest } = deep;
console.log(language, rest);

const point = [3, 7, -2];
const [x, y, z = 0, w = 99] = point;
console.log({ x, y, z, w });
const [head, ...tail] = "destructure";
console.log(head, tail.join(""));

let a = 1, b = 2;
[a, b] = [b, a];
console.log("swapped:", a, b);

function createUser({ name, role = "viewer", tags = [], ...extra } = {}) {
  return { name, role, tags, extra };
}
console.log(createUser({ name: "Ann", role: "admin", team: "core" }));
console.log(createUser({ name: "Bob", tags: ["new"] }));
console.log(createUser());

const entries = [["id", 7], ["name", "Widget"], ["price", 9.99]];
for (const [key, value] of entries) console.log(`${key}=${value}`);
const merged = [...[1, 2], ...new Set([2, 3]), ..."45"];
console.log(merged, Math.max(...merged.map(Number)));
const { length, 0: first, [length - 1]: last } = ["alpha", "beta", "gamma"];
console.log(length, first, last);
const clone = structuredClone(deep);
clone.notifications.email = false;
console.log(deep.notifications.email, clone.notifications.email);
const { a: { b: { c: deepest } = {} } = {} } = { a: { b: { c: "found" } } };
console.log(deepest);

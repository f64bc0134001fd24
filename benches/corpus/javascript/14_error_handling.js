class ValidationError extends Error {
  name = "ValidationError";
  constructor(field, message) {
    super(message);
    this.field = field;
  }
}

function validateUser(user) {
  if (typeof user.name !== "string" || user.name.trim() === "") throw new ValidationError("name", "name is required");
  if (!Number.isInteger(user.age) || user.age < 0 || user.age > 150)
    throw new ValidationError("age", `age must be an integer 0-150, got ${user.age}`);
  if (!/^[^@\s]+@[^@\s]+\.[a-z]{2,}$/i.test(user.email ?? ""))
    throw new ValidationError("email", `invalid email: ${JSON.stringify(user.email)}`);
  return { ...user, name: user.name.trim() };
}

const inputs = [
  { name: " Ada ", age: 36, email: "ada@example.com" },
  { name: "", age: 20, email: "x@y.io" },
  { name: "Bob", age: 12.5, email: "bob@example.com" },
  { name: "Cy", age: 40, email: "cy-at-example" },
  { name: "Di", age: 29 },
];

const valid = [];
for (const input of inputs) {
  try {
    valid.push(validateUser(input));
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    console.log(`[${err.field}] ${err.message}`);
  }
}
console.log(valid);

const safeParse = (text, fallback = null) => {
  try {
    return JSON.parse(text);
  } catch (err) {
    console.log(`${err.name} while parsing ${JSON.stringify(text)}`);
    return fallback;
  }
};
console.log(['{"ok": true}', "{bad json}", "[1, 2,]", "null"].map((t) => safeParse(t, "default")));

function risky(n) {
  try {
    if (n > 2) throw new RangeError(`n too big: ${n}`);
    return `ok ${n}`;
  } finally {
    console.log(`cleanup for ${n}`);
  }
}
for (const n of [1, 3]) {
  try { console.log(risky(n)); } catch (e) { console.log("caught", e.name, "-", e.message); }
}
try { null.foo; } catch (e) { console.log(e instanceof TypeError, e.name, e.message); }
const wrapped = new Error("save failed", { cause: new Error("disk full") });
console.log(wrapped.message, "<-", wrapped.cause.message);

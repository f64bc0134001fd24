const patterns = {
  email: /^[\w.+-]+@[\w-]+(\.[\w-]+)*\.[a-z]{2,}$/i,
  phone: /^(\+?\d{1,3}[-\s]?)?\(?\d{3}\)?[-\s]?\d{3}[-\s]?\d{4}$/,
  zip: /^\d{5}(-\d{4})?$/,
  hexColor: /^#(?:[0-9a-f]{3}){1,2}$/i,
  isoDate: /^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/,
};

const samples = {
  email: ["ann@example.com", "first.last+tag@sub.domain.org", "bad@", "@nope.com", "x@y.z"],
  phone: ["+1 (555) 123-4567", "555-123-4567", "5551234567", "12-34"],
  zip: ["12345", "12345-6789", "1234", "123456"],
  hexColor: ["#fff", "#A1B2C3", "#abcd", "red"],
  isoDate: ["2024-02-29", "2024-13-01", "2024-00-10", "1999-12-31"],
};

for (const [name, re] of Object.entries(patterns)) {
  const results = samples[name].map((s) => `${s} ${re.test(s) ? "✓" : "✗"}`);
  console.log(name.padEnd(9), results.join(" | "));
}

const [, y, m, d] = "2024-06-15".match(patterns.isoDate);
console.log({ y, m, d });

const text = "Call 555-0100 or 555-0199 before 5pm; fax 555-0142.";
console.log(text.match(/\d{3}-\d{4}/g));
console.log(text.replace(/(\d{3})-(\d{4})/g, "$1.$2"));
console.log(text.replace(/\d{3}-(\d{4})/g, (_, last) => `XXX-${last}`));

const camel = "parseHTTPResponseCode";
console.log(camel.replace(/([a-z])([A-Z])/g, "$1_$2").replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2").toLowerCase());
console.log("  lots   of    spaces  ".trim().split(/\s+/));
console.log("a1b22c333".split(/\d+/), "a1b22c333".split(/(\d+)/));

const sticky = /\d+/y;
sticky.lastIndex = 3;
console.log(sticky.exec("abc123def")?.[0], sticky.lastIndex);
console.log(/(?<=\$)\d+(\.\d\d)?/.exec("total: $42.50")[0], /\bcat\b/.test("concatenate"));
const re = /o/g;
console.log(re.exec("foo boo").index, re.lastIndex, re.exec("foo boo").index, String(re));
console.log("Price: 100 USD".replace(/(?<amount>\d+) (?<cur>[A-Z]{3})/, "$<cur> $<amount>"));

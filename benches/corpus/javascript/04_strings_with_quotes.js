const quotes = [
  "It's a trap!",
  'She said "hello"',
  `Both ' and " here`,
  "plain text",
  "tab\there",
  "line1\nline2",
  "back\\slash",
];
console.log(quotes);

for (const q of quotes) {
  console.log(q.length, JSON.stringify(q));
}

const person = { name: "O'Brien", motto: 'Say "yes"', note: "it's `fine`", empty: "" };
console.log(person);
console.log(JSON.stringify(person));

const keys = { "first-name": "Ann", "last name": "Lee", valid_id: 7, "123": "num", "42abc": true };
console.log(keys);

const csvLine = 'id,"name, full",comment\n1,"Smith, J","said ""hi"""';
console.log(csvLine);
console.log([csvLine]);
const esc = (s) => s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll('"', "&quot;");
console.log(esc('<a href="x">Tom & Jerry</a>'));

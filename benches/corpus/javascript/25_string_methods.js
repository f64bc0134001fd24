const title = "  the quick brown fox jumps over the lazy dog  ";
const trimmed = title.trim();
console.log(JSON.stringify(trimmed), trimmed.length);
console.log(trimmed.split(" ").map((w) => w[0].toUpperCase() + w.slice(1)).join(" "));
console.log(trimmed.replaceAll("the", "a"), "|", trimmed.replace("the", "a"));
console.log(trimmed.includes("fox"), trimmed.startsWith("the"), trimmed.endsWith("cat"));
console.log(trimmed.indexOf("o"), trimmed.lastIndexOf("o"), trimmed.at(-1), trimmed.charCodeAt(0));
console.log(trimmed.slice(4, 9), trimmed.substring(9, 4), trimmed.slice(-8));

const invoice = [["Coffee", 3, 2.5], ["Bagel", 2, 1.75], ["Orange juice", 1, 3.2]];
for (const [item, qty, price] of invoice) {
  console.log(`${item.padEnd(14, ".")}${String(qty).padStart(3)} x ${price.toFixed(2).padStart(5)}`);
}
console.log("7".padStart(3, "0"), "abc".padEnd(6, "12"), "x".repeat(5));

const words = ["pear", "apple", "fig", "banana", "cherry", "date"];
console.log([...words].sort((a, b) => a.localeCompare(b)));
console.log([...words].sort((a, b) => a.length - b.length || a.localeCompare(b)));
console.log("apple".localeCompare("banana"), "pear".localeCompare("pear"), "fig".localeCompare("date"));

const slug = (s) => s.toLowerCase().trim().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
console.log(slug("  Hello, World! 2024 Edition  "), slug("Node.js & Deno: A Comparison"));

const reversed = [..."stressed"].reverse().join("");
console.log(reversed, "racecar" === [..."racecar"].reverse().join(""));
console.log("a-b-c".split("-", 2), "one,two,,three".split(","), [..."héllo"].length);
console.log("Ünïcödé".normalize("NFD").replace(/[\u0300-\u036f]/g, ""), "ß".toUpperCase(), "İ".toLowerCase().length);
console.log(String.raw`C:\temp\new`, `multi
line`.split("\n"));
console.log("abc".codePointAt(1), String.fromCodePoint(128512).length, "😀".length, [..."😀"].length);
console.log("%s".concat("-", 5, true), "Title Case".toUpperCase(), "  pad ".trimStart() + "|");

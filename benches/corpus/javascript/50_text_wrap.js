const paragraph =
  "JavaScript was created in 1995 by Brendan Eich while he was an engineer at Netscape. " +
  "It was originally developed under the name Mocha, then renamed LiveScript, and finally JavaScript. " +
  "Today it runs in every major browser and, through runtimes such as Node.js, on servers too.";

function wrap(text, width) {
  const lines = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line && (line + " " + word).length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? line + " " + word : word;
    }
  }
  if (line) lines.push(line);
  return lines;
}

function justify(line, width) {
  const words = line.split(" ");
  if (words.length === 1) return line.padEnd(width);
  let gaps = width - words.join("").length;
  return words.reduce((out, w, i) => {
    if (i === words.length - 1) return out + w;
    const slots = words.length - 1 - i;
    const n = Math.ceil(gaps / slots);
    gaps -= n;
    return out + w + " ".repeat(n);
  }, "");
}

const lines = wrap(paragraph, 40);
console.log(lines);
console.log("+" + "-".repeat(42) + "+");
for (const l of lines) console.log("| " + l.padEnd(40) + " |");
console.log("+" + "-".repeat(42) + "+");
for (const l of wrap(paragraph, 32).slice(0, -1)) console.log(justify(l, 32) + "|");
for (const l of wrap(paragraph, 30)) console.log(l.padStart(l.length + Math.floor((30 - l.length) / 2)));

const truncate = (s, n) => (s.length <= n ? s : s.slice(0, n - 1).trimEnd() + "…");
console.log([10, 25, 60].map((n) => truncate(paragraph, n)));
console.log(wrap("supercalifragilisticexpialidocious is long", 10));
const indent = (s, n) => s.split("\n").map((l) => " ".repeat(n) + l).join("\n");
console.log(indent(wrap(paragraph, 50).join("\n"), 4));
console.log(paragraph.split(/(?<=\.)\s+/).map((s, i) => `${i + 1}. ${s.split(" ").length} words`));

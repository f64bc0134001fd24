function rleEncode(str) {
  let out = "";
  for (let i = 0; i < str.length; ) {
    let j = i;
    while (j < str.length && str[j] === str[i]) j++;
    out += (j - i > 1 ? j - i : "") + str[i];
    i = j;
  }
  return out;
}

function rleDecode(str) {
  return str.replace(/(\d+)(\D)/g, (_, n, ch) => ch.repeat(Number(n)));
}

const samples = ["AAAABBBCCDAA", "WWWWWWWWWWWWBWWWWWWWWWWWWBBBWWWWWWWWWWWWWWWWWWWWWWWWBWWWWWWWWWWWWWW", "abc", "", "zzzzzzzzzzzzzzz"];
for (const s of samples) {
  const enc = rleEncode(s);
  const ok = rleDecode(enc) === s;
  const ratio = s.length ? (enc.length / s.length).toFixed(2) : "n/a";
  console.log(JSON.stringify(enc), `len ${s.length} -> ${enc.length}`, `ratio ${ratio}`, ok ? "roundtrip ok" : "MISMATCH");
}

const runs = (arr) =>
  arr.reduce((acc, v) => {
    const last = acc.at(-1);
    if (last && last[0] === v) last[1]++;
    else acc.push([v, 1]);
    return acc;
  }, []);
console.log(runs([1, 1, 2, 2, 2, 3, 1, 1]));
console.log(runs([..."mississippi"]));

const bitmap = [
  "..####..",
  ".#....#.",
  "#.#..#.#",
  "#......#",
  "#.#..#.#",
  "#..##..#",
  ".#....#.",
  "..####..",
];
const encodedRows = bitmap.map(rleEncode);
console.log(encodedRows);
console.log(encodedRows.map(rleDecode).join("\n"));
console.log("total chars:", bitmap.join("").length, "->", encodedRows.join("").length);

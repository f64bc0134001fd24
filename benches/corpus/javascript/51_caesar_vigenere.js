const shiftChar = (ch, k) => {
  const code = ch.charCodeAt(0);
  if (code >= 65 && code <= 90) return String.fromCharCode(((code - 65 + k) % 26 + 26) % 26 + 65);
  if (code >= 97 && code <= 122) return String.fromCharCode(((code - 97 + k) % 26 + 26) % 26 + 97);
  return ch;
};

const caesar = (text, k) => [...text].map((c) => shiftChar(c, k)).join("");

function vigenere(text, key, decrypt = false) {
  let i = 0;
  return text.replace(/[a-z]/gi, (c) => {
    const k = key.toLowerCase().charCodeAt(i++ % key.length) - 97;
    return shiftChar(c, decrypt ? -k : k);
  });
}

const message = "Attack at Dawn! Meet at the old bridge, 5 o'clock.";
const enc = caesar(message, 3);
console.log(enc);
console.log(caesar(enc, -3));
console.log(caesar("Hello, World", 13), caesar(caesar("Hello, World", 13), 13));

const v = vigenere(message, "LEMON");
console.log(v);
console.log(vigenere(v, "LEMON", true));

const english = "etaoinshrdlcumwfgypbvkjxqz";
function crackCaesar(cipher) {
  const scores = [];
  for (let k = 0; k < 26; k++) {
    const plain = caesar(cipher, -k).toLowerCase();
    const score = [...plain].reduce((s, c) => s + Math.max(0, 26 - english.indexOf(c)) * (english.includes(c) ? 1 : 0), 0);
    scores.push({ k, score, preview: caesar(cipher, -k).slice(0, 20) });
  }
  return scores.sort((a, b) => b.score - a.score).slice(0, 3);
}
console.log(crackCaesar(caesar("the quick brown fox jumps over the lazy dog near the river", 11)));

const atbash = (s) => s.replace(/[a-z]/gi, (c) => {
  const base = c <= "Z" ? 65 : 97;
  return String.fromCharCode(base + 25 - (c.charCodeAt(0) - base));
});
console.log(atbash("Wizard of Oz"), atbash(atbash("Wizard of Oz")));
const freq = [...enc.toLowerCase()].filter((c) => /[a-z]/.test(c)).reduce((m, c) => m.set(c, (m.get(c) ?? 0) + 1), new Map());
console.log([...freq].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 6));

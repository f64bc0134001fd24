const text = `
It was the best of times, it was the worst of times, it was the age of wisdom,
it was the age of foolishness, it was the epoch of belief, it was the epoch of
incredulity, it was the season of Light, it was the season of Darkness, it was
the spring of hope, it was the winter of despair.
`;

const stopWords = new Set(["it", "was", "the", "of"]);
const words = text.toLowerCase().match(/[a-z']+/g);
console.log("total words:", words.length, "unique:", new Set(words).size);

const freq = {};
for (const w of words) freq[w] = (freq[w] || 0) + 1;

const top = Object.entries(freq).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 8);
console.log(top);

const meaningful = Object.entries(freq)
  .filter(([w]) => !stopWords.has(w))
  .sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
for (const [word, count] of meaningful.slice(0, 6)) {
  console.log(`${word.padEnd(12)} ${"*".repeat(count)} ${count}`);
}

const byLength = words.reduce((m, w) => m.set(w.length, (m.get(w.length) ?? 0) + 1), new Map());
console.log(new Map([...byLength].sort((a, b) => a[0] - b[0])));
const longest = words.reduce((a, b) => (b.length > a.length ? b : a));
console.log("longest word:", longest, longest.length);

const bigrams = {};
for (let i = 0; i < words.length - 1; i++) {
  const bg = `${words[i]} ${words[i + 1]}`;
  bigrams[bg] = (bigrams[bg] ?? 0) + 1;
}
console.log(Object.entries(bigrams).filter(([, c]) => c > 2).sort((a, b) => b[1] - a[1]));
const sentences = text.trim().split(/[.!?]/).filter((s) => s.trim());
console.log(sentences.length, "sentence(s),", text.split(",").length - 1, "commas");
const letters = [...text.toLowerCase().replace(/[^a-z]/g, "")];
const letterFreq = letters.reduce((acc, ch) => ({ ...acc, [ch]: (acc[ch] ?? 0) + 1 }), {});
console.log(Object.entries(letterFreq).sort((a, b) => b[1] - a[1]).slice(0, 5).map(([c, n]) => `${c}=${n}`).join(", "));

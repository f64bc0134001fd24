const words = ["listen", "silent", "enlist", "google", "gooegl", "cat", "act", "tac", "dog",
  "god", "inlets", "banana", "evil", "vile", "live", "veil", "note", "tone", "stone", "onset"];

const groups = new Map();
for (const w of words) {
  const key = [...w].sort().join("");
  if (!groups.has(key)) groups.set(key, []);
  groups.get(key).push(w);
}
console.log(groups);

const anagramSets = [...groups.values()].filter((g) => g.length > 1).sort((a, b) => b.length - a.length || a[0].localeCompare(b[0]));
console.log(anagramSets);
console.log("singletons:", [...groups.values()].filter((g) => g.length === 1).flat());

const isAnagram = (a, b) => {
  const norm = (s) => s.toLowerCase().replace(/[^a-z]/g, "").split("").sort().join("");
  return norm(a) === norm(b);
};
const pairs = [["Dormitory", "Dirty room"], ["The eyes", "They see"], ["Astronomer", "Moon starer"], ["Hello", "World"]];
for (const [a, b] of pairs) console.log(`${a} / ${b}: ${isAnagram(a, b)}`);

const countKey = (w) => {
  const counts = new Array(26).fill(0);
  for (const ch of w) counts[ch.charCodeAt(0) - 97]++;
  return counts.join(",");
};
console.log(countKey("banana"));
const byCount = Object.values(words.reduce((acc, w) => ((acc[countKey(w)] ??= []).push(w), acc), {}));
console.log(byCount.length, "groups (count-key method)", byCount.length === groups.size);
const palindromes = ["racecar", "level", "hello", "A man, a plan, a canal: Panama", "No lemon, no melon"].map((s) => {
  const clean = s.toLowerCase().replace(/[^a-z0-9]/g, "");
  return [s, clean === [...clean].reverse().join("")];
});
console.table(palindromes);

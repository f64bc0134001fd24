const names = ["banana", "Apple", "cherry", "apple", "Banana", "éclair", "Eclair", "date", "Cherry", "zucchini", "Zebra"];

console.log("default sort:     ", [...names].sort());
console.log("localeCompare:    ", [...names].sort((a, b) => a.localeCompare(b)));
console.log("en, upper first:  ", [...names].sort((a, b) => a.localeCompare(b, "en", { caseFirst: "upper" })));
console.log("case-insensitive: ", [...names].sort((a, b) => a.localeCompare(b, "en", { sensitivity: "base" })));

const pairs = [["a", "A"], ["a", "á"], ["a", "b"], ["B", "a"], ["resume", "résumé"], ["Zoo", "apple"]];
for (const [x, y] of pairs) {
  console.log(
    `${x} vs ${y}:`.padEnd(20),
    x.localeCompare(y, "en"),
    x.localeCompare(y, "en", { sensitivity: "base" }),
    x.localeCompare(y, "en", { sensitivity: "accent" }),
    x < y ? -1 : x > y ? 1 : 0
  );
}

const files = ["file10.txt", "file2.txt", "File1.txt", "file1.txt", "file20.txt", "file3.txt"];
console.log([...files].sort());
console.log([...files].sort((a, b) => a.localeCompare(b, "en", { numeric: true })));
console.log([...files].sort((a, b) => a.localeCompare(b, undefined, { numeric: true, sensitivity: "base" })));

const unique = names.filter((n, i) => names.findIndex((m) => m.localeCompare(n, "en", { sensitivity: "base" }) === 0) === i);
console.log("unique ignoring case and accents:", unique);
console.log(["Émile", "Zoë", "adam", "Ødegaard", "ziggy"].sort((a, b) => a.localeCompare(b, "en")));
console.log("a".localeCompare("B"), "a" < "B", "ä".localeCompare("z", "de"), "ä".localeCompare("z", "sv"));

const words = ["Äpfel", "Zebra", "apfel", "Ofen", "Öl", "Ubahn", "Übel", "Straße", "Strasse", "ähnlich", "Müller", "Mueller", "zahm"];

const deCompare = new Intl.Collator("de").compare;
console.log([...words].sort(deCompare));
console.log([...words].sort());

const phonebook = new Intl.Collator("de-u-co-phonebk").compare;
console.log([...words].sort(phonebook));

const base = new Intl.Collator("de", { sensitivity: "base" });
console.log(base.compare("Straße", "Strasse"), base.compare("Äpfel", "apfel"), base.compare("Müller", "Mueller"));
const accent = new Intl.Collator("de", { sensitivity: "accent" });
console.log(accent.compare("Äpfel", "apfel"), accent.compare("apfel", "Apfel"));

const sv = new Intl.Collator("sv").compare;
console.log("de:", ["Ö", "O", "Z", "Å", "A"].sort(deCompare).join(" "), " sv:", ["Ö", "O", "Z", "Å", "A"].sort(sv).join(" "));

const numeric = new Intl.Collator("de", { numeric: true });
const versions = ["v1.10", "v1.2", "v1.9", "v10.0", "v2.0"];
console.log(versions.sort(numeric.compare));

const customers = [
  { name: "Özdemir", city: "Köln" },
  { name: "Ostermann", city: "Berlin" },
  { name: "Zimmermann", city: "München" },
  { name: "Ahrens", city: "Essen" },
  { name: "Übermuth", city: "Düsseldorf" },
];
customers.sort((a, b) => deCompare(a.name, b.name));
console.table(customers);
const grouped = customers.reduce((acc, c) => {
  const letter = c.name[0].normalize("NFD")[0].toUpperCase();
  (acc[letter] ??= []).push(c.name);
  return acc;
}, {});
console.log(grouped);
const opts = new Intl.Collator("de", { sensitivity: "base", ignorePunctuation: true }).resolvedOptions();
console.log(opts.locale, opts.sensitivity, opts.ignorePunctuation, opts.usage);
console.log(Intl.Collator.supportedLocalesOf(["de", "sv", "en-US"]));

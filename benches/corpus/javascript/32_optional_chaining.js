const users = [
  { id: 1, name: "Ann", profile: { address: { city: "Oslo", zip: "0150" }, phones: ["+47 123"] }, settings: { theme: "dark" } },
  { id: 2, name: "Bob", profile: { address: null, phones: [] } },
  { id: 3, name: "Cy", profile: null, settings: { theme: "", volume: 0 } },
  { id: 4, name: "Di" },
];

for (const u of users) {
  const city = u.profile?.address?.city ?? "unknown city";
  const phone = u.profile?.phones?.[0] ?? "no phone";
  const theme = u.settings?.theme || "default";
  const themeNullish = u.settings?.theme ?? "default";
  const volume = u.settings?.volume ?? 50;
  console.log(`${u.name.padEnd(4)} ${city.padEnd(13)} ${phone.padEnd(9)} theme||=${theme.padEnd(8)} theme??=${JSON.stringify(themeNullish).padEnd(10)} vol=${volume}`);
}

const api = {
  getUser(id) {
    return users.find((u) => u.id === id);
  },
  admin: null,
};
console.log(api.getUser?.(1)?.name, api.delete?.(1), api.admin?.reset(), api.getUser(9)?.name);
console.log(users.map((u) => u.profile?.phones?.length));
console.log(users[10]?.name, users?.[0]?.profile?.address);

const config = { retries: 0, timeout: null, name: "" };
config.retries ||= 3;
config.timeout ??= 5000;
config.name &&= config.name.toUpperCase();
config.extra ??= { added: true };
console.log(config);

const counts = {};
for (const w of "the cat and the hat and the bat".split(" ")) counts[w] = (counts[w] ?? 0) + 1;
console.log(counts);
const deepGet = (obj, ...keys) => keys.reduce((o, k) => o?.[k], obj);
console.log(deepGet(users, 0, "profile", "address", "zip"), deepGet(users, 1, "profile", "address", "zip"));
console.log(null?.x, undefined?.[0], (null ?? 0) + 1, delete users[3]?.profile);

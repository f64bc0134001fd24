const log = [];
const say = (msg) => {
  log.push(msg);
  console.log(msg);
};

say("1: script start");

setTimeout(() => say("6: timeout 0"), 0);

Promise.resolve()
  .then(() => say("3: microtask 1"))
  .then(() => say("5: microtask 2"));

queueMicrotask(() => say("4: queueMicrotask"));

(async () => {
  say("2: async fn body runs synchronously");
  await null;
  say("4b: after await");
})();

say("2b: script end");

setTimeout(() => {
  say("7: second timeout");
  Promise.resolve().then(() => say("8: microtask inside timeout"));
  setTimeout(() => {
    say("9: nested timeout");
    console.log("order:", log.length, "events");
    console.log(log.map((m) => m.split(":")[0]).join(" "));
  }, 0);
}, 0);

const delay = (ms, v) => new Promise((r) => setTimeout(r, ms, v));
async function sequential() {
  const results = [];
  for (const v of ["a", "b", "c"]) results.push(await delay(0, v.toUpperCase()));
  return results;
}
sequential().then((r) => console.log("sequential:", r));

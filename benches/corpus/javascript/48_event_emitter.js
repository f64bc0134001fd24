class Emitter {
  #handlers = new Map();
  on(event, fn) {
    if (!this.#handlers.has(event)) this.#handlers.set(event, []);
    this.#handlers.get(event).push(fn);
    return () => this.off(event, fn);
  }
  once(event, fn) {
    const wrapper = (...args) => {
      this.off(event, wrapper);
      fn(...args);
    };
    return this.on(event, wrapper);
  }
  off(event, fn) {
    const list = this.#handlers.get(event) ?? [];
    this.#handlers.set(event, list.filter((h) => h !== fn));
  }
  emit(event, ...args) {
    const list = [...(this.#handlers.get(event) ?? [])];
    for (const h of list) h(...args);
    return list.length;
  }
  listenerCount(event) {
    return this.#handlers.get(event)?.length ?? 0;
  }
}

class Thermostat extends Emitter {
  constructor(target) {
    super();
    this.target = target;
    this.readings = [];
  }
  record(temp) {
    this.readings.push(temp);
    this.emit("reading", temp);
    if (Math.abs(temp - this.target) > 2) this.emit("alert", { temp, diff: +(temp - this.target).toFixed(1) });
  }
}

const t = new Thermostat(21);
const log = [];
const unsubscribe = t.on("reading", (temp) => log.push(temp));
t.on("alert", ({ temp, diff }) => console.log(`ALERT: ${temp}°C is ${diff > 0 ? "above" : "below"} target by ${Math.abs(diff)}`));
t.once("alert", (info) => console.log("first alert only:", info));

for (const temp of [20.5, 21.2, 24.1, 22.9, 17.6, 21.0]) {
  if (temp === 22.9) unsubscribe();
  t.record(temp);
}
console.log("logged readings:", log);
console.log("listeners:", t.listenerCount("reading"), t.listenerCount("alert"), t.listenerCount("nope"));
console.log(t);
console.log("emit returned", t.emit("nothing"), "handlers");
const avg = t.readings.reduce((a, b) => a + b) / t.readings.length;
console.log("average:", avg.toFixed(2), "max:", Math.max(...t.readings), "min:", Math.min(...t.readings));

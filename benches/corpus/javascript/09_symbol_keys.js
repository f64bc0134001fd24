const ID = Symbol("id");
const META = Symbol("meta");
const HIDDEN = Symbol();

const record = {
  name: "sensor-7",
  reading: 21.4,
  [ID]: 7001,
  [META]: { source: "lab", calibrated: true },
  [HIDDEN]: "secret",
};

console.log(record);
console.log(Object.keys(record));
console.log(Object.getOwnPropertySymbols(record));
console.log(Reflect.ownKeys(record).length);
console.log(JSON.stringify(record));
console.log(record[ID], ID.toString(), ID.description, HIDDEN.description);

const shared = Symbol.for("app.version");
console.log(Symbol.for("app.version") === shared, Symbol.keyFor(shared));
console.log(Symbol("x") === Symbol("x"));

class Temperature {
  constructor(c) {
    this.celsius = c;
  }
  [Symbol.toPrimitive](hint) {
    return hint === "string" ? `${this.celsius}°C` : this.celsius;
  }
  get [Symbol.toStringTag]() {
    return "Temp";
  }
}
const t = new Temperature(18.5);
console.log(`${t}`, t + 1, t * 2, String(t));
console.log(Object.prototype.toString.call(t));
console.log(t);
console.log([ID, META, Symbol.iterator, Symbol.asyncIterator]);
console.log({ [Symbol("tag")]: [1, 2], plain: Symbol("value") });

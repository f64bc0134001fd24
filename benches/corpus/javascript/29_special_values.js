const data = [1, -0, 0, NaN, Infinity, -Infinity, undefined, null, "", false];
console.log(data);
console.log(data.map((v) => typeof v));
console.log(data.map(String));
console.log(JSON.stringify(data));

const stats = { mean: NaN, max: -Infinity, min: Infinity, zero: -0, missing: undefined, empty: null };
console.log(stats);
console.log(JSON.stringify(stats));

console.log(-0 === 0, Object.is(-0, 0), Object.is(NaN, NaN), NaN === NaN, 1 / -0, 1 / 0);
console.log([NaN].includes(NaN), [NaN].indexOf(NaN), [-0].includes(0));
console.log(-0, [-0], String(-0), `${-0}`, (-0).toFixed(1), JSON.stringify(-0), -0 + 0);
console.log(Number.isNaN("abc"), isNaN("abc"), Number("") , Number(" 42 "), Number(null), Number(undefined));
console.log(null ?? "fallback", undefined ?? "fallback", 0 ?? "fallback", "" || "fallback", 0 || null);
console.log(typeof null, typeof undefined, null == undefined, null === undefined, null == 0, null >= 0);
console.log(Math.max(1, NaN, 3), Math.min(), [3, undefined, 1, null, 2].sort());
console.log([1, 2, 3].map((x) => x / 0), [0 / 0, -1 / 0], Infinity - Infinity, Infinity * 0);

const readings = [12.5, null, 13.1, undefined, NaN, 12.9];
const clean = readings.filter((r) => r != null && !Number.isNaN(r));
console.log(clean, (clean.reduce((a, b) => a + b, 0) / clean.length).toFixed(3));
console.log({ a: undefined, b: [undefined, null], c: { d: undefined } });
console.log(new Map([[NaN, "nan key"], [-0, "zero key"]]).get(NaN), new Map([[-0, "z"]]).get(0));
console.log(new Set([NaN, NaN, 0, -0, undefined, null]));
console.log(String(undefined), String(null), [undefined, null].join("-"), [null] + "", [[], [[]]].toString());

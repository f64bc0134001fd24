function makeCounter(start = 0, step = 1) {
  let count = start;
  return {
    next: () => (count += step),
    reset: () => (count = start),
    get value() {
      return count;
    },
  };
}

const a = makeCounter();
const b = makeCounter(100, -10);
a.next(); a.next(); a.next();
b.next();
console.log(a.value, b.value);
a.reset();
console.log(a.value, b.next(), a);

function memoize(fn) {
  const cache = new Map();
  let hits = 0;
  const wrapped = (...args) => {
    const key = JSON.stringify(args);
    if (cache.has(key)) {
      hits++;
      return cache.get(key);
    }
    const result = fn(...args);
    cache.set(key, result);
    return result;
  };
  wrapped.stats = () => ({ size: cache.size, hits });
  return wrapped;
}
const slowSquare = memoize((n) => n * n);
console.log([2, 3, 2, 4, 3, 2].map((n) => slowSquare(n)), slowSquare.stats());

function once(fn) {
  let done = false, result;
  return (...args) => (done ? result : ((done = true), (result = fn(...args))));
}
const init = once((name) => `initialised ${name}`);
console.log(init("db"), init("cache"));

const adders = [];
for (let i = 0; i < 3; i++) adders.push((x) => x + i);
console.log(adders.map((f) => f(10)));
var legacy = [];
for (var j = 0; j < 3; j++) legacy.push(() => j);
console.log(legacy.map((f) => f()));

const compose = (...fns) => (x) => fns.reduceRight((v, f) => f(v), x);
const pipeline = compose((s) => s + "!", (s) => s.toUpperCase(), (s) => s.trim());
console.log(pipeline("  hello closures  "));
const curry = (fn) => function curried(...args) {
  return args.length >= fn.length ? fn(...args) : (...more) => curried(...args, ...more);
};
const volume = curry((l, w, h) => l * w * h);
console.log(volume(2)(3)(4), volume(2, 3)(4), volume(2)(3, 4));

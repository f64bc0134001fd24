// Node's util.inspect (third_party/node-inspect-extracted, a UMD bundle)
// as a module whose default export is the library. build.rs puts the
// bundle where the marker line is and compiles the whole to QuickJS
// bytecode, which a worker loads the first time a guest's console needs it.
//
// The bundle's start reads every global Node has, among them `Atomics`,
// `WeakRef` and `FinalizationRegistry`, which the worker's prelude removes:
// empty stand-ins are there while it loads, and gone after. It names `URL`
// when it formats an object; without the web polyfills a class of its own
// stands in (no value is one).
const module = { exports: {} };
const exports = module.exports;
const URL = typeof globalThis.URL === 'function' ? globalThis.URL : class URL {};
const standIns = { Atomics: {}, WeakRef: class {}, FinalizationRegistry: class {} };
const missing = Object.keys(standIns).filter((name) => !(name in globalThis));
for (const name of missing) globalThis[name] = standIns[name];
try {
/* THE BUNDLE */
} finally {
  for (const name of missing) delete globalThis[name];
}
export default module.exports;

// Makes Intl, and the locale methods that use it, load on first use: a
// worker's start does not pay for what most guests never touch. Evaluates
// to a function the worker calls once with the loader, which installs
// js/intl.js (replacing everything defined here).
(load) => {
  let loaded = false;
  const ensure = () => {
    if (!loaded) {
      loaded = true;
      load();
    }
  };
  Object.defineProperty(globalThis, 'Intl', {
    configurable: true,
    enumerable: false,
    get() {
      ensure();
      return globalThis.Intl;
    },
    set(value) {
      ensure();
      globalThis.Intl = value;
    },
  });
  const methods = [
    [Number.prototype, 'toLocaleString'],
    [BigInt.prototype, 'toLocaleString'],
    [String.prototype, 'localeCompare'],
    [Date.prototype, 'toLocaleString'],
    [Date.prototype, 'toLocaleDateString'],
    [Date.prototype, 'toLocaleTimeString'],
  ];
  for (const [proto, name] of methods) {
    Object.defineProperty(proto, name, {
      configurable: true,
      writable: true,
      enumerable: false,
      value: {
        [name](...args) {
          ensure();
          return proto[name].apply(this, args);
        },
      }[name],
    });
  }
}

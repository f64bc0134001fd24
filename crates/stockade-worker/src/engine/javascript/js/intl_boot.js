// Makes Intl, and the locale methods that use it, load on first use: a
// worker's start does not pay for what most guests never touch. Evaluates
// to a function the worker calls once with the loader, which installs
// js/intl.js (replacing what is defined here wherever the guest left it
// writable) and returns its Intl and locale methods.
(load) => {
  // 'idle' until a first use loads Intl, 'done' after. A load that fails
  // throws, and the next use tries again; a use while loading is an error,
  // never a loop.
  let state = 'idle';
  let installed;
  const ensure = () => {
    if (state === 'done') return installed;
    if (state === 'loading') throw new TypeError('Intl is not available while it loads');
    state = 'loading';
    try {
      installed = load();
      state = 'done';
      return installed;
    } catch (error) {
      state = 'idle';
      throw error;
    }
  };
  Object.defineProperty(globalThis, 'Intl', {
    configurable: true,
    enumerable: false,
    get() {
      return ensure().Intl;
    },
    set(value) {
      ensure();
      Object.defineProperty(globalThis, 'Intl', {
        value, writable: true, configurable: true, enumerable: false,
      });
    },
  });
  const methods = [
    [Number.prototype, 'Number', 'toLocaleString'],
    [BigInt.prototype, 'BigInt', 'toLocaleString'],
    [String.prototype, 'String', 'localeCompare'],
    [Date.prototype, 'Date', 'toLocaleString'],
    [Date.prototype, 'Date', 'toLocaleDateString'],
    [Date.prototype, 'Date', 'toLocaleTimeString'],
  ];
  for (const [proto, owner, name] of methods) {
    Object.defineProperty(proto, name, {
      configurable: true,
      writable: true,
      enumerable: false,
      value: {
        [name](...args) {
          return ensure().methods[`${owner}.${name}`].apply(this, args);
        },
      }[name],
    });
  }
}

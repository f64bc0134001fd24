// Node's built-in modules a guest may use (`fs`, `fs/promises`, `path`,
// with or without `node:`): `require(name)`, and the hidden entry the
// `import` of one goes through. `load(name)` makes them on first use.
(load) => {
  const cache = new Map();
  const builtin = (name) => {
    const bare = typeof name === 'string' && name.startsWith('node:') ? name.slice(5) : name;
    if (!cache.has(bare)) cache.set(bare, load(String(bare)));
    const found = cache.get(bare);
    if (found === undefined) {
      const error = new Error(`Cannot find module '${name}'`);
      error.code = 'MODULE_NOT_FOUND';
      throw error;
    }
    return found;
  };
  Object.defineProperty(globalThis, 'require', {
    value: builtin, writable: true, configurable: true, enumerable: false,
  });
  Object.defineProperty(globalThis, Symbol.for('stockade.node'), { value: builtin });
}

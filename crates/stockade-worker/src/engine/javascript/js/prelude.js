// The guest's console on a native print function, and a smaller global
// scope. Evaluates to a function the worker calls once, with that function.
(print) => {
  // Shared memory and GC-observable references have no use in a sandbox
  // and widen what a guest can probe.
  for (const name of ['SharedArrayBuffer', 'Atomics', 'WeakRef', 'FinalizationRegistry']) {
    delete globalThis[name];
  }
  const show = (value) => {
    if (typeof value === 'string') return value;
    if (typeof value === 'bigint') return `${value}n`;
    if (typeof value === 'object' && value !== null) {
      try { const json = JSON.stringify(value); if (json !== undefined) return json; } catch (_) {}
    }
    return String(value);
  };
  const to = (stream) => (...args) => { print(stream, args.map(show).join(' ') + '\n'); };
  globalThis.console = Object.freeze({
    log: to(0), info: to(0), debug: to(0), warn: to(1), error: to(1),
  });
}

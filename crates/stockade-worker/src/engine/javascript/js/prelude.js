// A smaller global scope. Evaluates to a function the worker calls once.
() => {
  // Shared memory and GC-observable references have no use in a sandbox
  // and widen what a guest can probe.
  for (const name of ['SharedArrayBuffer', 'Atomics', 'WeakRef', 'FinalizationRegistry']) {
    delete globalThis[name];
  }
}

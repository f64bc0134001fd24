// A journaled clock: Date.now(), new Date(), Date() and performance.now()
// read the time through `read` (0: wall clock ms, 1: performance ms), which
// reports every reading to the host, or gives back a replay's readings.
(read) => {
  const NativeDate = Date;
  const { construct, defineProperty } = Reflect;
  const JournaledDate = function Date(...args) {
    if (new.target === undefined) return new NativeDate(read(0)).toString();
    return construct(NativeDate, args.length === 0 ? [read(0)] : args, new.target);
  };
  defineProperty(JournaledDate, 'prototype', { value: NativeDate.prototype, writable: false });
  defineProperty(JournaledDate, 'length', { value: 7 });
  for (const name of ['parse', 'UTC']) {
    defineProperty(JournaledDate, name, { value: NativeDate[name], writable: true, configurable: true });
  }
  defineProperty(JournaledDate, 'now', { value: () => read(0), writable: true, configurable: true });
  defineProperty(NativeDate.prototype, 'constructor', {
    value: JournaledDate, writable: true, configurable: true,
  });
  defineProperty(globalThis, 'Date', { value: JournaledDate, writable: true, configurable: true });
  if (typeof performance === 'object' && performance !== null) {
    const origin = performance.timeOrigin;
    defineProperty(globalThis, 'performance', {
      value: Object.freeze({ now: () => read(1), timeOrigin: origin }),
      writable: true, configurable: true,
    });
  }
}

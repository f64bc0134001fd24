// A frozen clock: Date.now(), new Date() and Date() always give one instant,
// and performance.now() stands still, so guest code has no timing source.
(frozenMs) => {
  const NativeDate = Date;
  const { construct, defineProperty } = Reflect;
  // A function expression, so its name does not shadow the native Date.
  const FrozenDate = function Date(...args) {
    if (new.target === undefined) return new NativeDate(frozenMs).toString();
    return construct(NativeDate, args.length === 0 ? [frozenMs] : args, new.target);
  };
  defineProperty(FrozenDate, 'prototype', { value: NativeDate.prototype, writable: false });
  defineProperty(FrozenDate, 'length', { value: 7 });
  for (const name of ['parse', 'UTC']) {
    defineProperty(FrozenDate, name, { value: NativeDate[name], writable: true, configurable: true });
  }
  defineProperty(FrozenDate, 'now', { value: () => frozenMs, writable: true, configurable: true });
  defineProperty(NativeDate.prototype, 'constructor', {
    value: FrozenDate, writable: true, configurable: true,
  });
  defineProperty(globalThis, 'Date', { value: FrozenDate, writable: true, configurable: true });
  if (typeof performance === 'object' && performance !== null) {
    defineProperty(globalThis, 'performance', {
      value: Object.freeze({ now: () => 0, timeOrigin: frozenMs }),
      writable: true, configurable: true,
    });
  }
}

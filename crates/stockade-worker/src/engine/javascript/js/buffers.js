// max_buffer_bytes: live ArrayBuffer bytes, charged where guest code can
// allocate a buffer (the ArrayBuffer and typed-array constructors, and what
// reaches them through species and `from`/`of`, resize and transfer). Past
// the limit the allocation is a catchable RangeError. Buffers are tracked
// through weak references, so a buffer the guest dropped stops counting as
// soon as the engine frees it; `collect` runs the cycle collector before a
// refusal. Runs before the prelude removes WeakRef from the guest.
(limit, collect) => {
  const Ref = WeakRef;
  const { apply, construct, defineProperty, getOwnPropertyDescriptor } = Reflect;
  const tracked = [];
  let live = 0;
  let sweepAt = 1024;
  const sweep = () => {
    let kept = 0;
    live = 0;
    for (const entry of tracked) {
      if (entry.ref.deref() !== undefined) {
        tracked[kept++] = entry;
        live += entry.bytes;
      }
    }
    tracked.length = kept;
    sweepAt = Math.max(1024, kept * 2);
  };
  const reserve = (bytes) => {
    if (bytes <= limit - live) return;
    sweep();
    if (bytes <= limit - live) return;
    collect();
    sweep();
    if (bytes <= limit - live) return;
    throw new RangeError(
      `allocating ${bytes} buffer bytes would pass max_buffer_bytes (${limit}; ${live} live)`);
  };
  const entries = new WeakMap();
  const track = (buffer, bytes) => {
    if (bytes === 0 || entries.has(buffer)) return;
    const entry = { ref: new Ref(buffer), bytes };
    entries.set(buffer, entry);
    tracked.push(entry);
    live += bytes;
    if (tracked.length >= sweepAt) sweep();
  };
  const wrapConstructor = (Original, charge) => {
    const wrapped = new Proxy(Original, {
      construct(target, args, newTarget) {
        return charge(args, () => construct(target, args, newTarget === wrapped ? target : newTarget));
      },
    });
    defineProperty(Original.prototype, 'constructor', {
      ...getOwnPropertyDescriptor(Original.prototype, 'constructor'),
      value: wrapped,
    });
    defineProperty(globalThis, Original.name, {
      ...getOwnPropertyDescriptor(globalThis, Original.name),
      value: wrapped,
    });
    return wrapped;
  };
  const NativeArrayBuffer = ArrayBuffer;
  const byteLength = getOwnPropertyDescriptor(NativeArrayBuffer.prototype, 'byteLength').get;
  wrapConstructor(NativeArrayBuffer, (args, make) => {
    const length = Number(args[0]) || 0;
    if (length > 0) reserve(length);
    const buffer = make();
    track(buffer, apply(byteLength, buffer, []));
    return buffer;
  });
  const proto = NativeArrayBuffer.prototype;
  for (const name of ['resize']) {
    const original = proto[name];
    if (typeof original !== 'function') continue;
    defineProperty(proto, name, {
      ...getOwnPropertyDescriptor(proto, name),
      value: function (newLength) {
        const before = apply(byteLength, this, []);
        const after = Number(newLength) || 0;
        if (after > before) reserve(after - before);
        const result = apply(original, this, [newLength]);
        const entry = entries.get(this);
        const now = apply(byteLength, this, []);
        if (entry) { live += now - entry.bytes; entry.bytes = now; } else track(this, now);
        return result;
      },
    });
  }
  for (const name of ['transfer', 'transferToFixedLength']) {
    const original = proto[name];
    if (typeof original !== 'function') continue;
    defineProperty(proto, name, {
      ...getOwnPropertyDescriptor(proto, name),
      value: function (...args) {
        const before = apply(byteLength, this, []);
        const after = args.length > 0 && args[0] !== undefined ? Number(args[0]) || 0 : before;
        reserve(after);
        const moved = apply(original, this, args);
        const entry = entries.get(this);
        if (entry) { live -= entry.bytes; entry.bytes = 0; }
        track(moved, apply(byteLength, moved, []));
        return moved;
      },
    });
  }
  const typedArrays = ['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array',
    'Uint16Array', 'Int32Array', 'Uint32Array', 'Float16Array', 'Float32Array', 'Float64Array',
    'BigInt64Array', 'BigUint64Array'];
  for (const name of typedArrays) {
    const Original = globalThis[name];
    if (typeof Original !== 'function') continue;
    const size = Original.BYTES_PER_ELEMENT;
    wrapConstructor(Original, (args, make) => {
      const first = args[0];
      const fresh = typeof first !== 'object' || first === null
        || !(first instanceof NativeArrayBuffer);
      if (fresh && typeof first !== 'object') {
        const length = Number(first) || 0;
        if (length > 0) reserve(length * size);
      }
      const view = make();
      if (fresh) {
        // A view made from a length, an array or an iterable owns a new buffer.
        const bytes = view.byteLength;
        if (typeof first === 'object' && first !== null) reserve(bytes);
        track(view.buffer, bytes);
      }
      return view;
    });
  }
}

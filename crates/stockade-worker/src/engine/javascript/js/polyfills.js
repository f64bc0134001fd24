// Opt-in web polyfills, written for stockade: timers on virtual time,
// queueMicrotask, TextEncoder/TextDecoder, atob/btoa, structuredClone,
// Event/EventTarget, AbortController/AbortSignal, DOMException, a minimal
// Blob and `self`. No window or document. A module (build.rs compiles it
// to bytecode) whose default export the worker calls once; it returns the
// timer driver the worker's event loop uses.
export default function installPolyfills(maxTimerCallbacks) {
  const define = (name, value) => {
    Object.defineProperty(globalThis, name, { value, writable: true, configurable: true });
  };

  // `self` names the global scope, as in a web worker (libraries such as
  // lodash look for it before they fall back to Function('return this')).
  define('self', globalThis);

  // --- DOMException -------------------------------------------------------
  const codes = { IndexSizeError: 1, NotFoundError: 8, NotSupportedError: 9,
    InvalidStateError: 11, SyntaxError: 12, InvalidCharacterError: 5,
    AbortError: 20, TimeoutError: 23, DataCloneError: 25 };
  class DOMException extends Error {
    constructor(message = '', name = 'Error') {
      super(message);
      Object.defineProperty(this, 'name', { value: String(name), configurable: true, writable: true });
    }
    get code() { return codes[this.name] || 0; }
  }
  define('DOMException', DOMException);

  // --- timers on virtual time -------------------------------------------
  // Nothing sleeps: when the guest is otherwise idle the worker runs the
  // earliest timer and moves virtual time to its due time.
  let now = 0;
  let sequence = 0;
  let fired = 0;
  const timers = new Map();
  let nextId = 1;
  const schedule = (callback, delay, args, repeat) => {
    const id = nextId++;
    if (typeof callback !== 'function') return id; // a string is never compiled
    const wait = Math.max(0, Number(delay) || 0);
    timers.set(id, { callback, args, wait, repeat, due: now + wait, order: sequence++ });
    return id;
  };
  const cancel = (id) => { timers.delete(Number(id)); };
  define('setTimeout', (callback, delay, ...args) => schedule(callback, delay, args, false));
  define('setInterval', (callback, delay, ...args) => schedule(callback, delay, args, true));
  define('clearTimeout', cancel);
  define('clearInterval', cancel);
  define('queueMicrotask', (callback) => {
    if (typeof callback !== 'function') {
      throw new TypeError('queueMicrotask needs a function');
    }
    Promise.resolve().then(() => callback());
  });
  const report = (error) => {
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    console.error(`Uncaught (in a timer) ${text}`);
  };
  // Runs the earliest timer; returns false when none is left. Past
  // maxTimerCallbacks in one feed every timer is dropped (a runaway
  // setInterval) and the guest is told on stderr.
  const tick = () => {
    let earliest;
    for (const [id, timer] of timers) {
      if (earliest === undefined || timer.due < earliest[1].due
          || (timer.due === earliest[1].due && timer.order < earliest[1].order)) {
        earliest = [id, timer];
      }
    }
    if (earliest === undefined) return false;
    if (fired >= maxTimerCallbacks) {
      timers.clear();
      console.error(`[stockade: timers cut off after ${maxTimerCallbacks} callbacks in one run]`);
      return false;
    }
    const [id, timer] = earliest;
    now = timer.due;
    if (timer.repeat) {
      timer.due = now + Math.max(1, timer.wait);
      timer.order = sequence++;
    } else {
      timers.delete(id);
    }
    fired++;
    try { timer.callback(...timer.args); } catch (error) { report(error); }
    return true;
  };
  const startFeed = () => { fired = 0; };

  // --- text -------------------------------------------------------------
  class TextEncoder {
    get encoding() { return 'utf-8'; }
    encode(input = '') {
      const text = String(input);
      const out = [];
      for (let i = 0; i < text.length; i++) {
        let c = text.charCodeAt(i);
        if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
          const d = text.charCodeAt(i + 1);
          if (d >= 0xdc00 && d <= 0xdfff) { c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00); i++; }
        }
        if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
        if (c < 0x80) out.push(c);
        else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
        else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
        else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
      }
      return new Uint8Array(out);
    }
    encodeInto(input, destination) {
      const bytes = this.encode(input);
      const written = Math.min(bytes.length, destination.length);
      destination.set(bytes.subarray(0, written));
      return { read: String(input).length, written };
    }
  }
  const bytesOf = (input) => {
    if (input === undefined) return new Uint8Array(0);
    if (input instanceof ArrayBuffer) return new Uint8Array(input);
    if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
    throw new TypeError('expected an ArrayBuffer or a view of one');
  };
  class TextDecoder {
    #fatal; #ignoreBOM;
    constructor(label = 'utf-8', options = {}) {
      const name = String(label).trim().toLowerCase();
      if (name !== 'utf-8' && name !== 'utf8' && name !== 'unicode-1-1-utf-8') {
        throw new RangeError(`TextDecoder supports utf-8 only, not ${label}`);
      }
      this.#fatal = Boolean(options.fatal);
      this.#ignoreBOM = Boolean(options.ignoreBOM);
    }
    get encoding() { return 'utf-8'; }
    get fatal() { return this.#fatal; }
    get ignoreBOM() { return this.#ignoreBOM; }
    decode(input) {
      const bytes = bytesOf(input);
      let i = 0;
      if (!this.#ignoreBOM && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) i = 3;
      const parts = [];
      let chunk = [];
      const bad = () => {
        if (this.#fatal) throw new TypeError('The encoded data was not valid utf-8');
        chunk.push(0xfffd);
      };
      while (i < bytes.length) {
        const b = bytes[i];
        let need = 0, c = 0, min = 0;
        if (b < 0x80) { chunk.push(b); i++; }
        else {
          if (b >= 0xc2 && b <= 0xdf) { need = 1; c = b & 31; min = 0x80; }
          else if (b >= 0xe0 && b <= 0xef) { need = 2; c = b & 15; min = 0x800; }
          else if (b >= 0xf0 && b <= 0xf4) { need = 3; c = b & 7; min = 0x10000; }
          else { bad(); i++; continue; }
          let j = 1;
          for (; j <= need; j++) {
            const n = bytes[i + j];
            if (n === undefined || (n & 0xc0) !== 0x80) break;
            c = (c << 6) | (n & 63);
          }
          if (j <= need || c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) {
            bad(); i += Math.max(1, j === 1 ? 1 : j); continue;
          }
          i += need + 1;
          if (c >= 0x10000) { c -= 0x10000; chunk.push(0xd800 + (c >> 10), 0xdc00 + (c & 1023)); }
          else chunk.push(c);
        }
        if (chunk.length >= 8192) { parts.push(String.fromCharCode(...chunk)); chunk = []; }
      }
      parts.push(String.fromCharCode(...chunk));
      return parts.join('');
    }
  }
  define('TextEncoder', TextEncoder);
  define('TextDecoder', TextDecoder);

  // --- base64 -----------------------------------------------------------
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  define('btoa', (input) => {
    const text = String(input);
    let out = '';
    for (let i = 0; i < text.length; i += 3) {
      const a = text.charCodeAt(i), b = text.charCodeAt(i + 1), c = text.charCodeAt(i + 2);
      if (a > 255 || b > 255 || c > 255) {
        throw new DOMException('btoa: the string contains characters outside Latin1', 'InvalidCharacterError');
      }
      const n = (a << 16) | ((b || 0) << 8) | (c || 0);
      out += alphabet[n >> 18] + alphabet[(n >> 12) & 63]
        + (i + 1 < text.length ? alphabet[(n >> 6) & 63] : '=')
        + (i + 2 < text.length ? alphabet[n & 63] : '=');
    }
    return out;
  });
  define('atob', (input) => {
    let text = String(input).replace(/[\t\n\f\r ]/g, '');
    if (text.length % 4 === 0) text = text.replace(/==?$/, '');
    if (text.length % 4 === 1 || /[^A-Za-z0-9+/]/.test(text)) {
      throw new DOMException('atob: the string is not valid base64', 'InvalidCharacterError');
    }
    let out = '';
    let bits = 0, value = 0;
    for (const ch of text) {
      value = (value << 6) | alphabet.indexOf(ch);
      bits += 6;
      if (bits >= 8) { bits -= 8; out += String.fromCharCode((value >> bits) & 255); }
    }
    return out;
  });

  // --- structuredClone --------------------------------------------------
  const typedNames = ['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array',
    'Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array'];
  const errorTypes = { Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError };
  define('structuredClone', (value, options) => {
    if (options !== undefined && options !== null && options.transfer !== undefined
        && [...options.transfer].length > 0) {
      throw new DOMException('structuredClone: transfer is not supported', 'DataCloneError');
    }
    const seen = new Map();
    const clone = (v) => {
      if (typeof v === 'function' || typeof v === 'symbol') {
        throw new DOMException(`${String(v)} could not be cloned`, 'DataCloneError');
      }
      if (typeof v !== 'object' || v === null) return v;
      if (seen.has(v)) return seen.get(v);
      const tag = Object.prototype.toString.call(v).slice(8, -1);
      let out;
      if (Array.isArray(v)) {
        out = new Array(v.length);
        seen.set(v, out);
        for (const key of Object.keys(v)) out[key] = clone(v[key]);
        return out;
      }
      switch (tag) {
        case 'Date': out = new Date(v.getTime()); break;
        case 'RegExp': out = new RegExp(v.source, v.flags); break;
        case 'Boolean': case 'Number': case 'String': case 'BigInt':
          out = Object(v.valueOf()); break;
        case 'ArrayBuffer': out = v.slice(0); break;
        case 'DataView':
          out = new DataView(clone(v.buffer), v.byteOffset, v.byteLength); break;
        case 'Map':
          out = new Map(); seen.set(v, out);
          for (const [k, item] of v) out.set(clone(k), clone(item));
          return out;
        case 'Set':
          out = new Set(); seen.set(v, out);
          for (const item of v) out.add(clone(item));
          return out;
        case 'Error': {
          const Type = errorTypes[v.name] || Error;
          out = new Type(v.message);
          if ('stack' in v) out.stack = v.stack;
          break;
        }
        default:
          if (typedNames.includes(tag)) {
            out = new globalThis[tag](clone(v.buffer), v.byteOffset, v.length);
            break;
          }
          if (tag !== 'Object' || typeof v.then === 'function' && v instanceof Promise) {
            throw new DOMException(`${tag} object could not be cloned`, 'DataCloneError');
          }
          out = {};
          seen.set(v, out);
          for (const key of Object.keys(v)) out[key] = clone(v[key]);
          return out;
      }
      seen.set(v, out);
      return out;
    };
    return clone(value);
  });

  // --- events -----------------------------------------------------------
  class Event {
    #type; #defaultPrevented = false; #stopped = false;
    constructor(type, init = {}) {
      if (arguments.length === 0) throw new TypeError('Event needs a type');
      this.#type = String(type);
      this.bubbles = Boolean(init.bubbles);
      this.cancelable = Boolean(init.cancelable);
      this.composed = Boolean(init.composed);
      this.timeStamp = now;
      this.target = null;
      this.currentTarget = null;
    }
    get type() { return this.#type; }
    get defaultPrevented() { return this.#defaultPrevented; }
    preventDefault() { if (this.cancelable) this.#defaultPrevented = true; }
    stopPropagation() {}
    stopImmediatePropagation() { this.#stopped = true; }
    static stopped(event) { return event.#stopped; }
  }
  const stopped = Event.stopped;
  delete Event.stopped;
  class CustomEvent extends Event {
    constructor(type, init = {}) { super(type, init); this.detail = init.detail ?? null; }
  }
  class EventTarget {
    #listeners = new Map();
    addEventListener(type, listener, options = {}) {
      if (listener === null || listener === undefined) return;
      const once = typeof options === 'object' && Boolean(options.once);
      const signal = typeof options === 'object' ? options.signal : undefined;
      if (signal && signal.aborted) return;
      const list = this.#listeners.get(type) || [];
      if (list.some((entry) => entry.listener === listener)) return;
      const entry = { listener, once };
      list.push(entry);
      this.#listeners.set(type, list);
      if (signal) signal.addEventListener('abort', () => this.removeEventListener(type, listener));
    }
    removeEventListener(type, listener) {
      const list = this.#listeners.get(type);
      if (!list) return;
      const index = list.findIndex((entry) => entry.listener === listener);
      if (index >= 0) list.splice(index, 1);
    }
    dispatchEvent(event) {
      if (!(event instanceof Event)) throw new TypeError('dispatchEvent needs an Event');
      event.target = this;
      event.currentTarget = this;
      const handler = this[`on${event.type}`];
      const list = [...(this.#listeners.get(event.type) || [])];
      if (typeof handler === 'function') list.unshift({ listener: handler, once: false });
      for (const entry of list) {
        if (entry.once) this.removeEventListener(event.type, entry.listener);
        try {
          if (typeof entry.listener === 'function') entry.listener.call(this, event);
          else if (entry.listener && typeof entry.listener.handleEvent === 'function') {
            entry.listener.handleEvent(event);
          }
        } catch (error) { report(error); }
        if (stopped(event)) break;
      }
      event.currentTarget = null;
      return !event.defaultPrevented;
    }
  }
  define('Event', Event);
  define('CustomEvent', CustomEvent);
  define('EventTarget', EventTarget);

  // --- abort ------------------------------------------------------------
  class AbortSignal extends EventTarget {
    #aborted = false; #reason = undefined;
    constructor(key) {
      super();
      if (key !== secret) throw new TypeError('AbortSignal cannot be constructed; use AbortController');
      this.onabort = null;
    }
    get aborted() { return this.#aborted; }
    get reason() { return this.#reason; }
    throwIfAborted() { if (this.#aborted) throw this.#reason; }
    static abort(reason) { const s = new AbortSignal(secret); abort(s, reason); return s; }
    static timeout(ms) {
      const s = new AbortSignal(secret);
      setTimeout(() => abort(s, new DOMException('The operation timed out', 'TimeoutError')), ms);
      return s;
    }
    static any(signals) {
      const s = new AbortSignal(secret);
      for (const other of signals) {
        if (other.aborted) { abort(s, other.reason); return s; }
      }
      for (const other of signals) other.addEventListener('abort', () => abort(s, other.reason));
      return s;
    }
    static set(signal, reason) {
      if (signal.#aborted) return false;
      signal.#aborted = true;
      signal.#reason = reason === undefined
        ? new DOMException('This operation was aborted', 'AbortError') : reason;
      return true;
    }
  }
  const secret = Symbol('AbortSignal');
  const setAborted = AbortSignal.set;
  delete AbortSignal.set;
  const abort = (signal, reason) => {
    if (setAborted(signal, reason)) signal.dispatchEvent(new Event('abort'));
  };
  class AbortController {
    #signal = new AbortSignal(secret);
    get signal() { return this.#signal; }
    abort(reason) { abort(this.#signal, reason); }
  }
  define('AbortSignal', AbortSignal);
  define('AbortController', AbortController);


  // --- Blob -------------------------------------------------------------
  const encoder = new TextEncoder();
  class Blob {
    #bytes; #type;
    constructor(parts = [], options = {}) {
      const chunks = [];
      for (const part of parts) {
        if (part instanceof Blob) chunks.push(part.#bytes);
        else if (part instanceof ArrayBuffer || ArrayBuffer.isView(part)) chunks.push(bytesOf(part).slice());
        else chunks.push(encoder.encode(String(part)));
      }
      const size = chunks.reduce((total, chunk) => total + chunk.length, 0);
      this.#bytes = new Uint8Array(size);
      let at = 0;
      for (const chunk of chunks) { this.#bytes.set(chunk, at); at += chunk.length; }
      const type = options.type === undefined ? '' : String(options.type);
      this.#type = /^[\x20-\x7e]*$/.test(type) ? type.toLowerCase() : '';
    }
    get size() { return this.#bytes.length; }
    get type() { return this.#type; }
    slice(start = 0, end = this.size, type = '') {
      const part = new Blob([], { type });
      part.#bytes = this.#bytes.slice(start, end);
      return part;
    }
    async arrayBuffer() { return this.#bytes.slice().buffer; }
    async bytes() { return this.#bytes.slice(); }
    async text() { return new TextDecoder().decode(this.#bytes); }
  }
  define('Blob', Blob);

  return { tick, startFeed };
}

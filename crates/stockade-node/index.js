// stockade for Node.js: run code you do not trust (Python or JavaScript,
// typically written by a model) in a supervised, sandboxed worker process.
//
//   const { Sandbox } = require("stockade");
//   const sandbox = new Sandbox("python", { limits: { maxDuration: 5 } });
//   console.log(await sandbox.run("sum(range(10))"));   // 45
//   sandbox.close();
//
// This file is the API; bin/stockade.node (src/) is the host library under
// it, values.js and errors.js the conversions.
"use strict";

const path = require("node:path");
const errors = require("./errors.js");
const { decode, encode, Repr, Cycle, Tuple } = require("./values.js");

const BIN = path.join(__dirname, "bin");
const native = require(path.join(BIN, "stockade.node"));
const LANGUAGES = ["python", "javascript"];
const DISPOSE = Symbol.asyncDispose ?? Symbol.for("nodejs.asyncDispose");
/** Lets a Pool hand a Sandbox the session it checked out. */
const ADOPT = Symbol("adopt");

/** Bytes of stdout and of stderr `execute` keeps. */
const DEFAULT_STREAM_LIMIT = 64 * 1024;

/** `maxDuration` → `max_duration`: the host library's option names. */
function snake(name) {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function nativeOptions(options) {
  if (options === null || typeof options !== "object") {
    throw new errors.ConfigurationError("options must be an object.");
  }
  const { limits = {}, worker, ...rest } = options;
  const out = { worker: worker ?? path.join(BIN, "stockade-worker") };
  for (const [name, value] of Object.entries({ ...limits, ...rest })) {
    if (value === undefined) continue;
    out[snake(name)] = value instanceof Map ? Object.fromEntries(value) : value;
  }
  return out;
}

function encodeInputs(inputs) {
  if (inputs === null || typeof inputs !== "object" || Array.isArray(inputs)) {
    throw new errors.ConversionError("inputs must be an object of names to values.");
  }
  try {
    return encode(inputs, "inputs", new Set());
  } catch (err) {
    throw new errors.ConversionError(`${err.message}.`);
  }
}

/** One guest session in one sandboxed worker; globals persist across runs. */
class Sandbox {
  #language;
  #options;
  #starting = null;
  #closed = false;
  /** Host functions by name: bound for the sandbox's life, or for a run. */
  #functions = new Map();
  /** Where the running run's output goes. */
  #print = null;
  #redact;

  constructor(language = "python", options = {}) {
    if (!LANGUAGES.includes(language)) {
      throw new errors.ConfigurationError(`language must be one of ${LANGUAGES.join(", ")}, not ${JSON.stringify(language)}.`);
    }
    this.#language = language;
    this.#options = nativeOptions(options);
    this.#redact = options.redactHostErrors !== false;
  }

  /**
   * Makes `fn` callable from the guest as `name` for the sandbox's life.
   * It may return a value or a promise; the guest waits for either, and
   * Node's event loop runs meanwhile. An error it throws reaches the guest
   * as the exception class of its `name` (TypeError, ValueError, ...) when
   * the guest has one, else as a generic error; its message is replaced by
   * "host function failed" unless `redactHostErrors: false`.
   */
  bindFunction(name, fn) {
    if (typeof name !== "string" || !/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name)) {
      throw new errors.ConfigurationError(`a host function needs a name a guest can call, not ${JSON.stringify(name)}.`);
    }
    if (typeof fn !== "function") {
      throw new errors.ConfigurationError(`${name}: bindFunction takes a function.`);
    }
    this.#functions.set(name, fn);
  }

  /** The guest's call of a host function, answered for the addon. */
  async #dispatch(name, args) {
    if (name === "\u0000print") {
      const [stream, text] = args;
      if (this.#print) this.#print(stream, text);
      else (stream === "stderr" ? process.stderr : process.stdout).write(text);
      return { ok: true };
    }
    if (name === "\u0000flush") return { ok: true };
    const fn = this.#functions.get(name);
    if (fn === undefined) {
      return { ok: false, type: "NameError", message: `name '${name}' is not defined` };
    }
    try {
      const value = await fn(...decode(args));
      return { ok: true, value: encode(value, `the result of ${name}`, new Set()) };
    } catch (err) {
      const type = err instanceof Error ? err.name : "Error";
      const message = err instanceof Error ? err.message : String(err);
      return { ok: false, type, message: this.#redact ? "host function failed" : message };
    }
  }

  get language() {
    return this.#language;
  }

  /** A sandbox on `opening`, a pool's checkout (made with `open(dispatch)`). */
  static [ADOPT](language, options, open) {
    const sandbox = new Sandbox(language, options);
    sandbox.#starting = sandbox.#checked(open(([name, args]) => sandbox.#dispatch(name, args)));
    return sandbox;
  }

  /** The session, or the error it did not start with. */
  #checked(opening) {
    return opening.then((session) => {
      const failure = session.failure();
      if (failure) throw errors.fromNative(failure);
      return session;
    });
  }

  /** Waits for the worker (a pool's checkout), so a failed start is the caller's to see. */
  async ready() {
    await this.#session();
    return this;
  }

  /** The worker starts with the first run, off Node's thread. */
  #session() {
    if (this.#closed) {
      return Promise.reject(new errors.SandboxClosed("the sandbox is closed. Make a new Sandbox."));
    }
    if (this.#starting === null) {
      let opening;
      try {
        // The addon calls it with one argument, [name, args].
        opening = native.open(this.#language, this.#options, ([name, args]) => this.#dispatch(name, args));
      } catch (err) {
        // The options, checked before any worker starts.
        opening = Promise.reject(new errors.ConfigurationError(`${err.message}.`));
      }
      this.#starting = this.#checked(opening);
    }
    return this.#starting;
  }

  /**
   * Runs `code` after binding `inputs` as globals; resolves to the value
   * of its last expression. Guest output goes to `print(stream, text)`, or
   * to process.stdout and process.stderr, as it is printed; `functions`
   * are host functions for this run only.
   */
  async run(code, { inputs, print, functions } = {}) {
    const encoded = inputs === undefined ? null : encodeInputs(inputs);
    const session = await this.#session();
    const added = [];
    for (const [name, fn] of Object.entries(functions ?? {})) {
      if (!this.#functions.has(name)) {
        this.bindFunction(name, fn);
        added.push(name);
      }
    }
    let answer;
    this.#print = print ?? null;
    try {
      answer = await session.run(String(code), encoded, [...this.#functions.keys()]);
    } finally {
      this.#print = null;
      for (const name of added) this.#functions.delete(name);
    }
    if (!answer.ok) throw errors.fromNative(answer.error);
    return decode(answer.value);
  }

  /**
   * As `run`, but never throws for the run's own failure: resolves to
   * `{status, stdout, stderr, result, error, errorType, truncated}`.
   */
  async execute(code, { inputs, functions, maxStreamBytes = DEFAULT_STREAM_LIMIT } = {}) {
    const streams = { stdout: "", stderr: "" };
    let truncated = false;
    const print = (stream, text) => {
      const room = maxStreamBytes - streams[stream].length;
      if (text.length > room) truncated = true;
      streams[stream] += text.slice(0, Math.max(room, 0));
    };
    try {
      const result = await this.run(code, { inputs, functions, print });
      return { status: "ok", ...streams, result, error: null, errorType: null, truncated };
    } catch (err) {
      if (!(err instanceof errors.StockadeError)) throw err;
      const errorType = err instanceof errors.GuestError && !(err instanceof errors.GuestSyntaxError)
        ? err.type
        : err.constructor.name;
      return { status: "error", ...streams, result: null, error: err.message, errorType, truncated };
    }
  }

  /** Ends the worker; later runs reject with SandboxClosed. */
  close() {
    this.#closed = true;
    if (this.#starting !== null) {
      this.#starting.then((session) => session.close(), () => {});
    }
  }

  async [DISPOSE]() {
    this.close();
  }
}

/**
 * Ready workers for sandboxes with one set of options, started in the
 * background; each checkout is a fresh worker, never reused.
 */
class Pool {
  #language;
  #options;
  #userOptions;
  #starting;
  #closed = false;

  constructor(language = "python", { size = 4, ...options } = {}) {
    if (!LANGUAGES.includes(language)) {
      throw new errors.ConfigurationError(`language must be one of ${LANGUAGES.join(", ")}, not ${JSON.stringify(language)}.`);
    }
    if (!Number.isInteger(size) || size < 1) {
      throw new errors.ConfigurationError(`size must be a whole number of workers, at least 1, not ${size}.`);
    }
    this.#language = language;
    this.#userOptions = options;
    this.#options = nativeOptions(options);
    let opening;
    try {
      opening = native.openPool(language, this.#options, size);
    } catch (err) {
      opening = Promise.reject(new errors.ConfigurationError(`${err.message}.`));
    }
    this.#starting = opening.then((pool) => {
      const failure = pool.failure();
      if (failure) throw errors.fromNative(failure);
      return pool;
    });
    // A failed start is reported by the next checkout, not as unhandled.
    this.#starting.catch(() => {});
  }

  /** A sandbox on a fresh worker from the pool. */
  async checkout() {
    if (this.#closed) throw new errors.SandboxClosed("the pool is closed. Make a new Pool.");
    const pool = await this.#starting;
    const sandbox = Sandbox[ADOPT](this.#language, this.#userOptions, (dispatch) => pool.checkout(dispatch));
    return sandbox.ready();
  }

  /** One run on a fresh worker from the pool, closed after it. */
  async run(code, options = {}) {
    const sandbox = await this.checkout();
    try {
      return await sandbox.run(code, options);
    } finally {
      sandbox.close();
    }
  }

  /** Ends the idle workers; checked-out sandboxes go on. */
  close() {
    this.#closed = true;
    this.#starting.then((pool) => pool.close(), () => {});
  }

  async [DISPOSE]() {
    this.close();
  }
}

/** One run in a fresh sandbox, closed after it. */
async function run(language, code, options = {}) {
  const { inputs, print, functions, ...sandboxOptions } = options;
  const sandbox = new Sandbox(language, sandboxOptions);
  try {
    return await sandbox.run(code, { inputs, print, functions });
  } finally {
    sandbox.close();
  }
}

module.exports = { Sandbox, Pool, run, Repr, Cycle, Tuple, ...errors };
delete module.exports.fromNative;

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
const { decode, Repr, Cycle, Tuple, Float } = require("./values.js");
const progressJs = require("./progress.js");
const { ANSWER, PENDING, progress, crossing } = progressJs;

const BIN = path.join(__dirname, "bin");
const native = loadAddon();

/** The addon in bin/, or an error saying how to build it. */
function loadAddon() {
  const file = path.join(BIN, "stockade.node");
  try {
    return require(file);
  } catch (err) {
    if (err.code !== "MODULE_NOT_FOUND" || require("node:fs").existsSync(file)) throw err;
    throw new Error(
      `stockade: the addon is not built (${file} is missing). npm 11 skips a dependency's install script ` +
        "until it is approved: run `npm install-scripts approve stockade` and then `npm install` again " +
        `(or run \`node ${path.join(__dirname, "scripts", "install.js")}\`).`,
    );
  }
}
const LANGUAGES = ["python", "javascript"];
const DISPOSE = Symbol.asyncDispose ?? Symbol.for("nodejs.asyncDispose");
/** Lets a Pool hand a Sandbox the session it checked out. */
const ADOPT = Symbol("adopt");
/** Lets the dispatcher reach a sandbox's private #dispatch. */
const DISPATCH = Symbol("dispatch");

/** The answer to a message that needs none. */
const OK = Object.freeze({ ok: true });

/** Bytes of stdout and of stderr `execute` keeps, and host memory its result may take (the host library's defaults). */
const { DEFAULT_STREAM_LIMIT, DEFAULT_RESULT_LIMIT } = native.executeDefaults();
/** A print that drops the text: `execute` keeps it. */
const IGNORE = () => {};

/** `maxDuration` → `max_duration`: the host library's option names. */
function snake(name) {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** Options index.js keeps for itself (the keys dumps are sealed with never reach the addon but in a call that needs them). */
const OWN_OPTIONS = ["dumpKeys", "dumpContext"];

function nativeOptions(options) {
  if (options === null || typeof options !== "object") {
    throw new errors.ConfigurationError("options must be an object.");
  }
  const { limits = {}, worker, ...rest } = options;
  for (const own of OWN_OPTIONS) delete rest[own];
  // A sandbox that may be dumped keeps what a dump needs from its start.
  if (options.dumpKeys !== undefined && rest.dumpable === undefined) rest.dumpable = true;
  const out = { worker: worker ?? path.join(BIN, "stockade-worker") };
  for (const [name, value] of Object.entries({ ...limits, ...rest })) {
    if (value === undefined) continue;
    out[snake(name)] = value instanceof Map ? Object.fromEntries(value) : value;
  }
  return out;
}

function encodeInputs(inputs) {
  if (inputs === undefined || inputs === null) return null;
  if (typeof inputs !== "object" || Array.isArray(inputs)) {
    throw new errors.ConversionError("inputs must be an object of names to values.");
  }
  return JSON.stringify(crossing(inputs, "inputs"));
}

/** The keys and context dumps are sealed with, checked; null for none. */
function sealOf({ dumpKeys, dumpContext } = {}) {
  if (dumpKeys === undefined) {
    if (dumpContext !== undefined) throw new errors.ConfigurationError("dumpContext needs dumpKeys too.");
    return null;
  }
  if (!Array.isArray(dumpKeys)) {
    throw new errors.ConfigurationError("dumpKeys takes an array of keys (Buffers), not one key.");
  }
  const keys = dumpKeys.map((key) => {
    if (!(key instanceof Uint8Array)) {
      throw new errors.ConfigurationError(`dumpKeys takes Buffers, got ${typeof key}.`);
    }
    return Buffer.from(key);
  });
  if (dumpContext === undefined) {
    throw new errors.ConfigurationError("dumpKeys needs dumpContext (a tenant or conversation id).");
  }
  if (typeof dumpContext !== "string" && !(dumpContext instanceof Uint8Array)) {
    throw new errors.ConfigurationError("dumpContext takes a string or a Buffer.");
  }
  return { keys, context: Buffer.from(dumpContext) };
}

/** One guest session in one sandboxed worker; globals persist across runs. */
class Sandbox {
  #language;
  #options;
  #starting = null;
  #closed = false;
  /** Host functions by name ({fn, async}): bound for the sandbox's life, or for a run. */
  #functions = new Map();
  /** Where the running run's output goes. */
  #print = null;
  /** Where the running run's rich outputs go. */
  #onOutput = null;
  #redact;
  #seal;
  /** The last queued call: runs, steps and dumps take turns. */
  #turn = Promise.resolve();
  /** Resolves the call under way with the addon's answer. */
  #settle = null;
  /** Where a suspended stepped run's output and rich outputs go ({print, onOutput}). */
  #steppedSinks = null;

  constructor(language = "python", options = {}) {
    if (!LANGUAGES.includes(language)) {
      throw new errors.ConfigurationError(`language must be one of ${LANGUAGES.join(", ")}, not ${JSON.stringify(language)}.`);
    }
    this.#language = language;
    this.#options = nativeOptions(options);
    this.#redact = options.redactHostErrors !== false;
    this.#seal = sealOf(options);
  }

  /**
   * Makes `fn` callable from the guest as `name` for the sandbox's life.
   * It may return a value or a promise: the guest waits at the call for
   * either, while Node's event loop runs. Bound with `{ async: true }`, it
   * is one the guest awaits instead (`await fetch(x)`, `asyncio.gather`,
   * `Promise.all`), several of its calls in flight at once. An error it
   * throws reaches the guest as the exception class of its `name`
   * (TypeError, ValueError, ...) when the guest has one, else as a generic
   * error; its message is replaced by "host function failed" unless
   * `redactHostErrors: false`.
   */
  bindFunction(name, fn, { async: isAsync } = {}) {
    if (typeof name !== "string" || !/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name)) {
      throw new errors.ConfigurationError(`a host function needs a name a guest can call, not ${JSON.stringify(name)}.`);
    }
    if (typeof fn !== "function") {
      throw new errors.ConfigurationError(`${name}: bindFunction takes a function.`);
    }
    if (isAsync !== undefined && typeof isAsync !== "boolean") {
      throw new errors.ConfigurationError(`${name}: the async option takes true or false.`);
    }
    this.#functions.set(name, { fn, async: isAsync === true });
  }

  /**
   * A message from the addon: the guest's call of a host function, its
   * output, or a call's answer. A host function's answer is returned at
   * once when it has one, else as a promise.
   */
  #dispatch(name, text) {
    const args = JSON.parse(text);
    if (name === "\u0000print") {
      const [stream, text] = args;
      if (this.#print) this.#print(stream, text);
      else (stream === "stderr" ? process.stderr : process.stdout).write(text);
      return OK;
    }
    if (name === "\u0000output") {
      const [mimeType, data, text, note, extension] = args;
      if (this.#onOutput) this.#onOutput({ mimeType, data: Buffer.from(data, "base64"), text, extension });
      else if (this.#print) this.#print("stderr", note);
      else process.stderr.write(note);
      return OK;
    }
    if (name === "\u0000settle") {
      const settle = this.#settle;
      this.#settle = null;
      underWay(this, false);
      if (settle) settle(args);
      return OK;
    }
    const bound = this.#functions.get(name);
    if (bound === undefined) {
      return JSON.stringify({ ok: false, type: "NameError", message: `name '${name}' is not defined` });
    }
    let value;
    try {
      value = bound.fn(...decode(args));
    } catch (err) {
      return JSON.stringify(this.#failed(err));
    }
    if (value !== null && typeof value === "object" && typeof value.then === "function") {
      return Promise.resolve(value).then(
        (settled) => JSON.stringify(this.#returned(name, settled)),
        (err) => JSON.stringify(this.#failed(err)),
      );
    }
    return JSON.stringify(this.#returned(name, value));
  }

  /** A host function's value, for the guest. */
  #returned(name, value) {
    try {
      return { ok: true, value: crossing(value, `the result of ${name}`) };
    } catch (err) {
      // What the function returned cannot cross: the host's mistake, named.
      return { ok: false, type: "TypeError", message: err.message };
    }
  }

  /** What a host function threw, for the guest: its class, its message unless redacted. */
  #failed(err) {
    const type = err instanceof Error ? err.name : "Error";
    const message = err instanceof Error ? err.message : String(err);
    return { ok: false, type, message: this.#redact ? "host function failed" : message };
  }

  get language() {
    return this.#language;
  }

  /** The worker's process id (once `ready()`). */
  async workerPid() {
    return (await this.#session()).info().workerPid;
  }

  /** Which OS sandbox layers are in force: `{mode, applied, missing, notes}`. */
  async sandboxReport() {
    return (await this.#session()).info().sandbox;
  }

  /** A sandbox on a session `open(dispatch)` makes (a pool's checkout, a restore). */
  static [ADOPT](language, options, open) {
    const sandbox = new Sandbox(language, options);
    sandbox.#starting = sandbox.#checked(open(dispatcherOf(sandbox)));
    return sandbox;
  }

  /** The session, or the error it did not start with. */
  #checked(opening) {
    const checked = opening.then(
      (session) => {
        const failure = session.failure();
        if (failure) throw errors.fromNative(failure);
        return session;
      },
      (err) => {
        // The options, checked before any worker starts.
        throw err instanceof errors.StockadeError ? err : new errors.ConfigurationError(`${err.message}.`);
      },
    );
    return checked;
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
      const dispatch = dispatcherOf(this);
      this.#starting = this.#checked(attempt(() => native.open(this.#language, this.#options, dispatch)));
    }
    return this.#starting;
  }

  /**
   * The answer to the addon call `invoke` makes: at once, or through the
   * dispatcher after the call's output and host calls.
   */
  #answer(invoke) {
    return new Promise((resolve, reject) => {
      // A short call answers at once (the addon waits a few tens of
      // microseconds for it); any other through the dispatcher, which
      // cannot run before this returns.
      let direct;
      try {
        direct = invoke();
      } catch (err) {
        reject(new errors.ProtocolError(`the addon refused the call: ${err.message}.`));
        return;
      }
      if (typeof direct === "string") {
        resolve(JSON.parse(direct));
        return;
      }
      this.#settle = resolve;
      underWay(this, true);
    });
  }

  static [DISPATCH](sandbox, name, text) {
    return sandbox.#dispatch(name, text);
  }

  /** Runs `call(session)` once every earlier call on this sandbox is done, and unwraps its envelope. */
  #exclusive(call) {
    const turn = this.#turn.then(async () => {
      const answer = await call(await this.#session());
      if (!answer.ok) throw errors.fromNative(answer.error);
      return answer;
    });
    this.#turn = turn.catch(() => {});
    return turn;
  }

  /** Binds a run's own functions; returns the names to drop after it. */
  #bindForRun(functions) {
    // Each entry as it was before the run: restored after it.
    const before = new Map();
    for (const [name, fn] of Object.entries(functions ?? {})) {
      before.set(name, this.#functions.get(name));
      this.bindFunction(name, fn);
    }
    return before;
  }

  #unbindAfterRun(before) {
    for (const [name, bound] of before) {
      if (bound === undefined) this.#functions.delete(name);
      else this.#functions.set(name, bound);
    }
  }

  #bound() {
    const names = [...this.#functions.keys()];
    return [names, names.filter((name) => this.#functions.get(name).async)];
  }

  /**
   * Runs `code` after binding `inputs` as globals; resolves to the value
   * of its last expression. Guest output goes to `print(stream, text)`, or
   * to process.stdout and process.stderr, as it is printed; each rich
   * output (a chart, `display(df)`) to `onOutput({mimeType, data, text})`,
   * or a note on stderr; `functions` are host functions for this run
   * only. Runs on one sandbox take turns.
   */
  async run(code, { inputs, print, functions, onOutput } = {}) {
    checkPrint(print);
    checkOnOutput(onOutput);
    const encoded = encodeInputs(inputs);
    const answer = await this.#exclusive(async (session) => {
      const added = this.#bindForRun(functions);
      this.#print = print ?? null;
      this.#onOutput = onOutput ?? null;
      try {
        return await this.#answer(() => session.run(String(code), encoded, ...this.#bound()));
      } finally {
        this.#print = null;
        this.#onOutput = null;
        this.#unbindAfterRun(added);
      }
    });
    return decode(answer.value);
  }

  /**
   * Starts `code` as a stepped run: it stops at each host call, name
   * lookup and await, and resolves to a cursor (FunctionCall, NameLookup,
   * PendingFutures) whose answer resolves to the next one, until Complete.
   * The host answers every call itself, bound functions included;
   * `functions` names more the guest may call (for the sandbox's life;
   * `run` raises NameError for them). Output goes to `print` until the
   * run completes.
   */
  async start(code, { inputs, functions = [], print, onOutput } = {}) {
    checkPrint(print);
    checkOnOutput(onOutput);
    if (!Array.isArray(functions) || functions.some((name) => typeof name !== "string")) {
      throw new errors.ConfigurationError("functions takes names (an array of strings) for a stepped run.");
    }
    const encoded = encodeInputs(inputs);
    return this.#stepped({ print: print ?? null, onOutput: onOutput ?? null }, (session) =>
      this.#answer(() => session.start(String(code), encoded, functions, ...this.#bound())));
  }

  /**
   * Where a stepped run stopped, its output going to `sinks.print` and its
   * rich outputs to `sinks.onOutput` until it completes.
   */
  async #stepped(sinks, call) {
    let answer;
    try {
      answer = await this.#exclusive((session) => {
        this.#steppedSinks = sinks;
        this.#print = sinks.print;
        this.#onOutput = sinks.onOutput;
        return call(session);
      });
    } catch (err) {
      if (!(err instanceof errors.CursorError)) this.#steppedSinks = null;
      throw err;
    } finally {
      this.#print = null;
      this.#onOutput = null;
    }
    const where = progress(this, answer.value);
    if (where instanceof progressJs.Complete) this.#steppedSinks = null;
    return where;
  }

  [ANSWER](answer) {
    const sinks = this.#steppedSinks ?? { print: null, onOutput: null };
    return this.#stepped(sinks, (session) => this.#answer(() => session.answer(JSON.stringify(answer))));
  }

  /** The cursor a stepped run waits at (see `start`), or null. */
  async pending() {
    const answer = await this.#exclusive((session) => this.#answer(() => session.pending()));
    return answer.value === null ? null : progress(this, answer.value);
  }

  [PENDING]() {
    return this.pending();
  }

  #sealing() {
    if (this.#seal === null) {
      throw new errors.ConfigurationError("dumps need dumpKeys and dumpContext, given when the sandbox is made.");
    }
    return this.#seal;
  }

  /**
   * The sandbox as sealed bytes (a Buffer): between runs, or suspended at
   * a cursor (a restored sandbox then holds it again as `pending()`).
   * Sealed under the first of `dumpKeys` and bound to `dumpContext`; the
   * sandbox is unaffected.
   */
  async dump() {
    const { keys, context } = this.#sealing();
    const answer = await this.#exclusive((session) => this.#answer(() => session.dump(keys, context)));
    return decode(answer.value);
  }

  /**
   * A sandbox rebuilt from `data` (what `dump` resolved to, in this
   * process or another) in a fresh worker with these options (which must
   * hold the `dumpKeys` and `dumpContext` it was sealed with), idle or
   * waiting at the dumped cursor (`pending()`). The dump is checked
   * before any worker starts: DumpRejected, DumpVersionMismatch.
   */
  static async restore(data, language = "python", options = {}) {
    const seal = sealOf(options);
    if (seal === null) throw new errors.ConfigurationError("restore needs dumpKeys and dumpContext.");
    if (!(data instanceof Uint8Array)) throw new errors.ConfigurationError("restore takes the dump's bytes (a Buffer).");
    const sandbox = Sandbox[ADOPT](language, options, (dispatch) =>
      attempt(() => native.restore(language, nativeOptions(options), seal.keys, seal.context, Buffer.from(data), dispatch)),
    );
    return sandbox.ready();
  }

  /**
   * Restores a monty dump into this sandbox, which must not have run
   * anything yet (a pool's fresh checkout, say), with its own keys and
   * context. A QuickJS or CPython dump replays a journal into a worker
   * seeded as its session was: restore those with `Sandbox.restore`.
   */
  async restoreInto(data) {
    if (!(data instanceof Uint8Array)) throw new errors.ConfigurationError("restoreInto takes the dump's bytes (a Buffer).");
    const { keys, context } = this.#sealing();
    await this.#exclusive((session) => this.#answer(() => session.restoreInto(keys, context, Buffer.from(data))));
  }

  /**
   * Makes `requirements` ("pandas==3.1.1") importable by a CPython guest:
   * installed on the host by uv (wheels only, cached), before the
   * sandbox's first run; afterwards only packages it has are accepted.
   */
  async installDependencies(requirements) {
    if (!Array.isArray(requirements) || requirements.some((r) => typeof r !== "string")) {
      throw new errors.ConfigurationError("installDependencies takes requirements (an array of strings).");
    }
    await this.#exclusive((session) => this.#answer(() => session.installDependencies(requirements)));
  }

  /**
   * As `run`, but never throws for the run's own failure: resolves to
   * `{status, stdout, stderr, result, error, errorType, truncated, outputs}`,
   * each stream kept to `maxStreamBytes` of UTF-8 and the result refused
   * past `maxResultBytes` (as errorType "ResultTooLarge"), by the host
   * library's own rule (`Session::execute`), as the Python package does.
   */
  async execute(code, { inputs, functions, print, onOutput, maxStreamBytes = DEFAULT_STREAM_LIMIT,
    maxResultBytes = DEFAULT_RESULT_LIMIT } = {}) {
    checkPrint(print);
    checkOnOutput(onOutput);
    for (const [name, value] of [["maxStreamBytes", maxStreamBytes], ["maxResultBytes", maxResultBytes]]) {
      if (!Number.isSafeInteger(value) || value < 0) {
        throw new errors.ConfigurationError(`${name} takes a number of bytes, not ${value}.`);
      }
    }
    const outputs = [];
    const keep = (output) => {
      outputs.push(output);
      if (onOutput) onOutput(output);
    };
    const failed = (err, kept = { stdout: "", stderr: "", truncated: false }) => {
      // The guest's own class (a syntax error's too, "SyntaxError"), else
      // the StockadeError subclass, as the library's error_type says.
      const errorType = kept.errorType ?? (err instanceof errors.GuestError ? err.type : err.constructor.name);
      return { status: "error", stdout: kept.stdout, stderr: kept.stderr, result: null, error: err.message,
        errorType, truncated: kept.truncated, outputs };
    };
    let done;
    try {
      const encoded = encodeInputs(inputs);
      const answer = await this.#exclusive(async (session) => {
        const added = this.#bindForRun(functions);
        // What the guest prints is kept; the caller's print sees it all.
        this.#print = print ?? IGNORE;
        this.#onOutput = keep;
        try {
          return await this.#answer(() =>
            session.execute(String(code), encoded, ...this.#bound(), maxResultBytes, maxStreamBytes));
        } finally {
          this.#print = null;
          this.#onOutput = null;
          this.#unbindAfterRun(added);
        }
      });
      done = answer.value;
    } catch (err) {
      if (!(err instanceof errors.StockadeError)) throw err;
      return failed(err);
    }
    if (done.error !== null) return failed(errors.fromNative(done.error), done);
    return { status: "ok", stdout: done.stdout, stderr: done.stderr, result: decode(done.result), error: null,
      errorType: null, truncated: done.truncated, outputs };
  }

  /** Ends the worker, at once, even mid-run; later calls reject with SandboxClosed. */
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
 * Sandboxes with a call under way. While there are any, a timer keeps
 * Node's event loop alive (the dispatcher that brings their answers does
 * not, so that an idle sandbox never holds a process open), and this set
 * keeps each of them alive until its answer lands (the dispatcher holds a
 * sandbox only weakly, so that one forgotten unclosed is collected, and its
 * worker and thread with it).
 */
const callsUnderWay = new Set();
let keepAlive = null;

function underWay(sandbox, going) {
  if (going) callsUnderWay.add(sandbox);
  else callsUnderWay.delete(sandbox);
  if (callsUnderWay.size > 0 && keepAlive === null) {
    keepAlive = setInterval(() => {}, 2 ** 30);
  } else if (callsUnderWay.size === 0 && keepAlive !== null) {
    clearInterval(keepAlive);
    keepAlive = null;
  }
}

/**
 * The function the addon hands a sandbox's messages to, holding the
 * sandbox weakly: the addon keeps the function, and a strong hold would
 * keep the sandbox (and its session) alive for ever.
 */
function dispatcherOf(sandbox) {
  const weak = new WeakRef(sandbox);
  return ([name, text]) => {
    const live = weak.deref();
    if (live !== undefined) return Sandbox[DISPATCH](live, name, text);
    return name.startsWith("\u0000") ? OK : JSON.stringify({ ok: false, type: "RuntimeError", message: "the sandbox is gone" });
  };
}

function checkOnOutput(onOutput) {
  if (onOutput !== undefined && onOutput !== null && typeof onOutput !== "function") {
    throw new errors.ConfigurationError("onOutput takes a function ({mimeType, data, text}) => void.");
  }
}

function checkPrint(print) {
  if (print !== undefined && print !== null && typeof print !== "function") {
    throw new errors.ConfigurationError("print takes a function (stream, text) => void.");
  }
}

/** `make()`'s promise, or a rejected one for what it threw. */
function attempt(make) {
  try {
    return make();
  } catch (err) {
    return Promise.reject(err);
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
  const { inputs, print, functions, onOutput, ...sandboxOptions } = options;
  const sandbox = new Sandbox(language, sandboxOptions);
  try {
    return await sandbox.run(code, { inputs, print, functions, onOutput });
  } finally {
    sandbox.close();
  }
}

const { FunctionCall, NameLookup, PendingFutures, Complete } = progressJs;
/** The stockade version: the workspace's, as `stockade --version` and the Python package give it. */
const version = native.version();

module.exports = {
  version, Sandbox, Pool, run, Repr, Cycle, Tuple, Float, FunctionCall, NameLookup, PendingFutures, Complete, ...errors,
};
delete module.exports.fromNative;

// Stepped runs: `sandbox.start(code)` stops at each host call, name lookup
// and await, and resolves to a cursor (FunctionCall, NameLookup,
// PendingFutures) for the host to answer, or to Complete with the run's
// value. Each answer resolves to the next one.
"use strict";

const { decode, encode } = require("./values.js");
const { ConversionError, CursorError, ProtocolError } = require("./errors.js");

/** How a cursor asks its sandbox to answer it: `owner[ANSWER](answer)`. */
const ANSWER = Symbol("answer");
/** How a cursor asks its sandbox for the live cursor. */
const PENDING = Symbol("pending");

/** What every cursor has: the sandbox it belongs to and its number. */
class Cursor {
  #owner;
  constructor(owner, cursor) {
    this.#owner = owner;
    /** The cursor's number, unique in its sandbox. */
    this.cursor = cursor;
  }

  _answer(how, fields = {}) {
    return this.#owner[ANSWER]({ cursor: this.cursor, how, ...fields });
  }

  /**
   * The sandbox suspended here, as sealed bytes (see Sandbox.dump); a
   * restored sandbox holds this cursor again (`pending()`). The cursor
   * stays live; one already answered cannot be dumped.
   */
  async dump() {
    const live = await this.#owner[PENDING]();
    if (live === null || live.cursor !== this.cursor) {
      throw new CursorError(
        `cursor ${this.cursor} was already answered; dump the sandbox (sandbox.dump()) or its live cursor (await sandbox.pending()).`,
      );
    }
    return this.#owner.dump();
  }
}

/** The guest called host function `name` and waits for its outcome. */
class FunctionCall extends Cursor {
  constructor(owner, { cursor, name, args, kwargs, callId }) {
    super(owner, cursor);
    this.name = name;
    this.args = decode(args);
    /** Keyword arguments (Python guests), by name. */
    this.kwargs = decode(kwargs);
    /** The id a deferred call is resolved by, at a PendingFutures cursor. */
    this.callId = callId;
  }

  /** The call returns `value`. */
  resume(value) {
    return this._answer("return", { value: crossing(value, "the call's result") });
  }

  /** The call raises `type(message)` in the guest (or the error given). */
  resumeError(type, message) {
    const [name, text] = errorPair(type, message);
    return this._answer("raise", { type: name, message: text });
  }

  /** The call runs on: the guest gets a future, resolved later by `callId` at a PendingFutures cursor. */
  resumePending() {
    return this._answer("pending");
  }
}

/** The guest read `name`, which nothing in it defines (Python guests). */
class NameLookup extends Cursor {
  constructor(owner, { cursor, name }) {
    super(owner, cursor);
    this.name = name;
  }

  /** The name is bound to `value`. */
  resume(value) {
    return this._answer("bind", { value: crossing(value, `the value of ${this.name}`) });
  }

  /** The name is a host function; calls to it come as FunctionCall. */
  resumeFunction() {
    return this._answer("function");
  }

  /** The name is not defined: the guest gets a NameError. */
  resumeNotFound() {
    return this._answer("not_found");
  }
}

/** Every guest task waits on deferred calls (`callIds`). */
class PendingFutures extends Cursor {
  constructor(owner, { cursor, callIds }) {
    super(owner, cursor);
    this.callIds = callIds;
  }

  /**
   * Resolves some or all awaited calls: `results` maps a call id to its
   * value (a Map, or an object keyed by id), `errors` to the error it
   * raises in the guest (an Error, or [type, message]).
   */
  resolve(results = {}, { errors = {} } = {}) {
    const pairs = (of) => (of instanceof Map ? [...of] : Object.entries(of)).map(([id, v]) => [Number(id), v]);
    return this._answer("resolve", {
      results: pairs(results).map(([id, value]) => [id, crossing(value, `the result of call ${id}`)]),
      errors: pairs(errors).map(([id, error]) => [id, ...errorPair(...(Array.isArray(error) ? error : [error]))]),
    });
  }
}

/** The stepped run ended; `value` is its result. */
class Complete {
  constructor(value) {
    this.value = value;
  }
}

/** `value` tagged for the guest, or a ConversionError naming `path`. */
function crossing(value, path) {
  try {
    return encode(value, path, new Set());
  } catch (err) {
    throw new ConversionError(`${err.message}.`);
  }
}

function errorPair(type, message) {
  if (type instanceof Error) return [type.name, type.message];
  return [String(type), String(message ?? "")];
}

/** The cursor (or Complete) for the addon's description of where a run is. */
function progress(owner, described) {
  switch (described.kind) {
    case "call":
      return new FunctionCall(owner, described);
    case "lookup":
      return new NameLookup(owner, described);
    case "futures":
      return new PendingFutures(owner, described);
    case "complete":
      return new Complete(decode(described.value));
    default:
      throw new ProtocolError(`the addon stopped at a kind of cursor this package does not know: ${described.kind}. Update the package.`);
  }
}

module.exports = { ANSWER, PENDING, FunctionCall, NameLookup, PendingFutures, Complete, progress, crossing };

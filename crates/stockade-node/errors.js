// The errors a sandbox raises, one class a kind of the host library's
// errors (src/errors.rs sends the class's name, the library's
// ErrorKind::class_name), all deriving from StockadeError; each message
// says what to do next.
"use strict";

class StockadeError extends Error {
  constructor(message, fields = {}) {
    super(message);
    this.name = new.target.name;
    Object.assign(this, fields);
  }
}
class GuestError extends StockadeError {}
class GuestSyntaxError extends GuestError {}
class TimeLimitError extends StockadeError {}
class MemoryLimitError extends StockadeError {}
class WorkerCrashed extends StockadeError {}
class Disconnected extends WorkerCrashed {}
class ServerShutdown extends Disconnected {}
class ConversionError extends StockadeError {}
class ConfigurationError extends StockadeError {}
class ResultTooLarge extends StockadeError {}
class ProtocolError extends StockadeError {}
class Unauthorized extends StockadeError {}
class OverCapacity extends StockadeError {}
class SandboxClosed extends StockadeError {}
class CursorError extends StockadeError {}
class DumpRejected extends StockadeError {}
class DumpVersionMismatch extends StockadeError {}
class ReplayDiverged extends StockadeError {}
class Interrupted extends WorkerCrashed {}
class Forked extends StockadeError {}

// The advice of each kind is the host library's (contract/errors.rs), sent
// with the error; for these kinds, the package's own words, naming
// JavaScript's types and this package's calls, and for the one error only
// the package raises.
const OWN_ADVICE = {
  ConversionError: " Pass only null, booleans, numbers, BigInts, strings, Buffers, arrays, plain objects, Maps, Sets and Dates, without cycles.",
  CursorError: " The sandbox still works; answer the live cursor (await sandbox.pending()); the run waits where it was.",
  SandboxClosed: " Make a new Sandbox.",
};

// By name: the library's kinds, and SandboxClosed, which the addon sends
// for a closed sandbox.
const CLASSES = {
  GuestError, GuestSyntaxError, TimeLimitError, MemoryLimitError, WorkerCrashed, Disconnected,
  ServerShutdown, ConversionError, ConfigurationError, ResultTooLarge, ProtocolError, Unauthorized,
  OverCapacity, SandboxClosed, CursorError, DumpRejected, DumpVersionMismatch, ReplayDiverged,
  Interrupted, Forked,
};

function sentence(message) {
  return message.endsWith(".") ? message : `${message}.`;
}

/** The error an addon envelope describes. */
function fromNative(error) {
  const { kind, message, advice: libraryAdvice = "", ...fields } = error;
  const Class = CLASSES[kind] ?? StockadeError;
  const advice = OWN_ADVICE[kind] ?? libraryAdvice;
  if (kind === "GuestError") {
    return new Class(`${fields.type}: ${fields.guestMessage}`, fields);
  }
  return new Class(sentence(message) + advice, fields);
}

module.exports = {
  StockadeError, GuestError, GuestSyntaxError, TimeLimitError, MemoryLimitError, WorkerCrashed,
  Disconnected, ServerShutdown, ConversionError, ConfigurationError, ResultTooLarge, ProtocolError,
  Unauthorized, OverCapacity, SandboxClosed, CursorError, DumpRejected, DumpVersionMismatch,
  ReplayDiverged, Interrupted, Forked, fromNative,
};

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

const ADVICE = {
  GuestError: "",
  GuestSyntaxError: " Fix the code and run it again; the sandbox still works.",
  ConversionError: " Pass only null, booleans, numbers, BigInts, strings, Buffers, arrays, plain objects, Maps, Sets and Dates, without cycles.",
  ConfigurationError: " Check the option named above.",
  ResultTooLarge: " The sandbox still works.",
  SandboxClosed: " Make a new Sandbox.",
  CursorError: " Answer the live cursor (await sandbox.pending()); the run waits where it was.",
  DumpVersionMismatch: " Restore it with the version of stockade that made it.",
  Forked: " Make a new Sandbox in this process.",
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
  const { kind, message, ...fields } = error;
  const Class = CLASSES[kind] ?? StockadeError;
  let advice = ADVICE[kind];
  if (advice === undefined) {
    advice = fields.sessionLost ? " The sandbox is lost; make a new one." : " The sandbox still works.";
  }
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

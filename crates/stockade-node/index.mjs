// The ES module face of index.js.
import stockade from "./index.js";

export const {
  version, Sandbox, Pool, run, Repr, Cycle, Tuple, StockadeError, GuestError, GuestSyntaxError, TimeLimitError,
  MemoryLimitError, WorkerCrashed, Disconnected, ServerShutdown, ConversionError, ConfigurationError,
  ResultTooLarge, ProtocolError, Unauthorized, OverCapacity, SandboxClosed, CursorError, DumpRejected,
  DumpVersionMismatch, ReplayDiverged, Interrupted, Forked, Float, FunctionCall, NameLookup, PendingFutures, Complete,
} = stockade;
export default stockade;

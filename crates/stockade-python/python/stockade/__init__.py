"""stockade: run code you do not trust (Python or JavaScript, typically
written by a model) in a supervised, sandboxed worker process, and get its
result back as Python values.

    import stockade

    with stockade.Sandbox("python", limits=stockade.Limits(max_duration=5)) as sandbox:
        sandbox.bind_function("lookup", lambda key: {"a": 1}.get(key))
        print(sandbox.run("lookup('a') + 41"))   # 42
"""

from ._errors import (ConfigurationError, ConversionError, CursorError, Disconnected,
                      DumpRejected, DumpVersionMismatch, Forked, GuestError, GuestSyntaxError,
                      Interrupted, MemoryLimitError, OverCapacity, ProtocolError, ReplayDiverged,
                      ResultTooLarge, ServerShutdown, StockadeError, TimeLimitError, Unauthorized,
                      WorkerCrashed)
from ._native import Mount, __version__
from ._outputs import Output
from ._pool import CHECKOUT_OPTIONS, AsyncPool, Pool
from ._progress import Complete, FunctionCall, NameLookup, PendingFutures
from ._sandbox import AsyncSandbox, ExecutionResult, Limits, Packages, Sandbox, run
from ._values import Cycle, Repr

__all__ = [
    "AsyncPool", "AsyncSandbox", "CHECKOUT_OPTIONS", "Complete", "ConfigurationError",
    "ConversionError", "CursorError", "Cycle", "Disconnected", "DumpRejected", "DumpVersionMismatch",
    "ExecutionResult", "Forked", "FunctionCall", "GuestError", "GuestSyntaxError", "Limits",
    "Interrupted", "MemoryLimitError", "Mount", "NameLookup", "Output", "OverCapacity", "Packages", "PendingFutures", "Pool",
    "ProtocolError", "ReplayDiverged", "Repr", "ResultTooLarge", "Sandbox", "ServerShutdown",
    "StockadeError",
    "TimeLimitError", "Unauthorized", "WorkerCrashed",
    "__version__", "run",
]

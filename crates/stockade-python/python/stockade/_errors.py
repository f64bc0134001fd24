"""The exceptions stockade raises. Every one derives from StockadeError, and
each message says what happened and what to do about it."""

from __future__ import annotations

from typing import Any, Optional


class StockadeError(Exception):
    """Base class of every stockade error."""


class GuestError(StockadeError):
    """The guest raised an exception it did not catch. The sandbox lives."""

    def __init__(self, message: str, *, type: str = "Exception", guest_message: str = "",
                 traceback: str = "") -> None:
        super().__init__(message)
        self.type = type
        self.message = guest_message
        self.traceback = traceback


class GuestSyntaxError(GuestError):
    """The guest code did not parse. The sandbox lives."""


class TimeLimitError(StockadeError):
    """A time limit ran out: `max_duration` (the sandbox stays out of time)
    or `request_timeout` (the worker was killed and the sandbox is lost)."""

    def __init__(self, message: str, *, limit: str = "", seconds: float = 0.0,
                 session_lost: bool = False) -> None:
        super().__init__(message)
        self.limit = limit
        self.seconds = seconds
        self.session_lost = session_lost


class MemoryLimitError(StockadeError):
    """A memory limit stopped the guest; `worker_died` tells whether the
    sandbox is lost."""

    def __init__(self, message: str, *, detail: str = "", worker_died: bool = False) -> None:
        super().__init__(message)
        self.detail = detail
        self.worker_died = worker_died


class WorkerCrashed(StockadeError):
    """The worker process died or broke the protocol; the sandbox is lost."""

    def __init__(self, message: str, *, exit_code: Optional[int] = None,
                 signal: Optional[int] = None, timed_out: bool = False,
                 detail: Optional[str] = None) -> None:
        super().__init__(message)
        self.exit_code = exit_code
        self.signal = signal
        self.timed_out = timed_out
        self.detail = detail


class Disconnected(WorkerCrashed):
    """A remote sandbox's connection to its server went away, or the server
    ended the session (silent past its idle timeout, or shutting down); the
    sandbox is lost and claims nothing about what its last run did."""


class ServerShutdown(Disconnected):
    """The server of a remote sandbox shut down and ended it. The sandbox is
    lost; when it was made with dump_keys=, `.dump` holds a sealed dump of
    it (where its engine allows one) that `Sandbox.restore` takes, here or
    against another server."""

    dump: Optional[bytes] = None


class Interrupted(WorkerCrashed):
    """An earlier run was interrupted (Ctrl-C: the run itself re-raised its
    KeyboardInterrupt) and its worker killed; the sandbox is lost."""


class Forked(StockadeError):
    """The sandbox was made by another process, of which this one is a fork;
    its worker belongs to that process. Make a new sandbox here."""


class Unauthorized(StockadeError):
    """The server of sessions refused the token (or the lack of one)."""


class OverCapacity(StockadeError):
    """The server of sessions runs all the sessions it takes (or this token
    holds all it may); nothing was started. Try again later or elsewhere."""


class ConversionError(StockadeError, TypeError):
    """A value cannot cross between host and guest; the message names the
    path inside the value. The sandbox lives."""


class ConfigurationError(StockadeError, ValueError):
    """An option is invalid, or the worker cannot be found or started."""


class ProtocolError(StockadeError):
    """The worker refused a request as malformed. The sandbox lives."""


class CursorError(StockadeError, RuntimeError):
    """A stepped run's cursor was misused: answered twice, answered with
    something that does not fit what the run waits for, or the sandbox fed
    while a cursor is live. Nothing reached the worker; the run stays
    suspended where it was."""


class DumpRejected(StockadeError):
    """A dump did not open: not a dump, altered, truncated, sealed under none
    of the keys or for another context, or of another kind of session.
    Nothing reached a worker."""


class DumpVersionMismatch(StockadeError):
    """A dump written by another version of the dump format or of the engine;
    `found` and `expected` name both."""

    def __init__(self, message: str, *, found: str = "", expected: str = "") -> None:
        super().__init__(message)
        self.found = found
        self.expected = expected


class ReplayDiverged(StockadeError):
    """Replaying a journaled dump, the guest did something other than what the
    journal holds; the message names the first differing step. The restored
    sandbox is lost."""


class ResultTooLarge(StockadeError):
    """A value from the guest (a result, or a host function's arguments)
    would take more host memory than `max_result_bytes` (`.limit`); it was
    never built. The sandbox lives."""

    def __init__(self, message: str, *, limit: Optional[int] = None) -> None:
        super().__init__(message)
        self.limit = limit


# The advice of each kind is the host library's (contract/errors.rs), sent
# with the error; for these kinds, Python's own words, naming its types and calls.
_OWN_ADVICE = {
    "ConversionError": " Pass only None, bool, int, float, str, bytes, list, tuple, dict, set, "
                       "frozenset and datetime values, without cycles.",
    "CursorError": " The sandbox still works; answer the live cursor (sandbox.pending).",
}


def _from_native(kind: str, message: str, fields: dict, advice: str = "") -> StockadeError:
    """Builds the exception for an error from the native layer: `kind` is
    the class's name (a kind this package does not know yet: a plain
    StockadeError), `advice` the host library's words on what to do next."""
    f: dict[str, Any] = dict(fields)
    advice = _OWN_ADVICE.get(kind, advice)
    if kind in ("GuestError", "GuestSyntaxError"):
        cls = GuestSyntaxError if kind == "GuestSyntaxError" else GuestError
        text = f"{f.get('type', 'Exception')}: {f.get('message', '')}"
        if cls is GuestSyntaxError:
            text = "the guest code has a syntax error: " + text + advice
        return cls(text, type=f.get("type", "Exception"), guest_message=f.get("message", ""),
                   traceback=f.get("traceback", ""))
    cls = globals().get(kind)
    if not (isinstance(cls, type) and issubclass(cls, StockadeError)):
        cls = StockadeError
    return cls(_sentence(message) + advice, **f)


def _sentence(message: str) -> str:
    return message if message.endswith(".") else message + "."

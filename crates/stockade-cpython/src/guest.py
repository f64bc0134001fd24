"""stockade's Python half of the CPython engine, run once per worker before
any guest code: what is simpler to say in Python than through the C API.

It splits a snippet into its statements and a trailing expression whose
value is the feed's result, and defines the guest's output streams and the
globals mapping whose misses ask the host. Everything that touches the link
is in Rust (the `stockade_cpython` extension module); a guest that reaches
this module can do no more with it than with its own code.
"""

import ast
import asyncio
import builtins
import io
import linecache
import time

from stockade_cpython import await_calls, emit, lookup

_BUILTINS = builtins.__dict__


class Output(io.TextIOBase):
    """sys.stdout or sys.stderr: text goes to the host's print stream."""

    def __init__(self, stream, name):
        self._stream = stream
        self._name = name

    @property
    def name(self):
        return self._name

    @property
    def encoding(self):
        return "utf-8"

    def writable(self):
        return True

    def isatty(self):
        return False

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        emit(self._stream, text)
        return len(text)

    def flush(self):
        pass


class Globals(dict):
    """The session's globals: a name found nowhere (not here, not among the
    builtins) is asked of the host, which may give a value or a function."""

    __slots__ = ()

    def __missing__(self, name):
        if name in _BUILTINS or not isinstance(name, str):
            raise KeyError(name)
        return lookup(name)


class _HostSelector:
    """The loop's only I/O: the host finishing async host calls. Waiting
    on it blocks until the host resolves at least one."""

    def __init__(self):
        self.pending = {}

    def select(self, timeout):
        if self.pending and timeout != 0:
            for call_id, failed, outcome in await_calls(list(self.pending)):
                future = self.pending.pop(call_id, None)
                if future is None or future.done():
                    continue
                if failed:
                    future.set_exception(outcome)
                else:
                    future.set_result(outcome)
        elif timeout is None:
            raise RuntimeError(
                "deadlock: the guest awaits something no host call or timer will finish")
        elif timeout > 0:
            time.sleep(timeout)
        return []

    def close(self):
        self.pending.clear()


class HostLoop(asyncio.base_events.BaseEventLoop):
    """The session's event loop: asyncio as the guest knows it (tasks,
    gather, sleep, timeouts), with async host calls as its I/O."""

    def __init__(self):
        super().__init__()
        self._selector = _HostSelector()

    def _process_events(self, event_list):
        pass

    def _write_to_self(self):
        pass

    def pending_call(self, call_id):
        """The future an async host call's result arrives in."""
        future = self.create_future()
        self._selector.pending[call_id] = future
        return future


def guest_frames(tb, filename_prefix):
    """The traceback from the guest's first frame on: the engine's own
    (the loop running a coroutine) are left out."""
    while tb is not None and not tb.tb_frame.f_code.co_filename.startswith(filename_prefix):
        tb = tb.tb_next
    return tb


def compile_feed(source, filename, flags):
    """Compiles a snippet as (statements, trailing expression or None), and
    keeps its lines for tracebacks under `filename`."""
    tree = compile(source, filename, "exec", flags=ast.PyCF_ONLY_AST | flags, dont_inherit=True)
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    body = compile(tree, filename, "exec", flags=flags, dont_inherit=True)
    if last is not None:
        last = compile(last, filename, "eval", flags=flags, dont_inherit=True)
    return body, last


class TimeLimit(TimeoutError):
    """Raised in guest code when its max_duration is spent."""

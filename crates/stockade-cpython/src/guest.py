"""stockade's Python half of the CPython engine, run once per worker before
any guest code: what is simpler to say in Python than through the C API.

It splits a snippet into its statements and a trailing expression whose
value is the feed's result, and defines the guest's output streams and the
globals mapping whose misses ask the host. Everything that touches the link
is in Rust (the `stockade_cpython` extension module); a guest that reaches
this module can do no more with it than with its own code.
"""

import ast
import builtins
import io
import linecache

from stockade_cpython import emit, lookup

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

"""stockade's Python half of the CPython engine, run once per worker before
any guest code: what is simpler to say in Python than through the C API.

It splits a snippet into its statements and a trailing expression whose
value is the feed's result, finds the names a feed reads that nothing
defines (the host is asked about those), and defines the guest's output
streams and its event loop. Everything that touches the link
is in Rust (the `stockade_cpython` extension module); a guest that reaches
this module can do no more with it than with its own code.
"""

# Only what the interpreter has loaded already or builds in (`_ast`, not
# `ast`; `linecache` when a traceback needs it): every import here is paid
# by each worker's start.
import _ast
import builtins
import io
import sys

from stockade_cpython import await_calls, emit

_BUILTINS = builtins.__dict__
_PyCF_ONLY_AST = 0x400

#: Each recent feed's source by its file name, for tracebacks (the oldest
#: are let go: a long session must not keep every snippet it ever ran).
_SOURCES = {}
_MAX_SOURCES = 1024
#: The kept file names in a ring, oldest next: finding the oldest by
#: iterating `_SOURCES` would step over every deleted slot before it.
_KEPT = [None] * _MAX_SOURCES
_next_kept = 0

#: Recent short snippets, compiled: source -> (file name, statements,
#: trailing expression, global reads). Hosts often run the same snippet
#: again with other inputs (`process(row)`), and compiling is most of a
#: short feed's cost. An entry lives while its file's source is kept, so
#: a traceback through cached code still shows its lines.
_COMPILED = {}
_MAX_COMPILED = 128
_MAX_COMPILED_SOURCE = 1000

class BuiltinLike:
    """Stands in for a built-in function the engine replaces (`os.unlink`,
    `open`, `time.time`): like a built-in, and unlike a Python function,
    it does not bind as a method when code keeps it on a class
    (`class T: _unlink = os.unlink`, then `self._unlink(path)`)."""

    def __init__(self, function, original, module):
        self._function = function
        self.__name__ = original.__name__
        self.__qualname__ = getattr(original, "__qualname__", original.__name__)
        self.__doc__ = original.__doc__
        self.__module__ = module

    def __call__(self, *args, **kwargs):
        return self._function(*args, **kwargs)

    def __reduce__(self):
        # Pickled by name, as a built-in is: `os.urandom` is found again.
        return self.__qualname__

    def __repr__(self):
        return f"<built-in function {self.__name__}>"


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


def _opcodes():
    import opcode
    m = opcode.opmap
    loads = {m[name] for name in ("LOAD_NAME", "LOAD_GLOBAL", "LOAD_FROM_DICT_OR_GLOBALS")
             if name in m}
    return (m["EXTENDED_ARG"], loads,
            {m["STORE_NAME"], m["STORE_GLOBAL"], m["DELETE_NAME"], m["DELETE_GLOBAL"]},
            m["LOAD_GLOBAL"], sys.version_info >= (3, 11))


_OPCODES = None


def _reads_and_writes(code, reads, writes):
    """Adds the global names `code` (and the code nested in it) reads and
    binds. A class body's own names are not global reads."""
    global _OPCODES
    if _OPCODES is None:
        _OPCODES = _opcodes()
    extended, loads, stores, load_global, shifted = _OPCODES
    raw = code.co_code
    arg = 0
    local_reads, local_writes = set(), set()
    for i in range(0, len(raw), 2):
        op = raw[i]
        arg = arg | raw[i + 1]
        if op == extended:
            arg <<= 8
            continue
        if op in loads:
            index = arg >> 1 if op == load_global and shifted else arg
            local_reads.add(code.co_names[index])
        elif op in stores:
            local_writes.add(code.co_names[arg])
        arg = 0
    reads.update(local_reads - local_writes)
    writes.update(local_writes)
    for const in code.co_consts:
        if hasattr(const, "co_code"):
            _reads_and_writes(const, reads, writes)


def global_reads(body, last):
    """The global names a compiled feed reads that it does not bind itself."""
    reads, writes = set(), set()
    for code in (body, last):
        if code is not None:
            _reads_and_writes(code, reads, writes)
    return frozenset(reads - writes)


def free_names(reads, namespace):
    """Of a feed's global reads, the names bound nowhere: not in the
    session's globals, not among the builtins. The host is asked about
    these before the feed runs."""
    return sorted(name for name in reads
                  if name not in namespace and name not in _BUILTINS)


_loop = None
#: HostLoop, once asyncio is loaded.
_HostLoop = None
#: Every HostLoop not yet closed: their pending host calls end with a feed.
_LOOPS = set()


def _host_loop_class():
    """Defines the event loop asyncio gets here, and makes it what asyncio
    makes (`asyncio.run`, `new_event_loop`, `get_event_loop`)."""
    global _HostLoop
    if _HostLoop is not None:
        return _HostLoop
    import asyncio
    import selectors
    import threading

    class HostSelector(selectors.DefaultSelector):
        """The process's own descriptors, as asyncio's selector watches
        them (its wake-up pair, pipes), and the host finishing async host
        calls. While a host call is pending and no descriptor is ready, it
        waits on the host alone, until it finishes at least one."""

        def __init__(self):
            super().__init__()
            self.pending = {}

        def select(self, timeout=None):
            if not self.pending:
                # Only the loop's wake-up pair watched and no other thread
                # to use it: nothing can ever end this wait.
                if (timeout is None and len(self.get_map()) <= 1
                        and threading.active_count() == 1):
                    raise RuntimeError(
                        "deadlock: the guest awaits something no host call or timer will finish")
                return super().select(timeout)
            ready = super().select(0)
            if ready or timeout == 0:
                return ready
            for call_id, failed, outcome in await_calls(list(self.pending)):
                future = self.pending.pop(call_id, None)
                if future is None or future.done():
                    continue
                if failed:
                    future.set_exception(outcome)
                else:
                    future.set_result(outcome)
            return []

        def close(self):
            self.pending.clear()
            super().close()

    class HostLoop(asyncio.SelectorEventLoop):
        """asyncio's own loop (tasks, timers, threads, pipes and socket
        pairs), with async host calls as I/O besides."""

        def __init__(self):
            self._host_calls = HostSelector()
            super().__init__(self._host_calls)
            _LOOPS.add(self)

        def close(self):
            _LOOPS.discard(self)
            super().close()

        def pending_call(self, call_id):
            """The future an async host call's result arrives in."""
            future = self.create_future()
            self._host_calls.pending[call_id] = future
            return future

    class HostPolicy(asyncio.DefaultEventLoopPolicy):
        def new_event_loop(self):
            return HostLoop()

    asyncio.set_event_loop_policy(HostPolicy())
    _HostLoop = HostLoop
    return HostLoop


def event_loop():
    """The session's event loop (top-level `await` runs on it), made the
    first time a feed needs it."""
    global _loop
    if _loop is None or _loop.is_closed():
        import asyncio
        _loop = _host_loop_class()()
        asyncio.set_event_loop(_loop)
    return _loop


class PendingCall:
    """An async host call the host left pending: awaitable on whichever of
    the session's loops awaits it (the running one, or the session's own),
    like a coroutine, which is bound to no loop until it runs."""

    __slots__ = ("call_id", "_future", "_feed")

    def __init__(self, call_id):
        self.call_id = call_id
        self._future = None
        self._feed = _FEEDS_ENDED

    def __await__(self):
        if self._feed != _FEEDS_ENDED:
            raise RuntimeError(
                "this async host call belongs to an earlier feed, which the host has finished")
        if self._future is None:
            import asyncio
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                loop = event_loop()
            if not hasattr(loop, "pending_call"):
                raise RuntimeError(
                    "async host functions can be awaited only on the session's event loops")
            self._future = loop.pending_call(self.call_id)
        return self._future.__await__()

    def __repr__(self):
        return f"<pending host call {self.call_id}>"


def pending_call(call_id):
    """What the guest gets for an async host call the host left pending."""
    return PendingCall(call_id)


#: Feeds that made async host calls and ended: a call made in one of them
#: cannot be awaited later.
_FEEDS_ENDED = 0


def forget_pending():
    """At a feed's end the host forgets the async calls still in flight:
    their futures are cancelled, and calls not yet awaited cannot be, so a
    later feed never waits on them."""
    global _FEEDS_ENDED
    _FEEDS_ENDED += 1
    for loop in list(_LOOPS):
        pending = loop._host_calls.pending
        for future in pending.values():
            future.cancel()
        pending.clear()


class _ImportHooks:
    """Finishes modules as the guest imports them: each named in `after`
    loads as usual, then its function runs on it; each named in `made`
    has no file and is made by its function."""

    def __init__(self):
        self.after = {}
        self.made = {}

    def find_spec(self, name, path=None, target=None):
        from importlib.machinery import ModuleSpec, PathFinder
        if name in self.made:
            return ModuleSpec(name, self)
        after = self.after.get(name)
        if after is None:
            return None
        spec = PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            after(module)

        spec.loader.exec_module = exec_module
        return spec

    # The loader of the modules in `made`.
    def create_module(self, spec):
        return None

    def exec_module(self, module):
        self.made[module.__name__](module)


IMPORT_HOOKS = _ImportHooks()
sys.meta_path.insert(0, IMPORT_HOOKS)
# asyncio loads as usual, then the loops it makes also wait on the host.
IMPORT_HOOKS.after["asyncio"] = lambda module: _host_loop_class()
# A template interpreter imports asyncio before this runs.
if "asyncio" in sys.modules:
    _host_loop_class()


def guest_frames(tb, filename_prefix):
    """The traceback from the guest's first frame on: the engine's own
    (the loop running a coroutine) are left out."""
    while tb is not None and not tb.tb_frame.f_code.co_filename.startswith(filename_prefix):
        tb = tb.tb_next
    return tb


def _show(linecache, filename, source):
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)


def show_sources():
    """Gives linecache every kept feed's source, so tracebacks (the
    engine's or the guest's own) show the lines; called when a traceback is
    made, since linecache may have been loaded after the feeds ran."""
    linecache = sys.modules.get("linecache")
    if linecache is None:
        return
    for filename, source in _SOURCES.items():
        if filename not in linecache.cache:
            _show(linecache, filename, source)


def _keep_source(filename, source):
    global _next_kept
    linecache = sys.modules.get("linecache")
    oldest = _KEPT[_next_kept]
    if oldest is not None:
        oldest_source = _SOURCES.pop(oldest, None)
        cached = _COMPILED.get(oldest_source)
        if cached is not None and cached[0] == oldest:
            del _COMPILED[oldest_source]
        if linecache is not None:
            linecache.cache.pop(oldest, None)
    _KEPT[_next_kept] = filename
    _next_kept = (_next_kept + 1) % _MAX_SOURCES
    _SOURCES[filename] = source
    if linecache is not None:
        _show(linecache, filename, source)


def _compile(source, filename, flags):
    """(statements or None, trailing expression or None) for a snippet."""
    # A snippet that is one expression compiles as one, at a third of the
    # cost of the statements-and-expression split below.
    try:
        return None, compile(source, filename, "eval", flags=flags, dont_inherit=True)
    except SyntaxError:
        pass
    tree = compile(source, filename, "exec", flags=_PyCF_ONLY_AST | flags, dont_inherit=True)
    last = None
    if tree.body and isinstance(tree.body[-1], _ast.Expr):
        last = _ast.Expression(tree.body.pop().value)
    body = compile(tree, filename, "exec", flags=flags, dont_inherit=True)
    if last is not None:
        last = compile(last, filename, "eval", flags=flags, dont_inherit=True)
    return body, last


def _names_nothing(code):
    """Whether compiled code reads no names and holds no code of its own
    (`1 + 1`, not a lambda or a comprehension): it needs no scan."""
    return not code.co_names and not any(hasattr(c, "co_code") for c in code.co_consts)


def compile_feed(source, filename, flags, namespace):
    """Compiles a snippet as (statements or None, trailing expression or
    None, the names it reads that nothing defines), and keeps its source
    for tracebacks under `filename`. A short snippet compiled recently is
    not compiled again: its code keeps the file name it was first run as,
    whose source is the same text."""
    cached = _COMPILED.get(source)
    if cached is not None:
        _, body, last, reads = cached
        return body, last, free_names(reads, namespace) if reads else ()
    kept = not filename.startswith("<")
    if kept:
        _keep_source(filename, source)
    body, last = _compile(source, filename, flags)
    if body is None and _names_nothing(last):
        reads = frozenset()
    else:
        reads = global_reads(body, last)
    if kept and len(source) <= _MAX_COMPILED_SOURCE:
        if len(_COMPILED) >= _MAX_COMPILED:
            _COMPILED.clear()
        _COMPILED[source] = (filename, body, last, reads)
    return body, last, free_names(reads, namespace) if reads else ()


def feed_ended(message):
    """The class of the RuntimeError a guest meets when the host ends its
    feed (the engine raises it at once, and again at the guest's next
    loop turn or call should it catch the first)."""

    class FeedEnded(RuntimeError):
        def __init__(self, *args):
            super().__init__(message)

    return FeedEnded


class TimeLimit(TimeoutError):
    """Raised in guest code when its max_duration is spent."""

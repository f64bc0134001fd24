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
    import time

    class HostSelector:
        """The loop's only I/O: the host finishing async host calls.
        Waiting on it blocks until the host resolves at least one."""

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
        """asyncio as the guest knows it (tasks, gather, sleep, timeouts),
        with async host calls as its I/O."""

        def __init__(self):
            super().__init__()
            self._selector = HostSelector()
            _LOOPS.add(self)

        def _process_events(self, event_list):
            pass

        def _write_to_self(self):
            pass

        def close(self):
            _LOOPS.discard(self)
            super().close()

        def pending_call(self, call_id):
            """The future an async host call's result arrives in."""
            future = self.create_future()
            self._selector.pending[call_id] = future
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
        pending = loop._selector.pending
        for future in pending.values():
            future.cancel()
        pending.clear()


class _AsyncioHook:
    """Loads asyncio as usual when the guest imports it, then makes its
    event loops the host's (asyncio's own need sockets the sandbox
    refuses)."""

    def find_spec(self, name, path=None, target=None):
        if name != "asyncio":
            return None
        from importlib.machinery import PathFinder
        spec = PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            _host_loop_class()

        spec.loader.exec_module = exec_module
        return spec


sys.meta_path.insert(0, _AsyncioHook())
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


#: The clocks a journaled session reads through the host's journal, by
#: kind (journal.rs: 0 the wall clock; 1 to 3 steady, never backwards
#: across a restore; 4 per thread): the `time` function for seconds, and
#: its nanosecond twin.
_CLOCKS = (("time", "time_ns"), ("monotonic", "monotonic_ns"),
           ("perf_counter", "perf_counter_ns"), ("process_time", "process_time_ns"),
           ("thread_time", "thread_time_ns"))

#: Set by `journal`: mixes a seed from the host into the session's stream.
_reseed = None


def _named_like(function, original, module):
    """`function`, named and documented as the `original` it stands for."""
    function.__name__ = original.__name__
    function.__qualname__ = getattr(original, "__qualname__", original.__name__)
    function.__module__ = module
    function.__doc__ = original.__doc__
    return function



def _read_wall_clock_through(wall, replace_class_attribute):
    """Makes everything that reads the wall clock read `wall()` instead:
    `time.localtime`, `gmtime`, `ctime`, `asctime` and `strftime` when
    given no time, and `datetime.now`/`utcnow` (`date.today` asks
    `time.time`, which the caller has replaced)."""
    import datetime
    import gc
    import time

    # The functions that read the wall clock when given no time (or None).
    def now_unless_given(convert):
        def converted(secs=None):
            return convert(wall() if secs is None else secs)
        return _named_like(converted, convert, "time")

    for name in ("localtime", "gmtime", "ctime"):
        setattr(time, name, now_unless_given(getattr(time, name)))
    # These take a time tuple, which only leaving it out replaces (None is
    # a TypeError, as it is without the journal).
    missing = object()
    asctime, strftime, localtime = time.asctime, time.strftime, time.localtime

    def asctime_(t=missing):
        return asctime(localtime() if t is missing else t)

    def strftime_(format, t=missing):
        return strftime(format, localtime() if t is missing else t)

    time.asctime = _named_like(asctime_, asctime, "time")
    time.strftime = _named_like(strftime_, strftime, "time")

    # `date.today()` asks `time.time()` already; `now` and `utcnow` read
    # the system clock in C, so the class's own dict takes new ones.
    moment = datetime.datetime
    own = gc.get_referents(moment.__dict__)
    if len(own) != 1 or not isinstance(own[0], dict) or own[0].get("now") is not moment.__dict__["now"]:
        raise RuntimeError("cannot replace datetime.now on this interpreter")

    def now(cls, tz=None):
        return cls.fromtimestamp(wall(), tz)

    def utcnow(cls):
        return cls.utcfromtimestamp(wall())

    for function in (now, utcnow):
        original = getattr(moment, function.__name__)
        function.__qualname__ = "datetime." + function.__name__
        function.__module__ = "datetime"
        function.__doc__ = original.__doc__
        replace_class_attribute(moment, own[0], function.__name__, classmethod(function))


def journal(seed):
    """Makes a dumpable session's outside world replayable (the host keeps
    a journal of it): every clock the `time` and `datetime` modules read
    goes through the journal, and `os.urandom`, `os.getrandom` and every
    `random` generator seeded from the system draw from a SHAKE-256 stream
    keyed by `seed` instead. A replay in a fresh worker with the same seed
    and the journal's readings then sees what the session saw."""
    global _reseed
    import gc
    import itertools
    import operator
    import os
    import time
    import datetime
    import random
    import stockade_cpython
    from _sha3 import shake_256

    read_clock = stockade_cpython.read_clock
    replace_class_attribute = stockade_cpython.replace_class_attribute

    def clock_pair(kind, seconds_name, ns_name):
        live = getattr(time, seconds_name)

        def seconds():
            return read_clock(kind, live())

        def nanoseconds():
            return int(read_clock(kind, live()) * 1e9)

        setattr(time, seconds_name, _named_like(seconds, live, "time"))
        setattr(time, ns_name, _named_like(nanoseconds, getattr(time, ns_name), "time"))

    for kind, (seconds_name, ns_name) in enumerate(_CLOCKS):
        clock_pair(kind, seconds_name, ns_name)
    wall = time.time

    _read_wall_clock_through(wall, replace_class_attribute)

    # Randomness: SHAKE-256 over the key and a call counter (one call per
    # draw, whatever its size; the counter is atomic across threads).
    key = [shake_256(b"stockade urandom\0" + seed.to_bytes(8, "little")).digest(32)]
    calls = itertools.count()

    def urandom(size):
        size = operator.index(size)
        if size < 0:
            raise ValueError("negative argument not allowed")
        if size > sys.maxsize:
            raise OverflowError("Python int too large to convert to C ssize_t")
        return shake_256(key[0] + next(calls).to_bytes(8, "little")).digest(size)

    def getrandom(size, flags=0):
        operator.index(flags)
        return urandom(size)

    os.urandom = _named_like(urandom, os.urandom, "os")
    os.getrandom = _named_like(getrandom, os.getrandom, "os")
    random._urandom = os.urandom
    seed_from = random.Random.seed

    def seeded(self, a=None, version=2):
        if a is None:
            a = int.from_bytes(os.urandom(32), "little")
        return seed_from(self, a, version)

    random.Random.seed = _named_like(seeded, seed_from, "random")
    random.seed = random._inst.seed
    random._inst.seed()

    def reseed(more):
        key[0] = shake_256(key[0] + b"reseed\0" + more.to_bytes(8, "little")).digest(32)
        random._inst.seed()

    _reseed = reseed
    # The hash seed was for the interpreter's start; the guest's
    # environment is as empty as any session's.
    os.environ.pop("PYTHONHASHSEED", None)
    # The journal's own entry points stay with the closures above.
    del stockade_cpython.read_clock, stockade_cpython.replace_class_attribute


def reseed(more):
    """Mixes `more` (from the host, after a restore) into the session's
    random stream, and reseeds `random`'s generator from it."""
    if _reseed is None:
        raise RuntimeError("this session does not journal its randomness")
    _reseed(more)


# -- Mounted files (docs/files.md) -----------------------------------------
#
# A path under one of the session's mounts is the host's to serve: `open`,
# `os.stat`/`lstat`, `listdir`, `scandir`, `mkdir`, `remove`/`unlink`,
# `rmdir`, `rename`/`replace` and `access` send it to the host as an OS
# call (as monty names them), and everything built on them (pathlib,
# os.path, glob, shutil, csv, pandas) follows. Any other path goes to the
# real function, under the sandbox; when that fails and the host has an
# `os_handler`, the call goes to the host after all, for the handler.

_ERRNO = {"FileNotFoundError": 2, "PermissionError": 13, "FileExistsError": 17,
          "IsADirectoryError": 21, "NotADirectoryError": 20}


def mount_files(os_call):
    """Puts the host's mounts under the guest's file functions; `os_call(name,
    args)` asks the host (True, value) or (False, (type, message))."""
    import builtins
    import errno as _errno_module
    import io
    import os
    import stat as _stat

    real = {name: getattr(os, name) for name in
            ("stat", "lstat", "listdir", "scandir", "mkdir", "remove", "unlink", "rmdir",
             "rename", "replace", "access")}
    real_open = io.open
    prefixes = []
    handled = []
    asked = []

    def learned():
        """Whether the host said where the mounts are (asked once a
        session, inside a feed: outside one the host cannot be reached)."""
        if not asked:
            try:
                ok, found = os_call("stockade.mounts", [])
            except RuntimeError:
                return False
            if not ok:
                return False
            prefixes.extend(found[0])
            handled.extend([True] if found[1] else [])
            asked.append(True)
        return True

    def normal(path):
        """`path` as a normalised absolute guest path, or None."""
        if isinstance(path, int):
            return None
        try:
            path = os.fspath(path)
        except TypeError:
            return None
        if isinstance(path, bytes):
            path = path.decode("utf-8", "surrogateescape")
        parts = []
        for part in ("/" + path if not path.startswith("/") else path).split("/"):
            if part in ("", "."):
                continue
            if part == "..":
                if parts:
                    parts.pop()
            else:
                parts.append(part)
        return "/" + "/".join(parts)

    def mounted(path):
        """The normalised guest path when `path` lies under a mount."""
        if not learned() or not prefixes:
            return None
        target = normal(path)
        if target is None:
            return None
        for prefix in prefixes:
            if prefix == "/" or target == prefix or target.startswith(prefix + "/"):
                return target
        return None

    def either(path, usable, real_call, host_call):
        """The host's answer for a mounted path; else the real call, and
        the host's (its `os_handler`'s) when that fails and there is one."""
        target = mounted(path) if usable else None
        if target is not None:
            return host_call(target)
        try:
            return real_call()
        except (FileNotFoundError, PermissionError):
            target = normal(path) if usable and learned() and handled else None
            if target is None:
                raise
            return host_call(target)

    def fail(kind, message, path, path2=None):
        number = _ERRNO.get(kind)
        if number is not None:
            cls = getattr(builtins, kind)
            # The host's reason, when it says more than the errno does.
            at = message.rfind(" (")
            detail = message[at:] if at != -1 and message.endswith(")") else ""
            raise cls(number, os.strerror(number) + detail, path,
                      *(() if path2 is None else (None, path2)))
        if kind == "OSError" and "not empty" in message:
            raise OSError(_errno_module.ENOTEMPTY, os.strerror(_errno_module.ENOTEMPTY), path)
        if kind == "OSError" and ("cross" in message or "mount" in message):
            raise OSError(_errno_module.EXDEV, os.strerror(_errno_module.EXDEV), path, None, path2)
        cls = getattr(builtins, kind, None)
        if not (isinstance(cls, type) and issubclass(cls, BaseException)):
            cls = OSError
        raise cls(message)

    def call(name, path, *args, path2=None):
        ok, value = os_call(name, [path, *args])
        if ok:
            return value
        fail(value[0], value[1], path, path2)

    class MountedFile(io.BytesIO):
        """A mounted file: its bytes in memory, sent to the host on flush
        and close (whole, or what was appended)."""

        def __init__(self, path, kind, plus, data):
            super().__init__(data)
            self.name = path
            self._kind, self._plus = kind, plus
            self._dirty = False
            self._appended = len(data)
            if kind == "a":
                self.seek(0, 2)

        def readable(self):
            return self._kind == "r" or self._plus

        def writable(self):
            return self._kind != "r" or self._plus

        def read(self, *args):
            if not self.readable():
                raise io.UnsupportedOperation("not readable")
            return super().read(*args)

        def read1(self, *args):
            if not self.readable():
                raise io.UnsupportedOperation("not readable")
            return super().read1(*args)

        def readinto(self, buffer):
            if not self.readable():
                raise io.UnsupportedOperation("not readable")
            return super().readinto(buffer)

        def write(self, data):
            if not self.writable():
                raise io.UnsupportedOperation("not writable")
            if self._kind == "a":
                self.seek(0, 2)
            self._dirty = True
            return super().write(data)

        def truncate(self, size=None):
            if not self.writable():
                raise io.UnsupportedOperation("not writable")
            self._dirty = True
            return super().truncate(size)

        def flush(self):
            if not self.closed and self._dirty:
                if self._kind == "a":
                    call("Path.append_bytes", self.name, bytes(self.getbuffer()[self._appended:]))
                    self._appended = len(self.getbuffer())
                else:
                    call("Path.write_bytes", self.name, self.getvalue())
                self._dirty = False
            super().flush()

        def close(self):
            if not self.closed:
                try:
                    self.flush()
                finally:
                    super().close()

        def fileno(self):
            raise io.UnsupportedOperation("a mounted file has no descriptor")

    def open_(file, mode="r", buffering=-1, encoding=None, errors=None, newline=None,
              closefd=True, opener=None):
        return either(file, opener is None,
                      lambda: real_open(file, mode, buffering, encoding, errors, newline,
                                        closefd, opener),
                      lambda path: host_open(path, mode, encoding, errors, newline))

    def host_open(path, mode, encoding, errors, newline):
        kinds = [k for k in "rwax" if k in mode]
        if not isinstance(mode, str) or len(kinds) != 1 or set(mode) - set("rwaxbt+"):
            raise ValueError(f"invalid mode: {mode!r}")
        kind, plus, binary = kinds[0], "+" in mode, "b" in mode
        if binary and encoding is not None:
            raise ValueError("binary mode doesn't take an encoding argument")
        if kind == "r":
            data = call("Path.read_bytes", path)
        elif kind == "x":
            if call("Path.exists", path):
                fail("FileExistsError", "exists", path)
            call("Path.write_bytes", path, b"")
            data = b""
        elif kind == "w":
            call("Path.write_bytes", path, b"")
            data = b""
        else:
            call("Path.append_bytes", path, b"")
            data = call("Path.read_bytes", path) if plus else b""
        raw = MountedFile(path, kind, plus, data)
        if kind == "a" and not plus:
            raw._appended = 0
        if binary:
            raw.mode = mode
            return raw
        text = io.TextIOWrapper(raw, encoding=encoding, errors=errors, newline=newline,
                                write_through=True)
        text.mode = mode
        return text

    def host_stat(target):
        return os.stat_result(tuple(call("Path.stat", target)))

    def stat_(path, *, dir_fd=None, follow_symlinks=True):
        return either(path, dir_fd is None,
                      lambda: real["stat"](path, dir_fd=dir_fd, follow_symlinks=follow_symlinks),
                      host_stat)

    def lstat_(path, *, dir_fd=None):
        return either(path, dir_fd is None, lambda: real["lstat"](path, dir_fd=dir_fd), host_stat)

    def host_listdir(target):
        return [entry.rsplit("/", 1)[-1] for entry in call("Path.iterdir", target)]

    def listdir_(path="."):
        return either(path, True, lambda: real["listdir"](path), host_listdir)

    class Entry:
        """os.DirEntry for a mounted directory's entry."""

        def __init__(self, directory, name):
            self.name = name
            self.path = directory.rstrip("/") + "/" + name if directory != "/" else "/" + name

        def stat(self, *, follow_symlinks=True):
            return stat_(self.path)

        def is_dir(self, *, follow_symlinks=True):
            try:
                return _stat.S_ISDIR(self.stat().st_mode)
            except OSError:
                return False

        def is_file(self, *, follow_symlinks=True):
            try:
                return _stat.S_ISREG(self.stat().st_mode)
            except OSError:
                return False

        def is_symlink(self):
            return False

        def inode(self):
            return self.stat().st_ino

        def __fspath__(self):
            return self.path

        def __repr__(self):
            return f"<DirEntry {self.name!r}>"

    class Scan:
        def __init__(self, entries):
            self._entries = iter(entries)

        def __iter__(self):
            return self

        def __next__(self):
            return next(self._entries)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.close()

        def close(self):
            self._entries = iter(())

    def scandir_(path="."):
        return either(path, True, lambda: real["scandir"](path),
                      lambda target: Scan([Entry(os.fspath(path), name)
                                           for name in host_listdir(target)]))

    def mkdir_(path, mode=0o777, *, dir_fd=None):
        return either(path, dir_fd is None, lambda: real["mkdir"](path, mode, dir_fd=dir_fd),
                      lambda target: call("Path.mkdir", target, False, False))

    def unlink_(path, *, dir_fd=None):
        return either(path, dir_fd is None, lambda: real["unlink"](path, dir_fd=dir_fd),
                      lambda target: call("Path.unlink", target))

    def rmdir_(path, *, dir_fd=None):
        return either(path, dir_fd is None, lambda: real["rmdir"](path, dir_fd=dir_fd),
                      lambda target: call("Path.rmdir", target))

    def rename_(src, dst, *, src_dir_fd=None, dst_dir_fd=None):
        source, target = mounted(src), mounted(dst)
        if source is None and target is None:
            return real["rename"](src, dst, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd)
        if source is None or target is None:
            raise OSError(_errno_module.EXDEV, os.strerror(_errno_module.EXDEV), os.fspath(src), None, os.fspath(dst))
        call("Path.rename", source, target, path2=target)

    def access_(path, mode, *, dir_fd=None, effective_ids=False, follow_symlinks=True):
        target = mounted(path) if dir_fd is None else None
        if target is None:
            return real["access"](path, mode, dir_fd=dir_fd, effective_ids=effective_ids,
                                  follow_symlinks=follow_symlinks)
        return bool(call("Path.exists", target))

    for function, original in ((open_, real_open), (stat_, real["stat"]), (lstat_, real["lstat"]),
                               (listdir_, real["listdir"]), (scandir_, real["scandir"]),
                               (mkdir_, real["mkdir"]), (unlink_, real["unlink"]),
                               (rmdir_, real["rmdir"]), (rename_, real["rename"]),
                               (access_, real["access"])):
        function.__name__ = function.__qualname__ = original.__name__
        function.__doc__ = original.__doc__
        function.__module__ = "io" if original is real_open else "os"
    builtins.open = io.open = open_
    os.stat, os.lstat, os.listdir, os.scandir = stat_, lstat_, listdir_, scandir_
    os.mkdir, os.unlink, os.remove, os.rmdir = mkdir_, unlink_, unlink_, rmdir_
    os.rename, os.replace, os.access = rename_, rename_, access_



def freeze_clock(at, replace_class_attribute):
    """The host froze the session's clock at `at` (seconds since the
    epoch): `time.time`, `time.time_ns` and everything that reads the wall
    clock give that instant. The steady clocks run on (timeouts work)."""
    import time

    def frozen():
        return at

    def frozen_ns():
        return int(at * 1e9)

    time.time = _named_like(frozen, time.time, "time")
    time.time_ns = _named_like(frozen_ns, time.time_ns, "time")
    _read_wall_clock_through(time.time, replace_class_attribute)


def adopt_world(environ, frozen_at, replace_class_attribute):
    """The world the host chose for the session, taken before any guest
    code runs: the environment (`os.environ` holds it and nothing else) and,
    when frozen, the clock (`frozen_at`, seconds since the epoch)."""
    import os

    os.environ.clear()
    os.environ.update(environ)
    if frozen_at is not None:
        freeze_clock(frozen_at, replace_class_attribute)

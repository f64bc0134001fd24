"""Sandbox and AsyncSandbox: one guest session in one supervised worker."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as _dt
import inspect
import os
import sys
from pathlib import Path
import functools
from typing import (Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple,
                    Union)

from . import _native
from ._errors import ConfigurationError, ServerShutdown, StockadeError
from ._outputs import Output, OutputCallback, receiver
from ._progress import Progress, _progress

PrintCallback = Callable[[str, str], Any]

#: Where the package keeps its worker binary.
WORKER = Path(__file__).resolve().parent / "bin" / "stockade-worker"

#: Bytes of stdout and of stderr `execute` keeps (the host library's default).
DEFAULT_STREAM_LIMIT = _native.DEFAULT_MAX_STREAM_BYTES
#: Host memory a result of `execute` may take (as `max_result_bytes` counts
#: it; the host library's default).
DEFAULT_RESULT_LIMIT = _native.DEFAULT_EXECUTE_RESULT_BYTES


@dataclasses.dataclass(frozen=True)
class Limits:
    """Limits enforced in the worker. `None` leaves the default; see
    docs/limits.md for each one."""

    #: Seconds of guest execution, cumulative across runs (default: none).
    max_duration: Optional[float] = None
    #: Bytes of guest heap (default 1 GiB); 0 removes the limit.
    max_memory: Optional[int] = None
    #: Deepest guest call stack for Python guests (default 1,000).
    max_recursion_depth: Optional[int] = None
    #: Bytes of print output one run may send (default 8 MiB).
    max_output_bytes: Optional[int] = None
    #: Bytes the private scratch directory (/tmp, also TMPDIR, HOME and the
    #: working directory) may hold (default 256 MiB): a tmpfs in a CPython
    #: worker, the host's memory for monty and JavaScript; a write past it
    #: fails with ENOSPC in the guest. 0: no scratch directory.
    max_scratch_bytes: Optional[int] = None
    #: JavaScript: bytes of engine heap (default: max_memory).
    max_heap_size: Optional[int] = None
    #: JavaScript: live ArrayBuffer bytes (default: a quarter of max_memory).
    max_buffer_bytes: Optional[int] = None
    #: JavaScript: native stack bytes, 64 KiB to 128 MiB (default 8 MiB).
    max_stack_bytes: Optional[int] = None


class Packages:
    """Packages CPython guests may import, installed on the host by uv
    (wheels only, never by the guest) into a cache every later sandbox and
    pool reuses: ``Sandbox("python", packages=Packages(["pandas==3.1.1"]))``.
    A plain list of requirements does the same."""

    __slots__ = ("requirements",)

    def __init__(self, requirements: Iterable[str]) -> None:
        if isinstance(requirements, str):
            requirements = [requirements]
        object.__setattr__(self, "requirements", tuple(requirements))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Packages is immutable")

    def __repr__(self) -> str:
        return f"Packages({list(self.requirements)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Packages) and other.requirements == self.requirements

    def __hash__(self) -> int:
        return hash(self.requirements)


@dataclasses.dataclass(frozen=True)
class ExecutionResult:
    """What `execute` returns: it never raises for the run's own failure."""

    #: "ok" or "error".
    status: str
    stdout: str
    stderr: str
    #: The result when status is "ok", else None.
    result: Any
    #: The error's message when status is "error".
    error: Optional[str]
    #: The guest's exception class ("ZeroDivisionError", "SyntaxError"), or
    #: the name of the stockade exception that stopped the run
    #: ("TimeLimitError", "MemoryLimitError", "WorkerCrashed",
    #: "ConversionError", "ResultTooLarge"), as the MCP tools and the Node
    #: package name them.
    error_type: Optional[str]
    #: Whether stdout or stderr was cut at the stream limit.
    truncated: bool
    #: The rich outputs the guest showed (charts, tables), in order.
    outputs: List[Output] = dataclasses.field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status == "ok"


#: The keyword options a Sandbox takes besides limits=, sandbox= and worker=:
#: the host library's options, less those Limits holds.
_KEYWORD_OPTIONS = tuple(
    name for name in _native.SESSION_OPTIONS
    if name not in {field.name for field in dataclasses.fields(Limits)} | {"sandbox", "worker"}
) + ("mounts",)


def _options(language: str, limits: Optional[Limits], sandbox: str,
             worker: Optional[Union[str, os.PathLike]], extra: Mapping[str, Any]) -> Dict[str, Any]:
    unknown = set(extra) - set(_KEYWORD_OPTIONS)
    if unknown:
        raise ConfigurationError(
            f"unknown option {sorted(unknown)[0]!r}; the options are limits=, sandbox=, "
            f"worker=, {', '.join(_KEYWORD_OPTIONS)}")
    options: Dict[str, Any] = {"sandbox": sandbox}
    path = worker if worker is not None else (WORKER if WORKER.exists() else None)
    if path is not None:
        options["worker"] = os.fspath(path)
    if limits is not None:
        if not isinstance(limits, Limits):
            raise ConfigurationError("limits= takes a stockade.Limits")
        options.update({k: v for k, v in dataclasses.asdict(limits).items() if v is not None})
    for key, value in extra.items():
        if value is None:
            continue
        if key == "clock" and isinstance(value, _dt.datetime):
            if value.tzinfo is None:
                raise ConfigurationError("clock must be \"real\" or a timezone-aware datetime")
            value = value.timestamp()
        if key == "python":
            value = os.fspath(value)
        if key == "mounts" and isinstance(value, _native.Mount):
            value = [value]
        if key == "site_packages":
            if isinstance(value, (str, os.PathLike)):
                value = [value]
            value = [os.path.abspath(os.fspath(path)) for path in value]
        if key == "packages":
            value = list(Packages(value.requirements if isinstance(value, Packages) else value)
                         .requirements)
        options[key] = value
    # Python guests run on CPython unless engine="monty" says otherwise: the
    # interpreter running this package (any the package installs on runs
    # the engine: docs/install.md), unless python= names another.
    if language == "python" and options.get("engine") in (None, "cpython") \
            and "python" not in options and sys.executable:
        options["python"] = sys.executable
    return options


def _execute_limits(max_stream_bytes: int, max_result_bytes: int) -> None:
    for name, value in (("max_stream_bytes", max_stream_bytes),
                        ("max_result_bytes", max_result_bytes)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0 \
                or value >= 2 ** 63:
            raise ConfigurationError(f"{name}= takes a number of bytes, not {value!r}")


def _execution(parts: tuple) -> ExecutionResult:
    """The ExecutionResult of what the native execute returned (the host
    library's Session::execute: its capping rule and its error_type)."""
    stdout, stderr, truncated, outputs, result, error, error_type = parts
    shown = [Output(mime_type, data, text) for mime_type, data, text in outputs]
    if error is None:
        return ExecutionResult("ok", stdout, stderr, result, None, None, truncated, shown)
    return ExecutionResult("error", stdout, stderr, None, str(error), error_type, truncated,
                           shown)


class _Base:
    """What Sandbox and AsyncSandbox share: options, the native session,
    fork detection and host functions."""

    def __init__(self, language: str = "python", *, limits: Optional[Limits] = None,
                 sandbox: str = "auto", worker: Optional[Union[str, os.PathLike]] = None,
                 dump_keys: Optional[Sequence[bytes]] = None,
                 dump_context: Union[str, bytes, None] = None, **options: Any) -> None:
        self._seal = _seal(dump_keys, dump_context)
        os_handler = options.pop("os_handler", None)
        if os_handler is not None and not callable(os_handler):
            raise ConfigurationError("os_handler= takes a callable(name, args, kwargs)")
        settings = _options(language, limits, sandbox, worker, options)
        if self._seal is not None:
            # A session that may be dumped keeps what a dump needs from its start.
            settings["dumpable"] = True
        self._adopt(language, settings, None)
        if os_handler is not None:
            self._native.set_os_handler(os_handler)

    def _adopt(self, language: str, options: Dict[str, Any],
               native: Optional[_native.NativeSession]) -> None:
        """Sets the sandbox up around `native` (a pool's checkout), or a
        new session when it is None."""
        if not hasattr(self, "_seal"):
            self._seal = None
        self.language = language
        self._options = options
        self._functions: Dict[str, Callable[..., Any]] = {}
        self._pid = os.getpid()
        self._native = native if native is not None else _native.NativeSession(language, options)

    def _executed(self, native: _native.NativeSession, parts: tuple) -> ExecutionResult:
        execution = _execution(parts)
        error = parts[5]
        if isinstance(error, ServerShutdown):
            self._attach_dump(native, error)
        return execution

    @classmethod
    def _from_native(cls, language: str, options: Dict[str, Any],
                     native: _native.NativeSession) -> "_Base":
        sandbox = cls.__new__(cls)
        sandbox._adopt(language, options, native)
        return sandbox

    def _session(self) -> _native.NativeSession:
        if self._native is None:
            raise ConfigurationError("the sandbox is closed")
        if os.getpid() != self._pid:
            # A forked child never touches its parent's worker: it starts its
            # own, with the same options and functions, but none of the state.
            self._native = _native.NativeSession(self.language, self._options)
            self._pid = os.getpid()
            for name, function in self._functions.items():
                self._register(self._native, name, function)
        return self._native

    def _register(self, native: _native.NativeSession, name: str,
                  function: Callable[..., Any]) -> None:
        native.register(name, function)

    def bind_function(self, name: str, function: Callable[..., Any]) -> None:
        """Makes `function` callable from the guest as `name` for the
        sandbox's life. Its exceptions are raised in the guest."""
        if not callable(function):
            raise ConfigurationError(f"bind_function({name!r}) needs a callable")
        self._functions[name] = function
        self._register(self._session(), name, function)

    def _attach_dump(self, native: _native.NativeSession, shutdown: "ServerShutdown") -> None:
        """A remote sandbox whose server shut down still dumps (from the
        image the server sent, or its journal): the dump rides on the
        exception when the sandbox was made with dump_keys=."""
        if self._seal is None:
            return
        keys, context = self._seal
        try:
            shutdown.dump = native.dump(keys, context)
        except StockadeError:
            shutdown.dump = None

    def _sealing(self) -> Tuple[list, bytes]:
        if self._seal is None:
            raise ConfigurationError(
                "dumps are always sealed: make the sandbox with dump_keys=[key] (at least 32 "
                "random bytes) and dump_context= (a tenant or conversation id)")
        return self._seal

    def restore_into(self, data: bytes, *, dump_keys: Optional[Sequence[bytes]] = None,
                     dump_context: Union[str, bytes, None] = None) -> None:
        """Restores a dump (see `restore`) into this sandbox, which must not
        have run anything yet: a pool's fresh checkout, say. The keys and
        context given here (else the sandbox's) also seal its later dumps."""
        if dump_keys is not None or dump_context is not None:
            self._seal = _seal(dump_keys, dump_context)
        keys, context = self._sealing()
        self._session().restore_into(keys, context, bytes(data))

    @property
    def pending(self) -> Optional[Progress]:
        """The cursor a stepped run waits at (see `start`), or None."""
        described = self._session().pending()
        return None if described is None else _progress(self, described)

    @property
    def sandbox_report(self) -> Dict[str, Any]:
        """Which OS sandbox layers are in force: mode, applied, missing
        (layer: reason), notes."""
        return self._session().sandbox_report

    @property
    def worker_pid(self) -> int:
        return self._session().worker_pid

    @property
    def prestarted(self) -> bool:
        """Whether the worker was started ahead of this sandbox (by a pool,
        or as the spare a previous sandbox left), so it paid no cold start."""
        return self._session().prestarted

    @property
    def closed(self) -> bool:
        return self._native is None

    @property
    def lost(self) -> bool:
        """Whether the sandbox can run nothing more: closed, or its worker
        ended by a limit that loses it (`request_timeout`, the memory
        ceiling) or by a crash. A new Sandbox starts afresh."""
        return self._native is None or self._native.is_lost

    def close(self) -> None:
        """Ends the worker. Closing twice does nothing."""
        native, self._native = self._native, None
        if native is not None and os.getpid() == self._pid:
            native.close()

    def _bind_call_functions(self, native: _native.NativeSession,
                             functions: Optional[Mapping[str, Callable[..., Any]]]) -> list:
        added = []
        for name, function in (functions or {}).items():
            if not callable(function):
                raise ConfigurationError(f"functions[{name!r}] is not callable")
            self._register(native, name, function)
            added.append(name)
        return added

    def _unbind_call_functions(self, native: _native.NativeSession, added: list) -> None:
        if native.closed:
            return
        for name in added:
            if name in self._functions:
                self._register(native, name, self._functions[name])
            else:
                native.unregister(name)


class Sandbox(_Base):
    """One guest session (Python or JavaScript) in one sandboxed worker.
    Globals persist across runs. Use it as a context manager, or call close().

        with stockade.Sandbox() as sandbox:
            sandbox.run("x = 40")
            assert sandbox.run("x + 2") == 42

    With `remote="ws://HOST:PORT", token=...` the worker runs on a server
    of sessions (`stockade serve`); host functions, mounts and this side's
    limits stay here, and the server's ceilings win (docs/remote.md).
    """

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _register(self, native: _native.NativeSession, name: str,
                  function: Callable[..., Any]) -> None:
        if inspect.iscoroutinefunction(function):
            raise ConfigurationError(
                f"{name!r} is a coroutine function; use stockade.AsyncSandbox for async host functions")
        native.register(name, function)

    def run(self, code: str, *, inputs: Optional[Mapping[str, Any]] = None,
            functions: Optional[Mapping[str, Callable[..., Any]]] = None,
            print: Optional[PrintCallback] = None,
            on_output: Optional[OutputCallback] = None) -> Any:
        """Runs `code` after binding `inputs` as globals; `functions` are
        host functions for this run only. Guest output goes to `print(stream,
        text)`, or to sys.stdout/sys.stderr; each rich output (a chart,
        `display(df)`) to `on_output(Output)`, or a note on stderr. Returns
        the value of the last expression; raises a StockadeError subclass
        on failure."""
        return self._run(code, inputs, functions, print, None, on_output)

    def _run(self, code: str, inputs: Optional[Mapping[str, Any]],
             functions: Optional[Mapping[str, Callable[..., Any]]],
             print: Optional[PrintCallback], max_result_bytes: Optional[int],
             on_output: Optional[OutputCallback]) -> Any:
        native = self._session()
        output = receiver(on_output)
        added = self._bind_call_functions(native, functions)
        try:
            return native.run(code, dict(inputs) if inputs else None, print, max_result_bytes,
                              output)
        except ServerShutdown as shutdown:
            self._attach_dump(native, shutdown)
            raise
        finally:
            self._unbind_call_functions(native, added)

    def start(self, code: str, *, inputs: Optional[Mapping[str, Any]] = None,
              functions: Iterable[str] = (), print: Optional[PrintCallback] = None,
              on_output: Optional[OutputCallback] = None) -> Progress:
        """Starts `code` as a stepped run: it stops at each host call, name
        lookup and await, and returns a cursor (FunctionCall, NameLookup,
        PendingFutures) whose answer returns the next one, until Complete.
        The host answers every call itself, bound functions included;
        `functions` names more the guest may call (for the sandbox's life;
        `run` raises NameError for them)."""
        described = self._session().start(code, dict(inputs) if inputs else None, print,
                                          _names(functions), receiver(on_output))
        return _progress(self, described)

    def _answer(self, cursor: int, how: str, fields: Dict[str, Any]) -> Progress:
        return _progress(self, self._session().answer(cursor, how, **fields))

    def dump(self) -> bytes:
        """The sandbox as sealed bytes: between runs, or suspended at a
        cursor (a restored sandbox then holds it again as `pending`). Sealed
        under the first of `dump_keys` and bound to `dump_context`; the
        sandbox is unaffected."""
        keys, context = self._sealing()
        return self._session().dump(keys, context)

    @classmethod
    def restore(cls, data: bytes, language: str = "python", *, dump_keys: Sequence[bytes],
                dump_context: Union[str, bytes], limits: Optional[Limits] = None,
                sandbox: str = "auto", worker: Optional[Union[str, os.PathLike]] = None,
                **options: Any) -> "Sandbox":
        """A sandbox rebuilt from `data` (what `dump` returned, in this
        process or another) in a fresh worker with these options, idle or
        waiting at the dumped cursor (`pending`). The dump is checked before
        any worker starts: DumpRejected, DumpVersionMismatch."""
        seal = _seal(dump_keys, dump_context)
        settings = _options(language, limits, sandbox, worker, options)
        native = _native.NativeSession.restore(language, settings, seal[0], seal[1], bytes(data))
        restored = cls._from_native(language, settings, native)
        restored._seal = seal
        return restored

    def install_dependencies(self, requirements: Iterable[str]) -> None:
        """Makes `requirements` ("pandas==3.1.1") importable by a CPython
        guest: installed on the host by uv (wheels only, cached), before
        the sandbox's first run; afterwards only packages it has are
        accepted (ConfigurationError otherwise). An empty list does nothing."""
        self._session().install_dependencies(_requirements(requirements))

    def execute(self, code: str, *, inputs: Optional[Mapping[str, Any]] = None,
                functions: Optional[Mapping[str, Callable[..., Any]]] = None,
                print: Optional[PrintCallback] = None,
                max_stream_bytes: int = DEFAULT_STREAM_LIMIT,
                max_result_bytes: int = DEFAULT_RESULT_LIMIT,
                on_output: Optional[OutputCallback] = None) -> ExecutionResult:
        """Like run(), but never raises for the run's own failure: returns an
        ExecutionResult with the captured output (each stream cut at
        `max_stream_bytes`), the rich outputs the guest showed (`outputs`)
        and the result (refused past `max_result_bytes` of host memory,
        counted as the sandbox's `max_result_bytes` is and never built, as
        error_type "ResultTooLarge")."""
        _execute_limits(max_stream_bytes, max_result_bytes)
        native = self._session()
        output = receiver(on_output)
        added = self._bind_call_functions(native, functions)
        try:
            parts = native.execute(code, dict(inputs) if inputs else None, print,
                                   max_result_bytes, max_stream_bytes, output)
        finally:
            self._unbind_call_functions(native, added)
        return self._executed(native, parts)


class AsyncSandbox(_Base):
    """Sandbox for asyncio: the same surface, with `await`. Host functions
    may be coroutine functions; the guest awaits them, several at once.

        async with stockade.AsyncSandbox() as sandbox:
            sandbox.bind_function("fetch", fetch)
            await sandbox.run("await fetch('a')")
    """

    #: The event loop coroutine host functions run on: the one that last ran
    #: this sandbox, or the one running when they were bound.
    _loop: Optional[asyncio.AbstractEventLoop] = None

    async def __aenter__(self) -> "AsyncSandbox":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Ends the worker without blocking the event loop."""
        await asyncio.get_running_loop().run_in_executor(None, self.close)

    def _register(self, native: _native.NativeSession, name: str,
                  function: Callable[..., Any]) -> None:
        if inspect.iscoroutinefunction(function):
            loop = self._loop or _running_loop()
            if loop is None:
                raise ConfigurationError(
                    f"bind the coroutine function {name!r} from inside the event loop that runs the sandbox")
            native.register(name, function, loop)
        else:
            native.register(name, function)

    async def run(self, code: str, *, inputs: Optional[Mapping[str, Any]] = None,
                  functions: Optional[Mapping[str, Callable[..., Any]]] = None,
                  print: Optional[PrintCallback] = None,
                  on_output: Optional[OutputCallback] = None) -> Any:
        """As Sandbox.run; the wait happens off the event loop, which stays
        free to run async host functions."""
        return await self._run(code, inputs, functions, print, None, on_output)

    async def _run(self, code: str, inputs: Optional[Mapping[str, Any]],
                   functions: Optional[Mapping[str, Callable[..., Any]]],
                   print: Optional[PrintCallback], max_result_bytes: Optional[int],
                   on_output: Optional[OutputCallback]) -> Any:
        loop = asyncio.get_running_loop()
        self._loop = loop
        native = self._session()
        output = receiver(on_output)
        added = self._bind_call_functions(native, functions)
        try:
            return await loop.run_in_executor(
                None, native.run, code, dict(inputs) if inputs else None, print,
                max_result_bytes, output)
        except ServerShutdown as shutdown:
            self._attach_dump(native, shutdown)
            raise
        except (asyncio.CancelledError, KeyboardInterrupt):
            # The run goes on in the executor's thread until its worker is
            # killed: cancel it, so neither the worker nor the thread (which
            # the loop's shutdown waits for) outlives the task.
            native.cancel()
            raise
        finally:
            self._unbind_call_functions(native, added)

    async def start(self, code: str, *, inputs: Optional[Mapping[str, Any]] = None,
                    functions: Iterable[str] = (),
                    print: Optional[PrintCallback] = None,
                    on_output: Optional[OutputCallback] = None) -> Progress:
        """As Sandbox.start; the cursors' answers are awaited too."""
        native = self._session()
        call = functools.partial(native.start, code, dict(inputs) if inputs else None, print,
                                 _names(functions), receiver(on_output))
        return _progress(self, await self._off_loop(native, call))

    async def dump(self) -> bytes:
        """As Sandbox.dump, off the event loop."""
        keys, context = self._sealing()
        native = self._session()
        return await self._off_loop(native, functools.partial(native.dump, keys, context))

    @classmethod
    async def restore(cls, data: bytes, language: str = "python", *,
                      dump_keys: Sequence[bytes], dump_context: Union[str, bytes],
                      limits: Optional[Limits] = None, sandbox: str = "auto",
                      worker: Optional[Union[str, os.PathLike]] = None,
                      **options: Any) -> "AsyncSandbox":
        """As Sandbox.restore, off the event loop."""
        seal = _seal(dump_keys, dump_context)
        settings = _options(language, limits, sandbox, worker, options)
        native = await asyncio.get_running_loop().run_in_executor(
            None, _native.NativeSession.restore, language, settings, seal[0], seal[1],
            bytes(data))
        restored = cls._from_native(language, settings, native)
        restored._seal = seal
        return restored

    async def _answer(self, cursor: int, how: str, fields: Dict[str, Any]) -> Progress:
        native = self._session()
        call = functools.partial(native.answer, cursor, how, **fields)
        return _progress(self, await self._off_loop(native, call))

    async def _off_loop(self, native: _native.NativeSession, call: Callable[[], Any]) -> Any:
        """Runs `call` (which waits on the worker) off the event loop."""
        loop = asyncio.get_running_loop()
        self._loop = loop
        try:
            return await loop.run_in_executor(None, call)
        except (asyncio.CancelledError, KeyboardInterrupt):
            native.cancel()
            raise

    async def install_dependencies(self, requirements: Iterable[str]) -> None:
        """As Sandbox.install_dependencies, off the event loop."""
        native = self._session()
        wanted = _requirements(requirements)
        await self._off_loop(native, functools.partial(native.install_dependencies, wanted))

    async def execute(self, code: str, *, inputs: Optional[Mapping[str, Any]] = None,
                      functions: Optional[Mapping[str, Callable[..., Any]]] = None,
                      print: Optional[PrintCallback] = None,
                      max_stream_bytes: int = DEFAULT_STREAM_LIMIT,
                      max_result_bytes: int = DEFAULT_RESULT_LIMIT,
                      on_output: Optional[OutputCallback] = None) -> ExecutionResult:
        """As Sandbox.execute."""
        _execute_limits(max_stream_bytes, max_result_bytes)
        loop = asyncio.get_running_loop()
        self._loop = loop
        native = self._session()
        output = receiver(on_output)
        added = self._bind_call_functions(native, functions)
        try:
            parts = await loop.run_in_executor(
                None, native.execute, code, dict(inputs) if inputs else None, print,
                max_result_bytes, max_stream_bytes, output)
        except (asyncio.CancelledError, KeyboardInterrupt):
            native.cancel()
            raise
        finally:
            self._unbind_call_functions(native, added)
        return self._executed(native, parts)


def _seal(keys: Optional[Sequence[bytes]],
          context: Union[str, bytes, None]) -> Optional[Tuple[list, bytes]]:
    """The keys and context dumps are sealed with, checked; None for none."""
    if keys is None:
        if context is not None:
            raise ConfigurationError("dump_context= needs dump_keys= too")
        return None
    if isinstance(keys, (bytes, bytearray, str)):
        raise ConfigurationError("dump_keys= takes a list of keys (bytes), not one key")
    keys = list(keys)
    for key in keys:
        if not isinstance(key, (bytes, bytearray)):
            raise ConfigurationError(f"dump_keys= takes bytes, got {type(key).__name__}")
    if context is None:
        raise ConfigurationError("dump_keys= needs dump_context= (a tenant or conversation id)")
    if isinstance(context, str):
        context = context.encode()
    if not isinstance(context, (bytes, bytearray)):
        raise ConfigurationError("dump_context= takes a str or bytes")
    return [bytes(key) for key in keys], bytes(context)


def _requirements(requirements: Iterable[str]) -> list:
    if isinstance(requirements, Packages):
        return list(requirements.requirements)
    if isinstance(requirements, str):
        raise ConfigurationError("install_dependencies takes a list of requirements, not one str")
    wanted = list(requirements)
    for requirement in wanted:
        if not isinstance(requirement, str):
            raise ConfigurationError(f"install_dependencies takes str requirements, got {requirement!r}")
    return wanted


def _names(functions: Iterable[str]) -> list:
    if isinstance(functions, str):
        raise ConfigurationError("functions= takes names (a list of str), not one str")
    names = list(functions)
    for name in names:
        if not isinstance(name, str):
            raise ConfigurationError(f"functions= takes names (str), got {name!r}")
    return names


def _running_loop() -> Optional[asyncio.AbstractEventLoop]:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def run(code: str, language: str = "python", *, inputs: Optional[Mapping[str, Any]] = None,
        functions: Optional[Mapping[str, Callable[..., Any]]] = None,
        print: Optional[PrintCallback] = None, on_output: Optional[OutputCallback] = None,
        **options: Any) -> Any:
    """Runs `code` once in a fresh sandbox and returns its result."""
    with Sandbox(language, **options) as sandbox:
        return sandbox.run(code, inputs=inputs, functions=functions, print=print,
                           on_output=on_output)

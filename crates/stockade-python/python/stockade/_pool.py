"""Pool and AsyncPool: sandboxes in workers started ahead of time."""

from __future__ import annotations

import asyncio
import os
from typing import Any, Dict, Optional, Union

from . import _native
from ._errors import ConfigurationError
from ._sandbox import AsyncSandbox, Limits, Sandbox, _options

#: What a checkout may set: limits only the parent enforces. Everything else
#: is sent to a worker when it starts, so it is fixed per pool.
CHECKOUT_OPTIONS = tuple(_native.CHECKOUT_OPTIONS)


class _PoolBase:
    def __init__(self, language: str = "python", *, size: int = 4,
                 max_concurrent_starts: int = 2, limits: Optional[Limits] = None,
                 sandbox: str = "auto", worker: Optional[Union[str, os.PathLike]] = None,
                 **options: Any) -> None:
        if size < 1 or max_concurrent_starts < 1:
            raise ConfigurationError("size and max_concurrent_starts must be at least 1")
        self.language = language
        self._options = _options(language, limits, sandbox, worker, options)
        self._size = size
        self._max_concurrent_starts = max_concurrent_starts
        self._pid = os.getpid()
        self._native: Optional[_native.NativePool] = _native.NativePool(
            language, self._options, size, max_concurrent_starts)

    def _pool(self) -> _native.NativePool:
        if self._native is None:
            raise ConfigurationError("the pool is closed")
        return self._native

    def _checkout_native(self, session_options: Dict[str, Any]) -> tuple:
        native = self._pool().checkout(session_options)
        options = dict(self._options)
        options.update({k: v for k, v in session_options.items() if v is not None})
        return options, native

    def stats(self) -> Dict[str, Any]:
        """ready, starting, checkouts, cold_starts, discarded, last_error, unreaped."""
        return self._pool().stats()

    def idle_worker_pids(self) -> list:
        return self._pool().idle_worker_pids()


class Pool(_PoolBase):
    """Workers started in the background, fully ready (sandbox applied,
    self-test passed, engine up), handed out by checkout(). Each is used
    once: closing the sandbox kills its worker. An empty pool starts a
    worker on the spot; it is never an error.

        with stockade.Pool("python", size=4) as pool:
            with pool.checkout(max_host_calls=50) as sandbox:
                sandbox.run("1 + 1")
    """

    def __enter__(self) -> "Pool":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def checkout(self, **session_options: Any) -> Sandbox:
        """A Sandbox in a ready worker; `session_options` may set the limits
        only the parent enforces (CHECKOUT_OPTIONS)."""
        options, native = self._checkout_native(session_options)
        return Sandbox._from_native(self.language, options, native)

    def wait_ready(self, timeout: float = 30.0) -> bool:
        """Blocks until every worker is ready; False if `timeout` passed."""
        return self._pool().wait_ready(timeout)

    def close(self) -> None:
        """Ends every idle worker; sandboxes already checked out go on."""
        native, self._native = self._native, None
        if native is not None:
            native.close()


class _Checkout:
    """What AsyncPool.checkout returns: await it, or use it with `async with`."""

    def __init__(self, pool: "AsyncPool", session_options: Dict[str, Any]) -> None:
        self._pool = pool
        self._session_options = session_options
        self._sandbox: Optional[AsyncSandbox] = None

    async def _get(self) -> AsyncSandbox:
        loop = asyncio.get_running_loop()
        options, native = await loop.run_in_executor(
            None, self._pool._checkout_native, self._session_options)
        sandbox = AsyncSandbox._from_native(self._pool.language, options, native)
        assert isinstance(sandbox, AsyncSandbox)
        return sandbox

    def __await__(self):
        return self._get().__await__()

    async def __aenter__(self) -> AsyncSandbox:
        self._sandbox = await self._get()
        return self._sandbox

    async def __aexit__(self, *exc: object) -> None:
        if self._sandbox is not None:
            await self._sandbox.aclose()


class AsyncPool(_PoolBase):
    """Pool for asyncio: `await pool.checkout()` or `async with
    pool.checkout() as sandbox` gives an AsyncSandbox."""

    async def __aenter__(self) -> "AsyncPool":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def checkout(self, **session_options: Any) -> _Checkout:
        return _Checkout(self, session_options)

    async def wait_ready(self, timeout: float = 30.0) -> bool:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(None, self._pool().wait_ready, timeout)

    async def aclose(self) -> None:
        native, self._native = self._native, None
        if native is not None:
            await asyncio.get_running_loop().run_in_executor(None, native.close)

    def close(self) -> None:
        native, self._native = self._native, None
        if native is not None:
            native.close()

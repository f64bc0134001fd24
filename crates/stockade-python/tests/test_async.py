"""AsyncSandbox: the same surface with await; coroutine host functions
run on the caller's loop, several at once."""

import asyncio
import os
import time

import pytest

import stockade
from conftest import code, process_gone


async def fetch(key):
    await asyncio.sleep(0.3)
    if not isinstance(key, str):
        raise TypeError("fetch() takes a key")
    return f"value of {key}"


def test_coroutine_host_functions_run_several_at_once(language):
    async def main():
        async with stockade.AsyncSandbox(language, redact_host_errors=False) as sandbox:
            sandbox.bind_function("fetch", fetch)
            sandbox.bind_function("add", lambda a, b: a + b)
            gather = code(
                language,
                "import asyncio\nasync def main():\n    return await asyncio.gather(fetch('a'), fetch('b'), fetch('c'))\nawait main()",
                "await Promise.all([fetch('a'), fetch('b'), fetch('c')])",
            )
            started = time.monotonic()
            result = await sandbox.run(gather)
            took = time.monotonic() - started
            assert result == ["value of a", "value of b", "value of c"]
            assert took < 0.8, f"the calls did not overlap: {took:.2f} s"
            assert await sandbox.run("add(40, 2)") == 42
            caught = code(
                language,
                "try:\n    await fetch(1)\nexcept TypeError as e:\n    r = str(e)\nr",
                "let r; try { await fetch(1) } catch (e) { r = e.message } r",
            )
            assert await sandbox.run(caught) == "fetch() takes a key"

    asyncio.run(main())


def test_the_event_loop_stays_free_while_the_guest_runs(language):
    async def main():
        ticks = 0

        async def tick():
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0.01)

        async with stockade.AsyncSandbox(language) as sandbox:
            ticker = asyncio.create_task(tick())
            await sandbox.run(code(language, "n = 0\nfor i in range(3000000):\n    n += i",
                                   "let n = 0; for (let i = 0; i < 60000000; i++) n += i"))
            ticker.cancel()
        assert ticks >= 3

    asyncio.run(main())


def test_async_execute_and_errors(language):
    async def main():
        async with stockade.AsyncSandbox(language) as sandbox:
            result = await sandbox.execute(code(language, "print('x')\n1", "console.log('x'); 1"))
            assert (result.status, result.stdout, result.result) == ("ok", "x\n", 1)
            with pytest.raises(stockade.GuestError):
                await sandbox.run(code(language, "raise ValueError('v')", "throw new Error('v')"))
            assert await sandbox.run("2") == 2

    asyncio.run(main())


def test_cancelling_a_run_kills_its_worker_and_frees_the_loop(language):
    async def main():
        async with stockade.AsyncSandbox(language) as sandbox:
            pid = sandbox.worker_pid
            task = asyncio.create_task(
                sandbox.run(code(language, "while True:\n    pass", "while (true) {}")))
            await asyncio.sleep(0.3)
            started = time.monotonic()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            # The executor thread ends with the worker, well before any deadline.
            await asyncio.get_running_loop().run_in_executor(None, lambda: None)
            assert time.monotonic() - started < 5
            for _ in range(100):
                if process_gone(pid):
                    break
                await asyncio.sleep(0.02)
            else:
                raise AssertionError("the worker outlived its cancelled run")
            with pytest.raises(stockade.StockadeError):
                await sandbox.run("1")

    started = time.monotonic()
    asyncio.run(main())
    assert time.monotonic() - started < 10

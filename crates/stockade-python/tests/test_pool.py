"""Pool and AsyncPool through the Python API, with real workers."""

import asyncio
import os
import signal
import threading
import time

import pytest

import stockade
from conftest import in_forked_child, process_gone


def alive(pid):
    return not process_gone(pid)


def stops_soon(pid):
    """A closed worker is killed at once; the kernel may take a moment to
    finish it (and the host reaps it in the background)."""
    import time
    deadline = time.monotonic() + 10
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.002)
    return not alive(pid)


def test_checkouts_are_single_use_and_prestarted(language):
    with stockade.Pool(language, size=2) as pool:
        assert pool.wait_ready(20)
        pids = set()
        for _ in range(4):
            with pool.checkout() as sandbox:
                assert sandbox.prestarted
                pid = sandbox.worker_pid
                assert pid not in pids
                pids.add(pid)
                assert sandbox.run("1 + 1") == 2
            assert stops_soon(pid)
            pool.wait_ready(20)
        stats = pool.stats()
        assert stats["checkouts"] == 4 and stats["cold_starts"] == 0


def test_an_empty_pool_starts_a_worker_on_the_spot():
    with stockade.Pool(size=1) as pool:
        pool.wait_ready(20)
        first = pool.checkout()
        second = pool.checkout()
        assert second.run("6 * 7") == 42
        assert pool.stats()["cold_starts"] >= 1
        first.close()
        second.close()


def test_a_killed_idle_worker_is_discarded():
    with stockade.Pool(size=2) as pool:
        assert pool.wait_ready(20)
        idle = pool.idle_worker_pids()
        for pid in idle:
            os.kill(pid, signal.SIGKILL)
        time.sleep(0.1)
        with pool.checkout() as sandbox:
            assert sandbox.worker_pid not in idle
            assert sandbox.run("2") == 2
        assert pool.stats()["discarded"] >= 1


def test_checkout_options_are_parent_limits_only():
    with stockade.Pool(size=1) as pool:
        with pool.checkout(max_host_calls=2) as sandbox:
            sandbox.bind_function("tick", lambda: None)
            with pytest.raises(stockade.GuestError, match="max_host_calls"):
                sandbox.run("for i in range(5):\n    tick()")
        with pytest.raises(stockade.ConfigurationError, match="fixed when a worker starts"):
            pool.checkout(max_memory=1)
        with pytest.raises(stockade.ConfigurationError, match="request_timeout"):
            pool.checkout(request_timeout=3600)


def test_close_ends_idle_workers_and_leaves_checked_out_ones():
    pool = stockade.Pool(size=2)
    assert pool.wait_ready(20)
    mine = pool.checkout()
    pool.wait_ready(20)
    idle = pool.idle_worker_pids()
    pool.close()
    assert idle and all(stops_soon(pid) for pid in idle)
    assert mine.run("40 + 2") == 42
    mine.close()
    with pytest.raises(stockade.ConfigurationError, match="closed"):
        pool.checkout()


def test_checkouts_from_several_threads():
    with stockade.Pool(size=4) as pool:
        pool.wait_ready(20)
        results = {}

        def work(n):
            with pool.checkout() as sandbox:
                results[n] = (sandbox.worker_pid, sandbox.run("n * 2", inputs={"n": n}))

        threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(v for _, v in results.values()) == [n * 2 for n in range(8)]
        assert len({pid for pid, _ in results.values()}) == 8


def test_async_pool_checkouts(language):
    async def fetch(key):
        await asyncio.sleep(0.05)
        return key.upper()

    async def main():
        async with stockade.AsyncPool(language, size=2) as pool:
            assert await pool.wait_ready(20)
            async with pool.checkout() as sandbox:
                sandbox.bind_function("fetch", fetch)
                assert await sandbox.run("await fetch('a')") == "A"
            sandbox = await pool.checkout(max_host_calls=10)
            assert await sandbox.run("1 + 1") == 2
            await sandbox.aclose()
            assert pool.stats()["checkouts"] == 2

    asyncio.run(main())


def test_a_sandbox_made_after_a_pause_takes_the_spare(language):
    with stockade.Sandbox(language, max_threads=63):
        pass
    time.sleep(0.5)
    with stockade.Sandbox(language, max_threads=63) as second:
        assert second.prestarted
        assert second.run("1 + 1") == 2


def test_a_forked_child_refills_its_own_pool_and_leaves_the_parents_workers():
    with stockade.Pool(size=2) as pool:
        assert pool.wait_ready(20)
        parents = set(pool.idle_worker_pids())

        def in_child():
            with pool.checkout() as sandbox:
                return [sandbox.worker_pid not in parents, sandbox.run("1 + 1")]

        reported, status = in_forked_child(in_child)
        assert status == 0 and reported == "[True, 2]"
        # The parent's idle workers were neither used nor killed by the child.
        assert all(alive(pid) for pid in parents)
        with pool.checkout() as sandbox:
            assert sandbox.worker_pid in parents
            assert sandbox.run("3") == 3

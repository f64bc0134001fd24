"""Each limit the package exposes, tripped through the Python API."""

import asyncio

import pytest

import stockade
from conftest import code

MIB = 1024 * 1024


def test_max_recursion_depth_is_a_catchable_guest_error():
    with stockade.Sandbox("python", limits=stockade.Limits(max_recursion_depth=50)) as sandbox:
        sandbox.run("def down(n):\n    return down(n + 1)")
        with pytest.raises(stockade.GuestError) as caught:
            sandbox.run("down(0)")
        assert caught.value.type == "RecursionError"
        assert sandbox.run("1") == 1


def test_max_output_bytes_cuts_output_with_a_marker(language):
    printed = []
    with stockade.Sandbox(language, limits=stockade.Limits(max_output_bytes=1000)) as sandbox:
        sandbox.run(code(language, "for i in range(100):\n    print('x' * 99)",
                         "for (let i = 0; i < 100; i++) console.log('x'.repeat(99))"),
                    print=lambda stream, text: printed.append(text))
    output = "".join(printed)
    assert "[stockade: output truncated after 1000 bytes]" in output
    assert len(output) < 1200


def test_max_heap_size_ends_a_javascript_worker():
    limits = stockade.Limits(max_heap_size=32 * MIB)
    with stockade.Sandbox("javascript", limits=limits) as sandbox:
        with pytest.raises(stockade.MemoryLimitError) as caught:
            sandbox.run("const a = []; while (true) a.push('x'.repeat(65536) + a.length);")
        assert caught.value.worker_died
        assert "max_heap_size" in str(caught.value)


def test_max_buffer_bytes_is_a_catchable_range_error():
    limits = stockade.Limits(max_buffer_bytes=8 * MIB)
    with stockade.Sandbox("javascript", limits=limits) as sandbox:
        assert sandbox.run(
            "try { new Uint8Array(16 * 1024 * 1024); 'allocated' } catch (e) { e.name }"
        ) == "RangeError"


def test_max_stack_bytes_is_a_catchable_range_error():
    limits = stockade.Limits(max_stack_bytes=256 * 1024)
    with stockade.Sandbox("javascript", limits=limits) as sandbox:
        assert sandbox.run(
            "function down() { down() } try { down() } catch (e) { e.name }"
        ) == "RangeError"


def test_max_host_calls_ends_the_run_and_the_sandbox_lives(language):
    with stockade.Sandbox(language, max_host_calls=5) as sandbox:
        sandbox.bind_function("tick", lambda: None)
        with pytest.raises(stockade.GuestError, match="max_host_calls"):
            sandbox.run(code(language, "for i in range(10):\n    tick()",
                             "for (let i = 0; i < 10; i++) tick()"))
        assert sandbox.run("1") == 1


def test_max_host_wait_is_a_timeout_in_the_guest(language):
    import time

    def slow():
        time.sleep(0.5)
        return 1

    with stockade.Sandbox(language, max_host_wait=0.1) as sandbox:
        sandbox.bind_function("slow", slow)
        snippet = code(language,
                       "try:\n    slow()\n    r = 'returned'\nexcept TimeoutError as e:\n    r = str(e)\nr",
                       "let r; try { slow(); r = 'returned' } catch (e) { r = e.message } r")
        assert "did not answer within max_host_wait" in sandbox.run(snippet)


def test_max_inflight_host_calls_ends_the_run(language):
    async def wait():
        await asyncio.sleep(0.2)
        return 1

    async def main():
        async with stockade.AsyncSandbox(language, max_inflight_host_calls=2) as sandbox:
            sandbox.bind_function("wait", wait)
            with pytest.raises(stockade.GuestError, match="max_inflight_host_calls"):
                await sandbox.run(code(
                    language,
                    "import asyncio\nasync def main():\n    return await asyncio.gather(wait(), wait(), wait())\nawait main()",
                    "await Promise.all([wait(), wait(), wait()])"))
            assert await sandbox.run("1") == 1

    asyncio.run(main())


def test_max_result_bytes_refuses_a_result_before_it_is_built_and_the_sandbox_lives(language):
    with stockade.Sandbox(language, max_result_bytes=64 * 1024) as sandbox:
        with pytest.raises(stockade.ResultTooLarge) as caught:
            sandbox.run(code(language, "list(range(10000))", "Array.from({length: 10000}, (_, i) => i)"))
        assert caught.value.limit == 64 * 1024
        assert "max_result_bytes" in str(caught.value)
        assert sandbox.run("1 + 1") == 2


def test_max_result_bytes_is_a_checkout_option_too():
    with stockade.Pool("python", size=1) as pool:
        with pool.checkout(max_result_bytes=1024) as sandbox:
            with pytest.raises(stockade.ResultTooLarge):
                sandbox.run("'x' * 5000")
            assert sandbox.run("'x' * 10") == "x" * 10

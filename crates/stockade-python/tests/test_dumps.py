"""Dumps: a sandbox sealed to bytes and restored in a fresh worker, in
this process and in another; tampered dumps are refused."""

import subprocess
import sys

import pytest

import stockade

KEY = bytes(range(32))
SEALED = {"dump_keys": [KEY], "dump_context": "conversation-7"}

STATE = """
class Point:
    def __init__(self, x, y):
        self.x = x
        self.y = y
    def norm2(self):
        return self.x * self.x + self.y * self.y

def scaler(k):
    return lambda v: v * k

triple = scaler(3)
p = Point(3, 4)
table = {i: str(i) for i in range(100000)}
"""
CHECK = "[p.norm2(), triple(5), len(table), table[99999]]"
EXPECTED = [25, 15, 100000, "99999"]


def monty(**extra):
    return stockade.Sandbox("python", engine="monty", **SEALED, **extra)


def test_an_idle_sandbox_restores_in_this_process_and_continues():
    with monty() as sandbox:
        sandbox.run(STATE)
        data = sandbox.dump()
        assert isinstance(data, bytes) and data.startswith(b"STKDUMP\0")
        assert sandbox.run(CHECK) == EXPECTED
    with stockade.Sandbox.restore(data, "python", engine="monty", **SEALED) as restored:
        assert restored.pending is None
        assert restored.run(CHECK) == EXPECTED


def test_a_dump_restores_in_another_process():
    with monty() as sandbox:
        sandbox.run(STATE)
        data = sandbox.dump()
    script = (
        "import sys, stockade\n"
        "data = sys.stdin.buffer.read()\n"
        f"with stockade.Sandbox.restore(data, 'python', engine='monty', dump_keys=[{KEY!r}], dump_context='conversation-7') as s:\n"
        f"    print(s.run({CHECK!r}))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], input=data, capture_output=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().strip() == repr(EXPECTED)


CLOCK_AND_RANDOM = """
import datetime, os, random, time, uuid
drawn = [time.time(), repr(datetime.datetime.now()), random.random(), os.urandom(8).hex(),
         str(uuid.uuid4()), list({'alpha', 'beta', 'gamma', 'delta', 'epsilon'})]
"""


def test_a_cpython_sandbox_that_read_the_clock_and_random_restores_in_another_process():
    with stockade.Sandbox("python", engine="cpython", **SEALED) as sandbox:
        sandbox.run(STATE)
        sandbox.run(CLOCK_AND_RANDOM)
        drawn = sandbox.run("drawn")
        data = sandbox.dump()
        # The original goes on drawing; the restored copy draws its own.
        following = sandbox.run("[random.random(), os.urandom(4).hex()]")
    script = (
        "import sys, stockade\n"
        "data = sys.stdin.buffer.read()\n"
        f"with stockade.Sandbox.restore(data, 'python', engine='cpython', dump_keys=[{KEY!r}], dump_context='conversation-7') as s:\n"
        f"    print(repr([s.run({CHECK!r}), s.run('drawn'), s.run('[random.random(), os.urandom(4).hex()]')]))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], input=data, capture_output=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    check, replayed, drawn_after = eval(done.stdout.decode())
    assert [check, replayed] == [EXPECTED, drawn]
    assert drawn_after != following


def test_a_cursor_dump_restores_waiting_at_the_cursor():
    with monty() as sandbox:
        call = sandbox.start("answer = approve('refund', amount=5)\nanswer * 2", functions=["approve"])
        data = call.dump()
    with stockade.Sandbox.restore(data, "python", engine="monty", **SEALED) as restored:
        call = restored.pending
        assert isinstance(call, stockade.FunctionCall)
        assert (call.name, call.args, call.kwargs) == ("approve", ("refund",), {"amount": 5})
        assert call.resume(21).value == 42
        assert restored.run("answer") == 21


def test_tampered_truncated_and_foreign_dumps_are_refused():
    with monty() as sandbox:
        sandbox.run("x = 1")
        data = sandbox.dump()
    altered = bytearray(data)
    altered[len(altered) // 2] ^= 1
    for bad in (bytes(altered), data[:-1], data[:10], b"", b"not a dump at all"):
        with pytest.raises(stockade.DumpRejected):
            stockade.Sandbox.restore(bad, "python", engine="monty", **SEALED)
    with pytest.raises(stockade.DumpRejected):
        stockade.Sandbox.restore(data, "python", engine="monty", dump_keys=[bytes(32)],
                                 dump_context="conversation-7")
    with pytest.raises(stockade.DumpRejected):
        stockade.Sandbox.restore(data, "python", engine="monty", dump_keys=[KEY],
                                 dump_context="conversation-8")
    old = bytearray(data)
    old[8:10] = (9).to_bytes(2, "little")
    with pytest.raises(stockade.DumpVersionMismatch) as caught:
        stockade.Sandbox.restore(bytes(old), "python", engine="monty", **SEALED)
    assert "9" in caught.value.found and "1" in caught.value.expected


def test_dumping_needs_keys_and_keys_must_be_long_enough():
    with stockade.Sandbox("python", engine="monty") as sandbox:
        with pytest.raises(stockade.ConfigurationError, match="dump_keys"):
            sandbox.dump()
    with pytest.raises(stockade.ConfigurationError, match="32"):
        with stockade.Sandbox("python", engine="monty", dump_keys=[b"short"],
                              dump_context="c") as sandbox:
            sandbox.run("x = 1")
            sandbox.dump()
    with pytest.raises(stockade.ConfigurationError, match="dump_context"):
        stockade.Sandbox("python", engine="monty", dump_keys=[KEY])


def test_a_pool_checkout_restores_a_dump():
    with monty() as sandbox:
        sandbox.run("y = 41")
        data = sandbox.dump()
    with stockade.Pool("python", size=1, engine="monty") as pool:
        with pool.checkout() as checkout:
            checkout.restore_into(data, **SEALED)
            assert checkout.run("y + 1") == 42
            with pytest.raises(stockade.DumpRejected, match="fresh"):
                checkout.restore_into(data)


def test_an_async_sandbox_dumps_and_restores():
    import asyncio

    async def main():
        async with stockade.AsyncSandbox("python", engine="monty", **SEALED) as sandbox:
            await sandbox.run("z = [1, 2, 3]")
            data = await sandbox.dump()
        restored = await stockade.AsyncSandbox.restore(data, "python", engine="monty", **SEALED)
        async with restored:
            assert await restored.run("sum(z)") == 6

    asyncio.run(main())


def test_the_sessions_md_dump_example_runs(capsys):
    import os
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[3] / "docs" / "sessions.md").read_text()
    snippet = doc.split("## Dumps", 1)[1].split("```python", 1)[1].split("```", 1)[0]
    exec(compile(snippet, "docs/sessions.md", "exec"), {"stockade": stockade, "os": os})
    assert capsys.readouterr().out == "['draft', 'final']\n"


def test_a_javascript_sandbox_replays_its_clock_random_and_host_answers_in_another_process():
    calls = []
    with stockade.Sandbox("javascript", **SEALED) as sandbox:
        sandbox.bind_function("lookup", lambda key: calls.append(key) or f"value of {key}")
        sandbox.run("globalThis.t = Date.now(); globalThis.r = Math.random(); globalThis.v = lookup('k')")
        state = sandbox.run("[t, r, v]")
        data = sandbox.dump()
    assert calls == ["k"]
    script = (
        "import sys, stockade\n"
        "data = sys.stdin.buffer.read()\n"
        f"with stockade.Sandbox.restore(data, 'javascript', dump_keys=[{KEY!r}], dump_context='conversation-7') as s:\n"
        "    print(repr(s.run('[t, r, v]')))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], input=data, capture_output=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().strip() == repr(state)


def test_a_javascript_replay_that_diverges_is_refused():
    with stockade.Sandbox("javascript", web_polyfills=True, **SEALED) as sandbox:
        sandbox.bind_function("f", lambda n: n)
        sandbox.run("globalThis.x = f(typeof setTimeout === 'function' ? 1 : 2)")
        data = sandbox.dump()
    with pytest.raises(stockade.ReplayDiverged, match="feed 1"):
        stockade.Sandbox.restore(data, "javascript", **SEALED)


def test_a_suspended_dump_resumes_in_another_process():
    with monty() as sandbox:
        call = sandbox.start("ok = approve('deploy')\n'done' if ok else 'stopped'",
                             functions=["approve"])
        data = call.dump()
    script = (
        "import sys, stockade\n"
        "data = sys.stdin.buffer.read()\n"
        f"with stockade.Sandbox.restore(data, 'python', engine='monty', dump_keys=[{KEY!r}], dump_context='conversation-7') as s:\n"
        "    call = s.pending\n"
        "    print(call.name, call.args, call.resume(True).value)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], input=data, capture_output=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().strip() == "approve ('deploy',) done"

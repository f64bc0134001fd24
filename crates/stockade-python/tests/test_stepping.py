"""Stepped runs: sandbox.start() stops at every host call, name lookup and
await, and the host answers through cursors, sync and async alike."""

import asyncio

import pytest

import stockade
from conftest import code

ENGINES = [("python", "cpython"), ("python", "monty"), ("javascript", None)]


def make(language, engine, cls=stockade.Sandbox):
    return cls(language, engine=engine) if engine else cls(language)


def answer(progress, log, defer=False):
    """Answers cursors until the run completes: `fetch(n)` doubles n,
    `limit` is 10, awaited calls are resolved one per cursor."""
    deferred = {}
    while not isinstance(progress, stockade.Complete):
        if isinstance(progress, stockade.NameLookup):
            log.append(f"lookup {progress.name}")
            progress = progress.resume(10) if progress.name == "limit" else progress.resume_not_found()
        elif isinstance(progress, stockade.FunctionCall):
            log.append(f"call {progress.name}{progress.args}")
            if defer:
                deferred[progress.call_id] = progress.args[0] * 2
                progress = progress.resume_pending()
            else:
                progress = progress.resume(progress.args[0] * 2)
        else:
            log.append(f"await {len(progress.call_ids)}")
            first = progress.call_ids[0]
            progress = progress.resolve({first: deferred.pop(first)})
    return progress.value


@pytest.mark.parametrize("language,engine", ENGINES)
def test_a_stepped_run_stops_at_each_call_and_lookup(language, engine):
    with make(language, engine) as sandbox:
        sandbox.bind_function("double", lambda n: pytest.fail("a stepped run never calls it"))
        source = code(language, "a = fetch(1)\nb = double(2)\na + b + limit",
                      "const a = fetch(1); const b = double(2); a + b + limit")
        inputs = {"limit": 10} if language == "javascript" else None
        log = []
        first = sandbox.start(source, inputs=inputs, functions=["fetch"])
        assert isinstance(first, (stockade.FunctionCall, stockade.NameLookup))
        assert answer(first, log) == 16
        assert [line for line in log if line.startswith("call")] == ["call fetch(1,)", "call double(2,)"]
        assert sandbox.pending is None
        assert sandbox.run("a + b") == 6


@pytest.mark.parametrize("language,engine", ENGINES)
def test_a_cursor_answers_once_and_the_sandbox_refuses_runs_while_suspended(language, engine):
    with make(language, engine) as sandbox:
        call = sandbox.start(code(language, "x = fetch(20)\nx + 1", "const x = fetch(20); x + 1"),
                             functions=["fetch"])
        assert isinstance(call, stockade.FunctionCall)
        assert (call.name, call.args, call.kwargs) == ("fetch", (20,), {})
        with pytest.raises(stockade.CursorError, match=f"cursor {call.cursor}"):
            sandbox.run("1")
        # A forged cursor of the wrong kind, with the live number.
        with pytest.raises(stockade.CursorError, match="cannot be answered"):
            stockade.NameLookup(sandbox, call.cursor, "fetch").resume_function()
        with pytest.raises(stockade.ConversionError):
            call.resume(object())
        again = sandbox.pending
        assert isinstance(again, stockade.FunctionCall) and again.cursor == call.cursor
        done = call.resume(41)
        assert isinstance(done, stockade.Complete) and done.value == 42
        with pytest.raises(stockade.CursorError, match="already answered"):
            call.resume(0)
        assert sandbox.run("x") == 41


@pytest.mark.parametrize("language,engine", ENGINES)
def test_an_error_answer_raises_in_the_guest_and_the_sandbox_lives(language, engine):
    with make(language, engine) as sandbox:
        call = sandbox.start("fetch(1)", functions=["fetch"])
        with pytest.raises(stockade.GuestError, match="no such record"):
            call.resume_error("ValueError", "no such record")
        assert sandbox.run("1 + 1") == 2


@pytest.mark.parametrize("language,engine", ENGINES)
def test_async_sandbox_steps_pending_futures(language, engine):
    async def main():
        async with make(language, engine, stockade.AsyncSandbox) as sandbox:
            source = code(
                language,
                "import asyncio\nasync def main():\n    return await asyncio.gather(fetch(1), fetch(2), fetch(3))\nawait main()",
                "await Promise.all([fetch(1), fetch(2), fetch(3)])",
            )
            progress = await sandbox.start(source, functions=["fetch"])
            deferred, awaits = {}, 0
            while not isinstance(progress, stockade.Complete):
                if isinstance(progress, stockade.FunctionCall):
                    deferred[progress.call_id] = progress.args[0]
                    progress = await progress.resume_pending()
                else:
                    awaits += 1
                    ids = list(progress.call_ids)
                    with pytest.raises(stockade.CursorError, match="not among"):
                        await progress.resolve({max(ids) + 100: 0})
                    progress = await progress.resolve({ids[0]: deferred[ids[0]] * 2})
            assert progress.value == [2, 4, 6]
            assert awaits >= 2

    asyncio.run(main())


def test_an_awaited_call_resolved_with_an_exception_raises_it_in_the_guest():
    with stockade.Sandbox("python", engine="monty") as sandbox:
        call = sandbox.start("async def main():\n    return await fetch(5)\nawait main()",
                             functions=["fetch"])
        futures = call.resume_pending()
        assert isinstance(futures, stockade.PendingFutures)
        assert futures.call_ids == (call.call_id,)
        with pytest.raises(stockade.GuestError, match="gone"):
            futures.resolve(errors={call.call_id: KeyError("gone")})


def test_functions_must_be_names():
    with stockade.Sandbox("python", engine="monty") as sandbox:
        with pytest.raises(stockade.ConfigurationError, match="names"):
            sandbox.start("1", functions="fetch")


def test_the_sessions_md_python_example_runs(capsys):
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[3] / "docs" / "sessions.md").read_text()
    snippet = doc.split("```python", 1)[1].split("```", 1)[0]
    exec(compile(snippet, "docs/sessions.md", "exec"), {"stockade": stockade})
    assert capsys.readouterr().out == "3.75\n"


def test_an_answered_cursor_cannot_be_dumped():
    with stockade.Sandbox("python", engine="monty", dump_keys=[bytes(32)],
                          dump_context="c") as sandbox:
        call = sandbox.start("f(1) + f(2)", functions=["f"])
        second = call.resume(1)
        with pytest.raises(stockade.CursorError, match="already answered"):
            call.dump()
        assert isinstance(second.dump(), bytes)

"""Sandbox: state, results, inputs, host functions, output, and the
one-shot helper, in both languages."""

import sys

import pytest

import stockade
from conftest import code, process_gone


def test_globals_persist_and_the_last_expression_is_the_result(sandbox, language):
    sandbox.run(code(language, "total = 40", "var total = 40"))
    assert sandbox.run("total + 2") == 42


def test_the_worker_is_ended_when_the_sandbox_closes(language):
    import os
    with stockade.Sandbox(language) as sandbox:
        pid = sandbox.worker_pid
        assert os.path.exists(f"/proc/{pid}")
    assert sandbox.closed
    # Killed at once, reaped in the background: it stops running soon.
    import time
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if process_gone(pid):
            break
        time.sleep(0.002)
    assert process_gone(pid)
    with pytest.raises(stockade.ConfigurationError, match="closed"):
        sandbox.run("1")


def test_the_one_shot_helper_runs_in_a_fresh_sandbox(language):
    assert stockade.run("6 * 7", language=language) == 42
    assert stockade.run("x * 2", language=language, inputs={"x": 21}) == 42


def test_host_functions_are_called_with_their_arguments(sandbox, language):
    seen = []

    def lookup(key, scale=1):
        seen.append((key, scale))
        return {"apple": 0.5}[key] * scale

    sandbox.bind_function("lookup", lookup)
    snippet = code(language, "lookup('apple', scale=4)", "lookup('apple', 4)")
    assert sandbox.run(snippet) == 2.0
    assert seen == [("apple", 4)]


@pytest.mark.parametrize("options, seen", [
    ({"redact_host_errors": False}, "no such row"),
    # Redacted by default: the class crosses, the message does not.
    ({}, "host function failed"),
])
def test_host_function_exceptions_cross_into_the_guest(language, options, seen):
    def fail(message):
        raise ValueError(message)

    with stockade.Sandbox(language, **options) as sandbox:
        sandbox.bind_function("fail", fail)
        snippet = code(
            language,
            "try:\n    fail('no such row')\nexcept ValueError as e:\n    r = str(e)\nr",
            "let r; try { fail('no such row') } catch (e) { r = e.message } r",
        )
        assert sandbox.run(snippet) == seen


def test_functions_given_to_one_run_are_gone_in_the_next(sandbox, language):
    assert sandbox.run("once()", functions={"once": lambda: 7}) == 7
    with pytest.raises(stockade.GuestError) as caught:
        sandbox.run("once()")
    assert caught.value.type in ("NameError", "ReferenceError")


def test_a_host_function_returning_what_cannot_cross_is_an_error_in_the_guest(sandbox, language):
    sandbox.bind_function("bad", lambda: object())
    snippet = code(
        language,
        "try:\n    bad()\nexcept TypeError as e:\n    r = 'TypeError'\nr",
        "let r; try { bad() } catch (e) { r = e.name } r",
    )
    assert sandbox.run(snippet) == "TypeError"


def test_output_goes_to_the_print_callback_or_to_sys_stdout(sandbox, language, capsys):
    events = []
    snippet = code(language, "print('out')\nimport sys\nprint('err', file=sys.stderr)",
                   "console.log('out'); console.error('err')")
    if language == "python":
        # monty has print(file=...) only for sys.stdout/stderr objects it knows.
        snippet = "print('out')"
    sandbox.run(snippet, print=lambda stream, text: events.append((stream, text)))
    assert ("stdout", "out\n") in events
    sandbox.run(code(language, "print('to sys')", "console.log('to sys')"))
    assert "to sys" in capsys.readouterr().out


def test_sandbox_report_names_the_layers_in_force(sandbox):
    report = sandbox.sandbox_report
    assert report["mode"] == "auto"
    assert "seccomp" in report["applied"]
    assert isinstance(report["missing"], dict)


def test_a_coroutine_function_is_refused_by_the_sync_sandbox(sandbox):
    async def fetch():
        return 1

    with pytest.raises(stockade.ConfigurationError, match="AsyncSandbox"):
        sandbox.bind_function("fetch", fetch)


def test_bad_options_are_configuration_errors_naming_them():
    with pytest.raises(stockade.ConfigurationError, match="frobnicate"):
        stockade.Sandbox(frobnicate=1)
    with pytest.raises(stockade.ConfigurationError, match="language"):
        stockade.Sandbox("cobol")
    with pytest.raises(stockade.ConfigurationError, match="sandbox"):
        stockade.Sandbox(sandbox="sometimes")
    with pytest.raises(stockade.ConfigurationError, match="request_timeout"):
        stockade.Sandbox(request_timeout=-1)
    with pytest.raises(stockade.ConfigurationError, match="javascript options"):
        stockade.Sandbox("python", strict_eval=True)
    with pytest.raises(stockade.ConfigurationError, match="nowhere"):
        stockade.Sandbox(worker="/nowhere/stockade-worker")


def test_a_print_callback_that_raises_does_not_end_the_run(sandbox, language, capsys):
    def broken(stream, text):
        raise RuntimeError("the callback broke")

    result = sandbox.run(code(language, "print('x')\n42", "console.log('x'); 42"), print=broken)
    assert result == 42
    assert "the callback broke" in capsys.readouterr().err


def test_a_sandbox_lost_to_the_request_timeout_says_so(language):
    with stockade.Sandbox(language, request_timeout=1) as sandbox:
        sandbox.run(code(language, "x = 1", "var x = 1"))
        # The guest's own exception leaves the sandbox as it was.
        assert sandbox.execute(code(language, "1 / 0", "null.boom")).error_type is not None
        assert not sandbox.lost
        failed = sandbox.execute(code(language, "while True:\n    pass", "for (;;) {}"))
        assert failed.error_type == "TimeLimitError"
        assert sandbox.lost
    assert sandbox.lost  # closed

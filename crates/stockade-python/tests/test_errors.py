"""Every exception class, raised by the failure it names, with its fields;
and execute(), which reports instead of raising."""

import os
import signal

import pytest

import stockade
from conftest import code


def test_a_guest_exception_is_guest_error_and_the_sandbox_lives(sandbox, language):
    snippet = code(language, "raise ValueError('bad row')", "throw new TypeError('bad row')")
    with pytest.raises(stockade.GuestError) as caught:
        sandbox.run(snippet)
    error = caught.value
    assert error.type == code(language, "ValueError", "TypeError")
    assert error.message == "bad row"
    assert "bad row" in error.traceback
    assert sandbox.run("1 + 1") == 2


def test_a_syntax_error_is_guest_syntax_error(sandbox, language):
    with pytest.raises(stockade.GuestSyntaxError, match="syntax error"):
        sandbox.run(code(language, "def (:", "let = ;"))
    assert sandbox.run("2") == 2


def test_max_duration_is_a_time_limit_error(language):
    limits = stockade.Limits(max_duration=0.3)
    with stockade.Sandbox(language, limits=limits) as sandbox:
        with pytest.raises(stockade.TimeLimitError) as caught:
            sandbox.run(code(language, "while True:\n    pass", "while (true) {}"))
        assert caught.value.limit == "max_duration"
        assert "max_duration" in str(caught.value)


def test_request_timeout_is_a_time_limit_error_and_loses_the_sandbox(language):
    with stockade.Sandbox(language, request_timeout=0.5) as sandbox:
        with pytest.raises(stockade.TimeLimitError) as caught:
            sandbox.run(code(language, "while True:\n    pass", "while (true) {}"))
        assert caught.value.limit == "request_timeout"
        assert caught.value.session_lost


def test_a_memory_limit_is_a_memory_limit_error(language):
    limits = stockade.Limits(max_memory=64 * 1024 * 1024)
    with stockade.Sandbox(language, limits=limits) as sandbox:
        with pytest.raises(stockade.MemoryLimitError):
            sandbox.run(code(language, "x = [0] * (10 ** 9)",
                             "const parts = []; while (true) parts.push('x'.repeat(100000));"))


def test_a_killed_worker_is_worker_crashed_with_its_signal(sandbox):
    os.kill(sandbox.worker_pid, signal.SIGKILL)
    with pytest.raises(stockade.WorkerCrashed) as caught:
        sandbox.run("1")
    assert caught.value.signal == signal.SIGKILL
    assert "start a new one" in str(caught.value)


def test_each_error_carries_the_host_librarys_advice(language):
    # The words on what to do next are the host library's, one text a kind
    # (contract/errors.rs), but where they name Python's own types.
    advice = stockade._native.ERROR_ADVICE
    assert set(advice) == set(stockade._native.ERROR_CLASSES)
    with stockade.Sandbox(language, max_result_bytes=1024) as sandbox:
        with pytest.raises(stockade.ResultTooLarge) as caught:
            sandbox.run(code(language, "'x' * 4096", "'x'.repeat(4096)"))
        assert str(caught.value).endswith(advice["ResultTooLarge"]), str(caught.value)
        with pytest.raises(stockade.GuestSyntaxError) as caught:
            sandbox.run(code(language, "1 +", "1 +"))
        assert str(caught.value).endswith(advice["GuestSyntaxError"]), str(caught.value)
    with pytest.raises(stockade.ConfigurationError) as caught:
        stockade.Sandbox(language, max_threads=0)
    assert "max_threads must be between 1 and" in str(caught.value)
    assert str(caught.value).endswith(advice["ConfigurationError"]), str(caught.value)


def test_every_error_is_a_stockade_error():
    for cls in (stockade.GuestError, stockade.GuestSyntaxError, stockade.TimeLimitError,
                stockade.MemoryLimitError, stockade.WorkerCrashed, stockade.ConversionError,
                stockade.ConfigurationError, stockade.ResultTooLarge):
        assert issubclass(cls, stockade.StockadeError)


def test_execute_reports_success_with_captured_output(sandbox, language):
    result = sandbox.execute(code(language, "print('hi')\n6 * 7", "console.log('hi'); 6 * 7"))
    assert result.ok and result.status == "ok"
    assert (result.result, result.stdout, result.stderr) == (42, "hi\n", "")
    assert not result.truncated and result.error is None and result.error_type is None


def test_execute_reports_failures_instead_of_raising(sandbox, language):
    failed = sandbox.execute(code(language, "print('before')\nraise KeyError('k')",
                                  "console.log('before'); throw new RangeError('k')"))
    assert failed.status == "error"
    assert failed.error_type == code(language, "KeyError", "RangeError")
    assert failed.stdout == "before\n"
    assert sandbox.execute("(").error_type == "SyntaxError"


def test_execute_cuts_each_stream_at_its_limit(sandbox, language):
    result = sandbox.execute(
        code(language, "for i in range(1000):\n    print('x' * 99)",
             "for (let i = 0; i < 1000; i++) console.log('x'.repeat(99))"),
        max_stream_bytes=1000)
    assert result.ok and result.truncated
    assert len(result.stdout) == 1000


def test_execute_counts_the_stream_limit_in_bytes_and_keeps_whole_characters(sandbox, language):
    # "é" is two bytes of UTF-8 and "€" three: the limit is bytes, as in the
    # Node package and the MCP tools, and no character is cut in two.
    result = sandbox.execute(code(language, "print('é' * 600)", "console.log('é'.repeat(600))"),
                             max_stream_bytes=1001)
    assert result.truncated
    assert result.stdout == "é" * 500
    result = sandbox.execute(code(language, "print('€' * 10)", "console.log('€'.repeat(10))"),
                             max_stream_bytes=29)
    assert result.truncated and result.stdout == "€" * 9
    result = sandbox.execute(code(language, "print('€' * 10)", "console.log('€'.repeat(10))"),
                             max_stream_bytes=31)
    assert not result.truncated and result.stdout == "€" * 10 + "\n"
    # A character that does not fit ends the stream: nothing after it is
    # kept, so the stream is a prefix of what the guest printed.
    result = sandbox.execute(code(language, "print('abcd', end='')\nprint('€', end='')\nprint('a')",
                                  "console.log('abcd€a')"),
                             max_stream_bytes=5)
    assert result.truncated and result.stdout == "abcd"


def test_execute_refuses_a_result_past_the_limit(sandbox, language):
    result = sandbox.execute(code(language, "'x' * 2000000", "'x'.repeat(2000000)"))
    assert result.status == "error" and result.error_type == "ResultTooLarge"
    assert sandbox.execute(code(language, "'x' * 100", "'x'.repeat(100)")).ok


def test_execute_reports_time_limits(language):
    with stockade.Sandbox(language, limits=stockade.Limits(max_duration=0.2)) as sandbox:
        result = sandbox.execute(code(language, "while True:\n    pass", "while (true) {}"))
        assert result.error_type == "TimeLimitError"


def test_execute_passes_all_output_to_a_print_callback_even_past_the_cap(sandbox, language):
    seen = []
    result = sandbox.execute(
        code(language, "print('x' * 5000)", "console.log('x'.repeat(5000))"),
        print=lambda stream, text: seen.append(text), max_stream_bytes=100)
    assert result.truncated and len(result.stdout) == 100
    assert sum(len(t) for t in seen) == 5001


def test_every_error_kind_of_the_host_library_is_a_class_of_its_name():
    # One name a kind (the host library's ErrorKind::class_name): the native
    # layer sends it, execute() and MCP report it as error_type, and the
    # Node package's class has it too.
    assert "GuestError" in stockade._native.ERROR_CLASSES
    for name in stockade._native.ERROR_CLASSES:
        cls = getattr(stockade, name)
        assert issubclass(cls, stockade.StockadeError), name
        assert name in stockade.__all__, name
        assert type(stockade._errors._from_native(name, "what happened", {})) is cls, name
    assert type(stockade._errors._from_native("NoSuchKind", "what happened", {})) is stockade.StockadeError

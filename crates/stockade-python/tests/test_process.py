"""How the package behaves as part of a Python process: the GIL is free
while a worker runs, Ctrl-C interrupts a run, threads, and fork."""

import os
import signal
import threading
import time

import pytest

import stockade
from conftest import code, in_forked_child, process_gone

BUSY = {"python": "n = 0\nfor i in range(3000000):\n    n += i\nn",
        "javascript": "let n = 0; for (let i = 0; i < 60000000; i++) n += i; n"}


def test_the_gil_is_released_while_the_worker_runs(language):
    ticks = 0
    stop = threading.Event()

    def count():
        nonlocal ticks
        while not stop.is_set():
            ticks += 1

    with stockade.Sandbox(language) as sandbox:
        counter = threading.Thread(target=count)
        counter.start()
        before = ticks
        started = time.monotonic()
        sandbox.run(BUSY[language])
        took = time.monotonic() - started
        during = ticks - before
        stop.set()
        counter.join()
    assert took > 0.05, "the guest work was too short to tell"
    # A thread starved of the GIL would barely count at all.
    assert during > 10000, f"{during} ticks in {took:.2f} s"


def test_ctrl_c_interrupts_a_run_kills_its_worker_and_the_host_lives(
        language, sigint_raises_keyboard_interrupt):
    with stockade.Sandbox(language) as sandbox:
        pid = sandbox.worker_pid
        timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
        timer.start()
        started = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            sandbox.run(code(language, "while True:\n    pass", "while (true) {}"))
        assert time.monotonic() - started < 5
        timer.join()
        assert process_gone(pid)
        with pytest.raises(stockade.StockadeError):
            sandbox.run("1")
    with stockade.Sandbox(language) as fresh:
        assert fresh.run("1 + 1") == 2


def test_a_sandbox_refuses_a_second_thread_while_it_runs(language):
    with stockade.Sandbox(language) as sandbox:
        errors = []

        def second():
            time.sleep(0.05)
            try:
                sandbox.run("1")
            except RuntimeError as error:
                errors.append(str(error))

        thread = threading.Thread(target=second)
        thread.start()
        sandbox.run(BUSY[language])
        thread.join()
        assert errors and "another thread" in errors[0]


def test_sandboxes_in_several_threads_run_at_once(language):
    results = {}

    def work(n):
        with stockade.Sandbox(language) as sandbox:
            results[n] = sandbox.run("x * 2", inputs={"x": n})

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == {0: 0, 1: 2, 2: 4, 3: 6}


def test_a_forked_child_starts_its_own_worker_and_leaves_the_parents_alone(language):
    with stockade.Sandbox(language) as sandbox:
        sandbox.bind_function("double", lambda n: n * 2)
        sandbox.run(code(language, "kept = 1", "var kept = 1"))
        parent_worker = sandbox.worker_pid

        def in_child():
            # A new worker, with the functions but not the state.
            outcome = [sandbox.worker_pid != parent_worker, sandbox.run("double(21)")]
            try:
                sandbox.run("kept")
                outcome.append("state leaked")
            except stockade.GuestError:
                outcome.append("fresh")
            return outcome

        reported, status = in_forked_child(in_child)
        assert status == 0
        assert reported == "[True, 42, 'fresh']"
        # The parent's sandbox and worker are untouched.
        assert sandbox.worker_pid == parent_worker
        assert sandbox.run("kept") == 1


def test_ctrl_c_inside_a_host_function_ends_the_run_too(language, sigint_raises_keyboard_interrupt):
    def slow():
        time.sleep(5)
        return 1

    with stockade.Sandbox(language) as sandbox:
        sandbox.bind_function("slow", slow)
        timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
        timer.start()
        started = time.monotonic()
        # The guest catches everything it can; the interrupt is not its to catch.
        snippet = code(language,
                       "try:\n    slow()\nexcept BaseException:\n    pass\nwhile True:\n    pass",
                       "try { slow() } catch (e) {} while (true) {}")
        with pytest.raises(KeyboardInterrupt):
            sandbox.run(snippet)
        assert time.monotonic() - started < 5
        timer.join()


def test_the_ctrl_c_tests_pass_in_a_process_started_with_sigint_ignored():
    # As a shell starts a background job: the tests set up the handler
    # they rely on rather than hang until request_timeout.
    import subprocess
    import sys

    started = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", __file__,
         "-k", "ctrl_c and not sigint_ignored"],
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
        capture_output=True, text=True, timeout=120)
    assert started.returncode == 0, started.stdout[-3000:]
    assert "4 passed" in started.stdout

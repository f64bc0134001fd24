"""Shared fixtures: every test runs real sandboxed workers."""

import signal

import pytest

import stockade

LANGUAGES = ["python", "javascript"]


@pytest.fixture(params=LANGUAGES)
def language(request):
    return request.param


@pytest.fixture
def sandbox(language):
    with stockade.Sandbox(language) as sandbox:
        yield sandbox


@pytest.fixture
def sigint_raises_keyboard_interrupt():
    """Ctrl-C (SIGINT) raises KeyboardInterrupt in this process for the
    test, however the process was started: a shell starts a background job,
    and some job runners start their children, with SIGINT ignored, and
    Python then installs no handler of its own."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def code(language, python, javascript):
    """The same snippet in the sandbox's language."""
    return python if language == "python" else javascript


def in_forked_child(work):
    """Runs `work()` in a forked child; returns the repr of its result (or
    of the exception it raised) and the child's exit status."""
    import os

    read, write = os.pipe()
    child = os.fork()
    if child == 0:
        try:
            try:
                outcome = repr(work())
            except BaseException as error:  # the parent reports it
                outcome = f"raised {error!r}"
            os.write(write, outcome.encode())
        finally:
            os._exit(0)
    os.close(write)
    _, status = os.waitpid(child, 0)
    reported = os.read(read, 10000).decode()
    os.close(read)
    return reported, status


def process_gone(pid):
    """Whether process `pid` has ended (exited, or a zombie not yet reaped).
    /proc may vanish between any two looks while the host reaps it."""
    try:
        with open(f"/proc/{pid}/status") as status:
            return "State:\tZ" in status.read()
    except OSError:
        return True

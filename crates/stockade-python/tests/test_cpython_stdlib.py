"""CPython's own unit tests for the standard-library modules guests use
most, run inside the sandbox (under `require`, with a scratch) and on the
host's interpreter: every test that passes on the host passes in the
sandbox, except tests that start processes (the sandbox kills `execve`
and refuses `fork`), open network sockets (the sandbox has no network) or
open a pseudo-terminal (it shows no /dev/ptmx), each such exception found
by its traceback or its reason for skipping, and counted. docs/data.md, "CPython's own tests", lists
them."""

import json
import subprocess
import sys
import time

import pytest

import stockade

MODULES = ["test_json", "test_re", "test_datetime", "test_csv", "test_sqlite3", "test_tempfile",
           "test_zoneinfo", "test_hashlib", "test_base64", "test_threading", "test_decimal",
           "test_statistics", "test_asyncio"]

#: Where a test starts a process: any of these in its traceback.
STARTS_A_PROCESS = ("subprocess.py", "script_helper.py", "_posixsubprocess", "os.fork(",
                    "posix_spawn", "multiprocessing", "os.system(", "spawn_python",
                    "assert_python_ok", "assert_python_failure", "fork_exec", "in _spawnvef",
                    "os.waitpid(")

#: Where a test opens a network socket (or a TLS connection over one):
#: any of these in its traceback, or in its reason for skipping.
NEEDS_THE_NETWORK = ("_socket.socket.__init__(self, family, type, proto, fileno)",
                     "Requires a functional unix bind()", "No ssl module", "IPv6",
                     "in getaddrinfo", "Can not create socket", "server.sockets",
                     "srv.sockets")

#: Where a test opens a pseudo-terminal: the sandbox shows no /dev/ptmx.
NEEDS_A_TERMINAL = ("os.openpty()",)

#: Why a test skipped inside: the sandbox refuses pidfds, which only
#: child processes need.
SKIPPED_FOR_PROCESSES = ("pidfd",)

#: Tests that would wait for ever inside, with the reason: not run there.
NEVER_ENDING = {
    "test.test_asyncio.test_streams.StreamTests.test_drain_raises":
        "its server thread cannot make a socket without a network, and the test waits for it",
}

#: Tests whose failure inside follows from a process they started or a
#: socket they could not make, though their traceback (a cleanup's, a
#: later step's) does not show it, with the reason.
FOLLOWS_AN_EXCEPTION = {
    "test.test_json.test_tool.": "runs `python -m json.tool`; its cleanup then finds no output file",
    "test.test_asyncio.test_unix_events.SelectorEventLoopUnixSocketTests.test_create_unix_server_existing_path_nonsock":
        "expects a Unix socket bound over a file to fail as in use; making the socket fails first",
}

#: Runs one of CPython's test modules with unittest and gives each test's
#: outcome: "pass", "skip: REASON", or the traceback of its error or failure.
RUNNER = r'''
import io, sys, unittest

class Outcomes(unittest.TestResult):
    def __init__(self):
        super().__init__()
        self.outcomes = {}
    def addSuccess(self, test):
        self.outcomes.setdefault(test.id(), "pass")
    def addSkip(self, test, reason):
        self.outcomes[test.id()] = "skip: " + str(reason)
    def addExpectedFailure(self, test, err):
        self.outcomes[test.id()] = "pass"
    def addUnexpectedSuccess(self, test):
        self.outcomes[test.id()] = "unexpected success"
    def _bad(self, test, err):
        self.outcomes[test.id()] = self._exc_info_to_string(err, test)
    addError = addFailure = _bad
    def addSubTest(self, test, subtest, err):
        if err is not None:
            self.outcomes[test.id()] = self._exc_info_to_string(err, test)

def skip_unrun(suite, never_ending):
    for test in suite:
        if isinstance(test, unittest.TestSuite):
            skip_unrun(test, never_ending)
        elif test.id() in never_ending:
            setattr(test, test._testMethodName,
                    unittest.skip("never ends here")(lambda: None))

def outcomes(name, never_ending=()):
    """Runs the module's tests, those in `never_ending` skipped unrun."""
    suite = unittest.defaultTestLoader.loadTestsFromName("test." + name)
    skip_unrun(suite, set(never_ending))
    result = Outcomes()
    suite.run(result)
    return result.outcomes
'''


def start_host_run(name):
    """Starts the module's tests on the host's interpreter, to run while
    the sandbox runs them (the machine has a core for each)."""
    code = RUNNER + f"\nimport json\nprint(json.dumps(outcomes({name!r})))"
    return subprocess.Popen([sys.executable, "-I", "-S", "-c", code], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd="/tmp")


def host_outcomes(run):
    stdout, stderr = run.communicate(timeout=600)
    assert run.returncode == 0, stderr[-2000:]
    return json.loads(stdout.splitlines()[-1])


@pytest.fixture(scope="module")
def sandbox():
    with stockade.Sandbox(engine="cpython", sandbox="require",
                          limits=stockade.Limits(max_duration=1200),
                          request_timeout=600) as sandbox:
        sandbox.run(RUNNER)
        # CPython's test support asks once whether a Unix socket can be
        # bound, assuming one can be made; here none can (no network), so
        # it is told what its probe would meet, and skips those tests.
        sandbox.run("from test.support import socket_helper\n"
                    "socket_helper._bind_nix_socket_error = PermissionError(1, 'no network')")
        yield sandbox


@pytest.mark.parametrize("name", MODULES)
def test_cpythons_own_tests_pass_in_the_sandbox_as_on_the_host(sandbox, name):
    started = time.monotonic()
    host_run = start_host_run(name)
    try:
        inside = sandbox.run(f"outcomes({name!r}, {sorted(NEVER_ENDING)!r})",
                             print=lambda stream, text: None)
        host = host_outcomes(host_run)
    finally:
        host_run.kill()
        host_run.wait()
    assert len(inside) >= len(host) * 0.95, f"{name}: {len(inside)} tests ran, {len(host)} on the host"
    passed_on_host = [test for test, outcome in host.items() if outcome == "pass"]
    assert passed_on_host, name
    differ = {test: inside.get(test, "not run") for test in passed_on_host
              if inside.get(test) not in ("pass", None)}
    starts_a_process = {test for test, outcome in differ.items()
                        if any(mark in outcome for mark in STARTS_A_PROCESS)
                        or outcome.startswith("skip") and any(
                            mark in outcome for mark in SKIPPED_FOR_PROCESSES)}
    needs_the_network = {test for test, outcome in differ.items()
                         if any(mark in outcome for mark in NEEDS_THE_NETWORK)}
    needs_a_terminal = {test for test, outcome in differ.items()
                        if any(mark in outcome for mark in NEEDS_A_TERMINAL)}
    unexplained = {test: outcome[-600:] for test, outcome in differ.items()
                   if test not in starts_a_process | needs_the_network | needs_a_terminal
                   and test not in NEVER_ENDING
                   and not any(test.startswith(prefix) for prefix in FOLLOWS_AN_EXCEPTION)}
    assert not unexplained, f"{name}: {len(unexplained)} tests pass on the host only: {unexplained}"
    missing = [test for test in passed_on_host if test not in inside]
    assert len(missing) <= len(passed_on_host) * 0.02, f"{name}: not run inside: {missing[:20]}"
    # What the exceptions are, for the report (`pytest -s` shows it).
    print(f"{name} ({time.monotonic() - started:.0f} s): {len(passed_on_host)} pass on the host; inside, "
          f"{len(starts_a_process)} start processes and "
          f"{len(needs_the_network)} open network sockets, "
          f"{len(needs_a_terminal)} open a terminal")

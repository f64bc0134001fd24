"""CPython's own unit tests for the standard-library modules guests use
most, run inside the sandbox (under `require`, with a scratch) and on the
host's interpreter: every test that passes on the host passes in the
sandbox, except tests that start processes (the sandbox kills `execve`
and refuses `fork`), each such exception found by its traceback and
counted. docs/data.md, "CPython's own tests", lists them."""

import json
import subprocess
import sys

import pytest

import stockade

MODULES = ["test_json", "test_re", "test_datetime", "test_csv", "test_sqlite3", "test_tempfile",
           "test_zoneinfo", "test_hashlib", "test_base64", "test_threading", "test_decimal",
           "test_statistics"]

#: Where a test starts a process: any of these in its traceback.
STARTS_A_PROCESS = ("subprocess.py", "script_helper.py", "_posixsubprocess", "os.fork(",
                    "posix_spawn", "multiprocessing", "os.system(", "spawn_python",
                    "assert_python_ok", "assert_python_failure", "fork_exec", "in _spawnvef")

#: Tests whose failure inside follows from a process they started, though
#: their traceback (a cleanup's) does not show it, with the reason.
FOLLOWS_A_PROCESS = {
    "test.test_json.test_tool.": "runs `python -m json.tool`; its cleanup then finds no output file",
}

#: Runs one of CPython's test modules with unittest and gives each test's
#: outcome: "pass", "skip", or the traceback of its error or failure.
RUNNER = r'''
import io, sys, unittest

class Outcomes(unittest.TestResult):
    def __init__(self):
        super().__init__()
        self.outcomes = {}
    def addSuccess(self, test):
        self.outcomes.setdefault(test.id(), "pass")
    def addSkip(self, test, reason):
        self.outcomes[test.id()] = "skip"
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

def outcomes(name):
    suite = unittest.defaultTestLoader.loadTestsFromName("test." + name)
    result = Outcomes()
    suite.run(result)
    return result.outcomes
'''


def host_outcomes(name):
    code = RUNNER + f"\nimport json\nprint(json.dumps(outcomes({name!r})))"
    done = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True,
                          text=True, timeout=600, cwd="/tmp")
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


@pytest.fixture(scope="module")
def sandbox():
    with stockade.Sandbox(engine="cpython", sandbox="require",
                          limits=stockade.Limits(max_duration=1200),
                          request_timeout=600) as sandbox:
        sandbox.run(RUNNER)
        yield sandbox


@pytest.mark.parametrize("name", MODULES)
def test_cpythons_own_tests_pass_in_the_sandbox_as_on_the_host(sandbox, name):
    host = host_outcomes(name)
    inside = sandbox.run(f"outcomes({name!r})", print=lambda stream, text: None)
    assert len(inside) >= len(host) * 0.95, f"{name}: {len(inside)} tests ran, {len(host)} on the host"
    passed_on_host = [test for test, outcome in host.items() if outcome == "pass"]
    assert passed_on_host, name
    differ = {test: inside.get(test, "not run") for test in passed_on_host
              if inside.get(test) not in ("pass", None)}
    unexplained = {test: outcome[-600:] for test, outcome in differ.items()
                   if not any(mark in outcome for mark in STARTS_A_PROCESS)
                   and not any(test.startswith(prefix) for prefix in FOLLOWS_A_PROCESS)}
    assert not unexplained, f"{name}: {len(unexplained)} tests pass on the host only: {unexplained}"
    missing = [test for test in passed_on_host if test not in inside]
    assert len(missing) <= len(passed_on_host) * 0.02, f"{name}: not run inside: {missing[:20]}"
    # What the exceptions are, for the report (`pytest -s` shows it).
    print(f"{name}: {len(passed_on_host)} pass on the host; "
          f"{len(differ)} start processes and fail inside")

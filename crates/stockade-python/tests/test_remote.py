"""Remote sandboxes: `Sandbox(..., remote=URL, token=...)` against a real
`stockade serve` on loopback, started by the fixture below from the CLI of
this checkout's release build (or $STOCKADE_CLI)."""

import asyncio
import os
import subprocess
import time
from pathlib import Path

import pytest

import stockade

TOKEN = "a-python-test-token-0123"
CLI = os.environ.get("STOCKADE_CLI") or str(
    Path(__file__).resolve().parents[3] / "target" / "release" / "stockade")


class Server:
    def __init__(self, tmp_path, *flags):
        tokens = tmp_path / "tokens"
        tokens.write_text(f"{TOKEN}\n")
        self.process = subprocess.Popen(
            [CLI, "serve", "--listen", "127.0.0.1:0", "--tokens", str(tokens), *flags],
            stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
        line = self.process.stdout.readline()
        assert line.startswith("stockade serve: listening on "), line
        self.url = line.split(" on ", 1)[1].strip()

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def server(tmp_path):
    if not os.path.exists(CLI):
        pytest.fail(f"no stockade CLI at {CLI}: build it (cargo build --release) or set $STOCKADE_CLI")
    running = Server(tmp_path)
    yield running
    running.stop()


@pytest.mark.parametrize("language,engine,snippet", [
    ("python", "cpython", "total = add(40, 2)\ntotal"),
    ("python", "monty", "total = add(40, 2)\ntotal"),
    ("javascript", None, "let total = add(40, 2); total"),
])
def test_a_remote_sandbox_keeps_state_and_calls_host_functions_here(server, language, engine,
                                                                     snippet):
    options = {"engine": engine} if engine else {}
    with stockade.Sandbox(language, remote=server.url, token=TOKEN, **options) as sandbox:
        sandbox.bind_function("add", lambda a, b: a + b)
        assert sandbox.run(snippet) == 42
        assert sandbox.run("total") == 42
        printed = sandbox.execute("print('hi')" if language == "python" else "console.log('hi')")
        assert printed.ok and printed.stdout == "hi\n"


def test_a_wrong_token_raises_unauthorized(server):
    with pytest.raises(stockade.Unauthorized, match="token"):
        stockade.Sandbox("python", remote=server.url, token="not-the-token-at-all")
    with pytest.raises(stockade.ConfigurationError, match="remote="):
        stockade.Sandbox("python", token=TOKEN)


def test_a_limit_above_the_servers_ceiling_is_a_configuration_error(server):
    with pytest.raises(stockade.ConfigurationError, match="max_memory.*ceiling"):
        stockade.Sandbox("python", remote=server.url, token=TOKEN,
                         limits=stockade.Limits(max_memory=8 << 30))


def test_a_remote_sandbox_reads_the_files_this_host_mounts(server, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "n.txt").write_text("41")
    mount = stockade.Mount("/data", data, mode="ro")
    with stockade.Sandbox("python", engine="monty", remote=server.url, token=TOKEN,
                          mounts=mount) as sandbox:
        assert sandbox.run("from pathlib import Path\nint(Path('/data/n.txt').read_text()) + 1") == 42


def test_an_async_remote_sandbox_awaits_host_coroutines(server):
    async def main():
        async def fetch(key):
            await asyncio.sleep(0.01)
            return {"a": 41}[key]

        async with stockade.AsyncSandbox("python", engine="monty", remote=server.url,
                                         token=TOKEN) as sandbox:
            sandbox.bind_function("fetch", fetch)
            return await sandbox.run("(await fetch('a')) + 1")

    assert asyncio.run(main()) == 42


def test_a_session_the_server_ends_is_disconnected(tmp_path):
    server = Server(tmp_path, "--idle-timeout", "1")
    try:
        with stockade.Sandbox("python", engine="monty", remote=server.url,
                              token=TOKEN) as sandbox:
            sandbox.run("x = 1")
            time.sleep(1.5)
            with pytest.raises(stockade.Disconnected, match="idle timeout"):
                sandbox.run("x")
    finally:
        server.stop()


def test_sessions_past_the_servers_capacity_raise_over_capacity(tmp_path):
    server = Server(tmp_path, "--max-sessions", "1")
    try:
        with stockade.Sandbox("javascript", remote=server.url, token=TOKEN) as first:
            first.run("1")
            with pytest.raises(stockade.OverCapacity, match="most sessions"):
                stockade.Sandbox("javascript", remote=server.url, token=TOKEN)
    finally:
        server.stop()


def test_a_sandbox_its_server_shut_down_carries_its_dump_to_go_on_elsewhere(tmp_path):
    server = Server(tmp_path, "--grace", "1")
    key, context = b"k" * 32, "a conversation"
    try:
        sandbox = stockade.Sandbox("python", engine="monty", remote=server.url, token=TOKEN,
                                   dump_keys=[key], dump_context=context)
        sandbox.run("x = 41")
        server.process.terminate()
        time.sleep(2.5)
        with pytest.raises(stockade.ServerShutdown, match="shutting down") as ended:
            sandbox.run("x")
        assert isinstance(ended.value, stockade.Disconnected)
        assert ended.value.dump
        with stockade.Sandbox.restore(ended.value.dump, "python", engine="monty",
                                      dump_keys=[key], dump_context=context) as here:
            assert here.run("x + 1") == 42
    finally:
        server.stop()

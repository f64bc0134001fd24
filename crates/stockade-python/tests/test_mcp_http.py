"""MCP over streamable HTTP: `stockade serve` answers the tools of
`stockade mcp` at /mcp, behind its token check, and the official MCP Python
SDK's client drives it as a remote agent would. The server is the installed
wheel's CLI, started on loopback."""

import asyncio
import logging
import pathlib
import signal
import subprocess
import sys
import time

import httpx2
import pytest
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

STOCKADE = str(pathlib.Path(sys.executable).parent / "stockade")
TOKEN = "an-mcp-over-http-test-token"
OTHER_TOKENS = ["another-mcp-over-http-token", "a-third-mcp-over-http-token"]
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "raw", "version": "0"}}}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


class Server:
    def __init__(self, tmp_path, *flags, tokens=True):
        args = [STOCKADE, "serve", "--listen", "127.0.0.1:0", *flags]
        if tokens:
            (tmp_path / "tokens").write_text("\n".join([TOKEN, *OTHER_TOKENS]) + "\n")
            args += ["--tokens", str(tmp_path / "tokens")]
        self.process = subprocess.Popen(args, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                        text=True)
        line = self.process.stdout.readline()
        assert line.startswith("stockade serve: listening on ws://"), line
        self.base = "http://" + line.rsplit("//", 1)[1].strip()
        self.url = self.base + "/mcp"

    def __enter__(self):
        return self

    def __exit__(self, *_):
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


def client(server, token=TOKEN):
    headers = {"Authorization": f"Bearer {token}"} if token else None
    http = create_mcp_http_client(headers=headers)
    return Client(streamable_http_client(server.url, http_client=http))


def test_mcp_over_http_keeps_each_clients_state_across_calls(tmp_path):
    async def agent(server, value):
        async with client(server) as session:
            await session.call_tool("run_python", {"code": f"x = {value}"})
            await session.call_tool("run_javascript", {"code": f"var y = {value} * 10"})
            # The other client's calls run meanwhile, in sandboxes of its own.
            await asyncio.sleep(0.2)
            python = await session.call_tool("run_python", {"code": "x + 1"})
            javascript = await session.call_tool("run_javascript", {"code": "y + 1"})
            tools = await session.list_tools()
            return python, javascript, tools, session.session.protocol_version

    async def main(server):
        return await asyncio.gather(agent(server, 1), agent(server, 2))

    with Server(tmp_path, "--sandbox", "require") as server:
        (first, first_js, tools, version), (second, second_js, _, _) = asyncio.run(main(server))
    # The SDK's default client asks for 2026-07-28 first and falls back.
    assert version == "2025-11-25"
    assert first.structured_content["result"] == "2"
    assert second.structured_content["result"] == "3"
    assert first_js.structured_content["result"] == "11"
    assert second_js.structured_content["result"] == "21"
    assert {tool.name for tool in tools.tools} == {"run_python", "run_javascript", "reset"}


def test_mcp_over_http_requires_a_token(tmp_path):
    with Server(tmp_path) as server:
        missing = httpx2.post(server.url, json=INITIALIZE, headers=MCP_HEADERS)
        wrong = httpx2.post(server.url, json=INITIALIZE,
                            headers={**MCP_HEADERS, "Authorization": "Bearer not-the-token-at-all"})
        right = httpx2.post(server.url, json=INITIALIZE,
                            headers={**MCP_HEADERS, "Authorization": f"Bearer {TOKEN}"})
    assert missing.status_code == 401 and wrong.status_code == 401
    assert missing.headers["www-authenticate"] == "Bearer"
    assert right.status_code == 200 and right.headers["mcp-session-id"]


def test_mcp_over_http_a_session_serves_only_the_token_that_opened_it(tmp_path):
    def post(server, token, body, session=None):
        headers = {**MCP_HEADERS, "Authorization": f"Bearer {token}"}
        if session:
            headers.update({"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"})
        return httpx2.post(server.url, json=body, headers=headers)

    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "run_python", "arguments": {"code": "secret = 'mine'\nsecret"}}}
    with Server(tmp_path) as server:
        session = post(server, TOKEN, INITIALIZE).headers["mcp-session-id"]
        post(server, TOKEN, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
        owner = post(server, TOKEN, call, session)
        stolen = post(server, OTHER_TOKENS[0], {**call, "params": {
            "name": "run_python", "arguments": {"code": "secret"}}}, session)
        other = {"Authorization": f"Bearer {OTHER_TOKENS[0]}", "Accept": "text/event-stream",
                 "Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"}
        stream = httpx2.get(server.url, headers=other, timeout=10)
        ended = httpx2.delete(server.url, headers=other)
        still = post(server, TOKEN, {**call, "id": 3}, session)
    assert "mine" in owner.text
    assert stolen.status_code == 404 and "mine" not in stolen.text
    assert stream.status_code == 404 and ended.status_code == 404
    assert "mine" in still.text


def test_mcp_over_http_a_request_without_a_session_must_open_one(tmp_path):
    """Sessionless requests (a call whose _meta names its protocol
    version) would each meet a fresh sandbox whose state is gone at once."""
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "run_python", "arguments": {"code": "x = 1"},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2025-11-25",
                  "io.modelcontextprotocol/clientCapabilities": {}}}}
    headers = {**MCP_HEADERS, "Authorization": f"Bearer {TOKEN}",
               "MCP-Protocol-Version": "2025-11-25"}
    with Server(tmp_path) as server:
        sessionless = httpx2.post(server.url, json=call, headers=headers)
        unreadable = httpx2.post(server.url, json=call, headers={
            **headers, "Mcp-Session-Id": b"\xff"})
        session = httpx2.post(server.url, json=INITIALIZE, headers=headers).headers["mcp-session-id"]
        # rmcp would serve it with a fresh handler even in a session.
        in_session = httpx2.post(server.url, json=call, headers={**headers, "Mcp-Session-Id": session})
    assert sessionless.status_code == 400 and "initialize" in sessionless.text
    assert unreadable.status_code == 404
    assert in_session.status_code == 400 and "sessionless" in in_session.text


def test_mcp_over_http_a_session_has_one_event_stream(tmp_path):
    with Server(tmp_path) as server:
        headers = {**MCP_HEADERS, "Authorization": f"Bearer {TOKEN}"}
        session = httpx2.post(server.url, json=INITIALIZE, headers=headers).headers["mcp-session-id"]
        stream_headers = {"Authorization": f"Bearer {TOKEN}", "Accept": "text/event-stream",
                          "Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"}
        with httpx2.Client(timeout=10) as http:
            with http.stream("GET", server.url, headers=stream_headers) as first:
                second = http.get(server.url, headers=stream_headers)
                # Resuming the session's stream is the session's stream too.
                shadow = http.get(server.url, headers={**stream_headers, "Last-Event-ID": "0"})
            # The first stream closed: the next may open.
            with http.stream("GET", server.url, headers=stream_headers) as third:
                third_status = third.status_code
    assert first.status_code == 200
    assert second.status_code == 409 and shadow.status_code == 409
    assert third_status == 200


def test_mcp_over_http_without_tokens_refuses_other_hosts_and_web_pages(tmp_path):
    with Server(tmp_path, tokens=False) as server:
        rebound = httpx2.post(server.url, json=INITIALIZE,
                              headers={**MCP_HEADERS, "Host": "attacker.example"})
        page = httpx2.post(server.url, json=INITIALIZE,
                           headers={**MCP_HEADERS, "Origin": "http://attacker.example"})
        local = httpx2.post(server.url, json=INITIALIZE, headers=MCP_HEADERS)
    assert rebound.status_code == 403
    assert page.status_code == 403
    assert local.status_code == 200


def test_mcp_over_http_reports_a_time_limit_and_the_next_call_works(tmp_path):
    async def main(server):
        async with client(server) as session:
            stuck = await session.call_tool("run_python", {"code": "while True:\n    pass"})
            after = await session.call_tool("run_python", {"code": "6 * 7"})
            return stuck, after

    with Server(tmp_path, "--request-timeout", "1") as server:
        stuck, after = asyncio.run(main(server))
    assert stuck.is_error and stuck.structured_content["error_type"] == "TimeLimitError"
    assert after.structured_content["result"] == "42"
    assert "fresh" in after.structured_content["note"]


def test_mcp_over_http_sandboxes_count_against_max_sessions(tmp_path, caplog):
    async def main(server):
        async with client(server) as first:
            await first.call_tool("run_python", {"code": "1"})
            ready_while_held = httpx2.get(server.base + "/readyz")
            async with client(server) as second:
                refused = await second.call_tool("run_javascript", {"code": "1"})
                await first.call_tool("reset", {})
                admitted = await second.call_tool("run_javascript", {"code": "2"})
        # Both clients ended their MCP sessions, and so their sandboxes.
        for _ in range(100):
            if httpx2.get(server.base + "/readyz").status_code == 200:
                break
            await asyncio.sleep(0.05)
        ready_after = httpx2.get(server.base + "/readyz")
        return ready_while_held, refused, admitted, ready_after

    with caplog.at_level(logging.WARNING):
        with Server(tmp_path, "--max-sessions", "1") as server:
            ready_while_held, refused, admitted, ready_after = asyncio.run(main(server))
    assert ready_while_held.status_code == 503 and ready_while_held.text == "full\n"
    assert refused.is_error
    assert refused.structured_content["error_type"] == "OverCapacity"
    assert "most sessions" in refused.structured_content["error_message"]
    assert admitted.structured_content["result"] == "2"
    assert ready_after.status_code == 200
    # The clients' session ends were taken as done.
    assert not [r for r in caplog.records if "termination failed" in r.getMessage()]


def test_mcp_over_http_ending_a_session_ends_its_call_under_way(tmp_path):
    """The client ends its MCP session (DELETE) while a call of it spins,
    without cancelling the call first: the worker goes with the session, and
    the server's one place is free for the next client at once."""
    headers = {**MCP_HEADERS, "Authorization": f"Bearer {TOKEN}"}
    spin = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "run_python", "arguments": {"code": "while True:\n    pass"}}}
    with Server(tmp_path, "--max-sessions", "1", "--request-timeout", "120") as server:
        session = httpx2.post(server.url, json=INITIALIZE, headers=headers).headers["mcp-session-id"]
        in_session = {**headers, "Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"}
        httpx2.post(server.url, json={"jsonrpc": "2.0", "method": "notifications/initialized"},
                    headers=in_session)
        with httpx2.Client(timeout=60) as http:
            with http.stream("POST", server.url, json=spin, headers=in_session):
                for _ in range(200):
                    if "full" in httpx2.get(server.base + "/readyz").text:
                        break
                    time.sleep(0.05)
                held = httpx2.get(server.base + "/readyz").text
                ended = httpx2.delete(server.url, headers=in_session)

                async def next_client():
                    async with client(server) as second:
                        return await second.call_tool("run_javascript", {"code": "6 * 7"})

                after = asyncio.run(next_client())
    assert held == "full\n"
    assert ended.status_code == 204
    assert not after.is_error, after.structured_content
    assert after.structured_content["result"] == "42"


def test_mcp_over_http_an_idle_session_ends_and_gives_its_places_back(tmp_path):
    """An MCP session is idle past --idle-timeout (at least a call's
    --request-timeout and 5 s more, so that a call never idles out)."""
    headers = {**MCP_HEADERS, "Authorization": f"Bearer {TOKEN}"}
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "run_python", "arguments": {"code": "x = 1"}}}
    with Server(tmp_path, "--max-sessions", "1", "--idle-timeout", "1",
                "--request-timeout", "1") as server:
        session = httpx2.post(server.url, json=INITIALIZE, headers=headers).headers["mcp-session-id"]
        in_session = {**headers, "Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"}
        httpx2.post(server.url, json={"jsonrpc": "2.0", "method": "notifications/initialized"},
                    headers=in_session)
        ran = httpx2.post(server.url, json=call, headers=in_session)
        held = httpx2.get(server.base + "/readyz").text
        for _ in range(300):
            if httpx2.get(server.base + "/readyz").status_code == 200:
                break
            time.sleep(0.1)
        freed = httpx2.get(server.base + "/readyz").text
        later = httpx2.post(server.url, json=call, headers=in_session)
    assert "state_kept" in ran.text
    assert held == "full\n" and freed == "ready\n"
    assert later.status_code == 404


def test_mcp_over_http_bounds_the_mcp_sessions_open(tmp_path):
    def initialize(server, token):
        return httpx2.post(server.url, json=INITIALIZE,
                           headers={**MCP_HEADERS, "Authorization": f"Bearer {token}"})

    with Server(tmp_path, "--max-mcp-sessions", "2", "--max-mcp-sessions-per-token", "1") as server:
        first = initialize(server, TOKEN)
        same_token = initialize(server, TOKEN)
        other = initialize(server, OTHER_TOKENS[0])
        over = initialize(server, OTHER_TOKENS[1])
        metrics = httpx2.get(server.base + "/metrics").text
        ended = httpx2.delete(server.url, headers={
            "Authorization": f"Bearer {TOKEN}", "Mcp-Session-Id": first.headers["mcp-session-id"],
            "MCP-Protocol-Version": "2025-11-25"})
        metrics_after = httpx2.get(server.base + "/metrics").text
        again = initialize(server, TOKEN)
    assert first.status_code == 200 and other.status_code == 200
    assert same_token.status_code == 503 and "this token" in same_token.text
    assert over.status_code == 503 and "most MCP sessions open (2)" in over.text
    assert "\nstockade_mcp_sessions_open 2\n" in metrics
    assert ended.status_code == 204
    assert "\nstockade_mcp_sessions_open 1\n" in metrics_after
    assert again.status_code == 200


def test_mcp_over_http_drains_on_sigterm(tmp_path):
    """A call running at SIGTERM finishes within the grace; a new client
    is refused; a call still running when the grace ends is stopped, so the
    server exits long before that call's own time limit."""

    async def main(server):
        async with client(server) as short, client(server) as long:
            await short.call_tool("run_javascript", {"code": "1"})
            await long.call_tool("run_javascript", {"code": "1"})
            finishing = asyncio.ensure_future(short.call_tool("run_javascript", {"code": (
                "const t = Date.now(); while (Date.now() - t < 1000) {}; 'done'")}))
            stuck = asyncio.ensure_future(long.call_tool("run_javascript", {"code": "for (;;) {}"}))
            await asyncio.sleep(0.3)
            server.process.send_signal(signal.SIGTERM)
            await asyncio.sleep(0.3)
            late = await asyncio.to_thread(
                httpx2.post, server.url, json=INITIALIZE,
                headers={**MCP_HEADERS, "Authorization": f"Bearer {TOKEN}"})
            # A client that has a session goes on meanwhile.
            more = await short.call_tool("run_javascript", {"code": "2"})
            finished = await finishing
            # Raises if the stuck call holds the server to its 120 s limit.
            exit_code = await asyncio.to_thread(server.process.wait, 60)
            stuck.cancel()
            return finished, more, late, exit_code

    with Server(tmp_path, "--grace", "2", "--request-timeout", "120") as server:
        finished, more, late, exit_code = asyncio.run(main(server))
    assert finished.structured_content["result"] == "'done'"
    assert more.structured_content["result"] == "2"
    assert late.status_code == 503 and "shutting down" in late.text
    assert exit_code == 0

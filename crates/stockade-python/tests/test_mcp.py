"""`stockade mcp`, driven by the official MCP Python SDK's client as any MCP
client would drive it: the command the installed wheel provides, spawned
over stdio."""

import asyncio
import base64
import pathlib
import sys

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp import MCPError

STOCKADE = str(pathlib.Path(sys.executable).parent / "stockade")


async def _with_client(work, *args):
    params = StdioServerParameters(command=STOCKADE, args=["mcp", *args])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            return await work(session)


def with_client(work, *args):
    return asyncio.run(_with_client(work, *args))


def test_mcp_lists_the_three_tools_with_schemas_and_descriptions():
    async def work(session):
        return (await session.list_tools()).tools

    tools = {tool.name: tool for tool in with_client(work)}
    assert set(tools) == {"run_python", "run_javascript", "reset"}
    for name in ("run_python", "run_javascript"):
        assert tools[name].input_schema["required"] == ["code"]
        assert "stdout" in tools[name].output_schema["properties"]
        assert "no network" in tools[name].description
    assert "CPython" in tools["run_python"].description or "monty" in tools["run_python"].description


def test_mcp_runs_both_languages_and_state_persists_across_calls():
    async def work(session):
        first = await session.call_tool("run_python", {"code": "x = 41\nprint('set')"})
        second = await session.call_tool("run_python", {"code": "x + 1"})
        js_first = await session.call_tool("run_javascript", {"code": "var total = [1, 2, 3].length"})
        js_second = await session.call_tool(
            "run_javascript", {"code": "console.log('n', n); total * n", "inputs": {"n": 10}})
        return first, second, js_first, js_second

    first, second, js_first, js_second = with_client(work)
    assert not first.is_error and first.structured_content["stdout"] == "set\n"
    assert second.structured_content["result"] == "42"
    assert "result: 42" in second.content[0].text
    assert not js_first.is_error
    assert js_second.structured_content["stdout"] == "n 10\n"
    assert js_second.structured_content["result"] == "30"


def test_mcp_reports_a_guest_exception_as_a_tool_error():
    async def work(session):
        return await session.call_tool("run_python", {"code": "print('before')\n1 / 0"})

    result = with_client(work)
    assert result.is_error
    assert result.structured_content["error_type"] == "ZeroDivisionError"
    assert result.structured_content["stdout"] == "before\n"
    assert result.structured_content["state_kept"] is True
    assert "ZeroDivisionError" in result.content[0].text


def test_mcp_reports_a_time_limit_and_the_next_call_works_in_a_fresh_sandbox():
    async def work(session):
        await session.call_tool("run_python", {"code": "kept = 1"})
        stuck = await session.call_tool("run_python", {"code": "while True:\n    pass"})
        after = await session.call_tool("run_python", {"code": "'kept' in globals()"})
        return stuck, after

    stuck, after = with_client(work, "--timeout", "1")
    assert stuck.is_error
    assert stuck.structured_content["error_type"] == "TimeLimitError"
    assert stuck.structured_content["state_kept"] is False
    assert not after.is_error
    assert after.structured_content["result"] == "False"
    assert "fresh" in after.structured_content["note"]
    assert "fresh" in after.content[0].text


def test_mcp_reset_discards_the_state():
    async def work(session):
        await session.call_tool("run_javascript", {"code": "globalThis.seen = 1"})
        await session.call_tool("reset", {"language": "javascript"})
        return await session.call_tool("run_javascript", {"code": "typeof seen"})

    assert with_client(work).structured_content["result"] == "'undefined'"


def test_mcp_bad_arguments_are_protocol_errors_and_the_server_goes_on():
    async def work(session):
        errors = []
        for name, arguments in [("run_python", {}), ("run_python", {"code": 3}),
                                ("run_python", {"code": "1", "extra": True}),
                                ("reset", {"language": "cobol"}), ("no_such_tool", {})]:
            try:
                result = await session.call_tool(name, arguments)
            except MCPError as error:
                errors.append(str(error))
            else:
                # A client may also see the error as an error result.
                assert result.is_error, (name, arguments, result)
                errors.append(result.content[0].text)
        after = await session.call_tool("run_python", {"code": "2 + 2"})
        return errors, after

    errors, after = with_client(work)
    assert len(errors) == 5
    assert any("code" in error for error in errors[:3])
    assert "cobol" in errors[3]
    assert "no_such_tool" in errors[4]
    assert after.structured_content["result"] == "4"


def test_mcp_options_come_from_the_command_line():
    async def work(session):
        tools = (await session.list_tools()).tools
        # monty has no heapq (docs/compatibility.md); CPython has.
        result = await session.call_tool("run_python", {"code": "import heapq"})
        return tools, result

    tools, result = with_client(work, "--engine", "monty", "--max-memory", "256M")
    description = next(tool.description for tool in tools if tool.name == "run_python")
    assert "monty" in description and "256 MiB" in description
    assert result.is_error and "heapq" in result.structured_content["error_message"]


def test_mcp_a_spent_max_duration_is_replaced_like_a_lost_sandbox():
    async def work(session):
        spent = await session.call_tool("run_javascript", {"code": "for (;;) {}"})
        after = await session.call_tool("run_javascript", {"code": "6 * 7"})
        return spent, after

    spent, after = with_client(work, "--max-duration", "0.5", "--timeout", "30")
    assert spent.structured_content["error_type"] == "TimeLimitError"
    assert spent.structured_content["state_kept"] is False
    assert after.structured_content["result"] == "42" and "fresh" in after.structured_content["note"]


def test_mcp_reset_ends_a_call_under_way_at_once():
    async def work(session):
        stuck = asyncio.create_task(session.call_tool("run_python", {"code": "while True:\n    pass"}))
        await asyncio.sleep(1)
        # Without the interrupt, both would wait for the 600 s time limit;
        # wait_for only guards against that hang.
        reset = await asyncio.wait_for(session.call_tool("reset", {"language": "python"}), 60)
        ended = await asyncio.wait_for(stuck, 60)
        after = await session.call_tool("run_python", {"code": "1 + 1"})
        return reset, ended, after

    reset, ended, after = with_client(work, "--timeout", "600")
    assert not reset.is_error
    assert ended.structured_content["error_type"] == "Interrupted"
    assert after.structured_content["result"] == "2"


def test_mcp_reset_ends_the_calls_waiting_behind_the_running_one_too():
    async def work(session):
        spin = {"code": "while True:\n    pass"}
        running = asyncio.create_task(session.call_tool("run_python", spin))
        await asyncio.sleep(1)
        waiting = asyncio.create_task(session.call_tool("run_python", spin))
        await asyncio.sleep(0.5)
        # The waiting call would otherwise run, after the reset's interrupt,
        # to its 600 s time limit, and the reset would wait for it.
        reset = await asyncio.wait_for(session.call_tool("reset", {"language": "python"}), 60)
        ended = await asyncio.wait_for(asyncio.gather(running, waiting), 60)
        after = await session.call_tool("run_python", {"code": "1 + 1"})
        return reset, ended, after

    reset, ended, after = with_client(work, "--timeout", "600")
    assert not reset.is_error
    assert [call.structured_content["error_type"] for call in ended] == ["Interrupted"] * 2
    assert [call.structured_content["state_kept"] for call in ended] == [False, False]
    assert after.structured_content["result"] == "2"


def test_mcp_the_server_ends_with_its_client_even_mid_call():
    import json
    import subprocess

    server = subprocess.Popen([STOCKADE, "mcp", "--timeout", "600"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "test", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "run_python", "arguments": {"code": "while True:\n    pass"}}},
    ]
    for message in messages:
        server.stdin.write((json.dumps(message) + "\n").encode())
    server.stdin.flush()
    assert json.loads(server.stdout.readline())["id"] == 1
    server.stdin.close()
    # Without the interrupt the process would live out the 600 s limit;
    # the timeout only guards against that hang.
    assert server.wait(timeout=60) == 0


def test_mcp_a_cancelled_request_ends_its_own_call_and_no_other():
    async def work(session):
        ahead = asyncio.create_task(session.call_tool(
            "run_python", {"code": "import time\ntime.sleep(2)\n'ahead done'"}))
        await asyncio.sleep(0.3)
        # Queued behind `ahead`, then abandoned: the client sends
        # notifications/cancelled when its read timeout passes.
        with pytest.raises(Exception):
            await session.call_tool("run_python", {"code": "'queued ran'"}, read_timeout_seconds=0.5)
        ahead_result = await asyncio.wait_for(ahead, 60)
        # A running call, abandoned: its worker is killed, the next call
        # starts afresh (the 600 s limit would otherwise hold the language).
        with pytest.raises(Exception):
            await session.call_tool("run_python", {"code": "while True:\n    pass"},
                                    read_timeout_seconds=1)
        after = await asyncio.wait_for(session.call_tool("run_python", {"code": "2 + 3"}), 60)
        return ahead_result, after

    ahead_result, after = with_client(work, "--timeout", "600")
    assert ahead_result.structured_content["result"] == "'ahead done'"
    assert after.structured_content["result"] == "5"
    assert "fresh" in after.structured_content["note"]


def test_mcp_a_client_of_the_2026_protocol_keeps_state_over_stdio():
    """The SDK's default client negotiates the newest protocol, which has no
    sessions over HTTP; over stdio the connection is the session."""
    from mcp.client.client import Client

    async def main():
        async with Client(StdioServerParameters(command=STOCKADE, args=["mcp"])) as client:
            await client.call_tool("run_python", {"code": "x = 5"})
            result = await client.call_tool("run_python", {"code": "x * 2"})
            return client.session.protocol_version, result

    version, result = asyncio.run(main())
    assert version == "2026-07-28"
    assert result.structured_content["result"] == "10"


def test_mcp_returns_images_as_image_content_and_text_outputs_as_text():
    code = ("display(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 7]));"
            "display(\"<svg xmlns='http://www.w3.org/2000/svg'/>\"); 'done'")

    async def work(session):
        return await session.call_tool("run_javascript", {"code": code})

    result = with_client(work)
    assert not result.is_error
    text, image, svg = result.content
    assert "result: 'done'" in text.text
    assert image.type == "image" and image.mime_type == "image/png"
    assert base64.b64decode(image.data) == b"\x89PNG\r\n\x1a\n\x07"
    assert svg.type == "text" and "<svg xmlns='http://www.w3.org/2000/svg'/>" in svg.text
    assert [(o["mime_type"], o["bytes"]) for o in result.structured_content["outputs"]] == [
        ("image/png", 9), ("image/svg+xml", 41)]

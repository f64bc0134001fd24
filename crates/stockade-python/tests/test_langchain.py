"""stockade.integrations.langchain: the tool, invoked through LangChain's
own `tool.invoke`."""

import pytest

from stockade.integrations.langchain import StockadeTool


@pytest.fixture
def python_tool():
    tool = StockadeTool(sandbox_options={"request_timeout": 2})
    yield tool
    tool.close()


def test_langchain_tool_runs_python_and_keeps_state(python_tool):
    assert python_tool.name == "run_python"
    first = python_tool.invoke({"code": "rows = [3, 4]\nprint('rows set')"})
    assert first == "stdout:\nrows set"
    assert python_tool.invoke({"code": "sum(rows) * 6"}) == "result: 42"


def test_langchain_tool_returns_errors_and_limits_as_text(python_tool):
    error = python_tool.invoke({"code": "print('partial')\nraise ValueError('bad row')"})
    assert error.startswith("stdout:\npartial")
    assert "error: ValueError" in error and "bad row" in error
    stuck = python_tool.invoke({"code": "while True:\n    pass"})
    assert "error: TimeLimitError" in stuck and "fresh one" in stuck
    after = python_tool.invoke({"code": "'rows' in globals()"})
    assert after.startswith("Note: the previous sandbox was lost") and after.endswith("result: False")


def test_langchain_tool_runs_javascript_and_resets():
    tool = StockadeTool(language="javascript")
    try:
        assert tool.name == "run_javascript"
        assert tool.invoke({"code": "var n = 5; console.log('n is', n)"}) == "stdout:\nn is 5"
        assert tool.invoke({"code": "n * 2"}) == "result: 10"
        tool.reset()
        assert "ReferenceError" in tool.invoke({"code": "n"})
    finally:
        tool.close()


def test_langchain_tool_refuses_an_unknown_language_and_bad_input():
    with pytest.raises(ValueError, match="cobol"):
        StockadeTool(language="cobol")
    tool = StockadeTool()
    with pytest.raises(Exception, match="code"):
        tool.invoke({"source": "1"})
    tool.close()


def test_langchain_tool_batch_calls_share_one_sandbox(python_tool):
    python_tool.batch([{"code": f"v{i} = {i}"} for i in range(4)])
    assert python_tool.invoke({"code": "sorted(k for k in globals() if k.startswith('v'))"}) == \
        "result: ['v0', 'v1', 'v2', 'v3']"


def test_langchain_tool_replaces_a_sandbox_whose_max_duration_is_spent():
    import stockade

    tool = StockadeTool(sandbox_options={"limits": stockade.Limits(max_duration=0.5)})
    try:
        spent = tool.invoke({"code": "while True:\n    pass"})
        assert "error: TimeLimitError" in spent and "fresh one" in spent
        assert tool.invoke({"code": "6 * 7"}).endswith("result: 42")
    finally:
        tool.close()

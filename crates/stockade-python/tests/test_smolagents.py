"""stockade.integrations.smolagents: a real CodeAgent, with a scripted model
(no network), runs its code through the sandbox."""

import threading

import pytest
from smolagents import CodeAgent, tool
from smolagents.models import ChatMessage, MessageRole, Model

from stockade.integrations.smolagents import StockadeExecutor


class ScriptedModel(Model):
    """Answers each step with the next scripted reply, and keeps what the
    agent showed it."""

    def __init__(self, replies):
        super().__init__(model_id="scripted")
        self.replies = list(replies)
        self.seen = []

    def generate(self, messages, stop_sequences=None, response_format=None,
                 tools_to_call_from=None, **kwargs):
        self.seen.append(messages)
        return ChatMessage(role=MessageRole.ASSISTANT, content=self.replies.pop(0))


CALLS_ON_HOST = []


@tool
def unit_price(item: str) -> float:
    """The price of one unit of an item.

    Args:
        item: The item's name.
    """
    CALLS_ON_HOST.append((item, threading.get_ident()))
    return {"apple": 0.5, "pear": 0.75}[item]


def last_observation(model):
    """The text of the latest message the agent sent the model."""
    content = model.seen[-1][-1].content
    return content if isinstance(content, str) else " ".join(part.get("text", "") for part in content)


def test_smolagents_code_agent_completes_a_task_calling_its_tool_through_the_sandbox():
    CALLS_ON_HOST.clear()
    model = ScriptedModel([
        "Thought: first the price.\n<code>\nprice = unit_price('apple')\nprint('price', price)\n</code>",
        "Thought: the variable is still there.\n<code>\nimport sys\ntotal = price * 4\nfinal_answer(total)\n</code>",
    ])
    with CodeAgent(tools=[unit_price], model=model, executor=StockadeExecutor(),
                   verbosity_level=0) as agent:
        answer = agent.run("What do four apples cost?")
    assert answer == 2.0
    # The tool ran in this process, called from the guest.
    assert [item for item, _ in CALLS_ON_HOST] == ["apple"]
    # The step's printed output reached the model as its logs.
    assert "price 0.5" in last_observation(model)


def test_smolagents_a_failing_step_is_shown_to_the_model_and_the_agent_goes_on():
    model = ScriptedModel([
        "<code>\nrows = [1, 2]\nprint('before')\nrows[5]\n</code>",
        "<code>\nfinal_answer(len(rows))\n</code>",
    ])
    with CodeAgent(tools=[], model=model, executor=StockadeExecutor(), verbosity_level=0) as agent:
        answer = agent.run("Count the rows.")
    assert answer == 2
    observation = last_observation(model)
    assert "IndexError" in observation and "before" in observation


def test_smolagents_the_executor_keeps_agent_variables_and_outlives_a_lost_sandbox():
    executor = StockadeExecutor(request_timeout=1)
    try:
        executor.send_tools({})
        executor.send_variables({"seed": 7})
        assert executor("seed * 6").output == 42
        with pytest.raises(Exception, match=r"(?s)TimeLimitError.*replaced"):
            executor("while True:\n    pass")
        after = executor("seed")
        assert after.output == 7 and "replaced" in after.logs
    finally:
        executor.cleanup()


def test_smolagents_the_first_final_answer_of_a_step_stands():
    executor = StockadeExecutor()
    try:
        executor.send_tools({"final_answer": lambda answer: answer})
        out = executor("try:\n    final_answer(1)\nexcept Exception:\n    pass\nfinal_answer(2)")
        assert out.is_final_answer and out.output == 1
    finally:
        executor.cleanup()

"""An executor for smolagents' CodeAgent that runs the agent's code in a
stockade sandbox instead of in-process or in a remote service:

    from smolagents import CodeAgent
    from stockade.integrations.smolagents import StockadeExecutor

    agent = CodeAgent(tools=[...], model=model, executor=StockadeExecutor())

The sandbox keeps the agent's variables from step to step. The agent's
tools become host functions the guest calls (they run here, in the host);
`final_answer(...)` ends the run with its value, as smolagents expects;
what the code printed is the step's logs. Any module the engine has may be
imported: the sandbox, not an import list, is what contains the code, so
CodeAgent's `additional_authorized_imports` only shapes its prompt.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, Dict, Optional

from smolagents.local_python_executor import CodeOutput, PythonExecutor

import stockade

from ._keeper import SandboxKeeper

__all__ = ["StockadeExecutor", "SandboxExecutionError"]

_LOST = "The sandbox was lost with this step and replaced: variables from earlier steps are gone."


class SandboxExecutionError(Exception):
    """A step's code failed in the sandbox; the message holds what it
    printed, the traceback, and whether the sandbox's state survived. The
    agent shows it to the model and goes on."""


class _FinalAnswer(Exception):
    """Raised in the guest by `final_answer` to stop the step's code."""


class StockadeExecutor(PythonExecutor):
    """Runs CodeAgent's code actions in one stockade sandbox (Python guests),
    created on first use with the keyword options given here (limits=,
    engine=, mounts=, ... as `stockade.Sandbox` takes them)."""

    def __init__(self, **sandbox_options: Any) -> None:
        self._options = sandbox_options
        self._keeper = SandboxKeeper(self._new_sandbox)
        self._tools: Dict[str, Callable[..., Any]] = {}
        self._variables: Dict[str, Any] = {}
        self._answer: Optional[tuple] = None

    def _new_sandbox(self) -> stockade.Sandbox:
        sandbox = stockade.Sandbox("python", **self._options)
        for name, function in self._tools.items():
            sandbox.bind_function(name, function)
        _bind_variables(sandbox, self._variables)
        return sandbox

    def send_tools(self, tools: Dict[str, Any]) -> None:
        self._tools = {}
        for name, tool in tools.items():
            if name == "final_answer":
                self._tools[name] = self._final_answer
            else:
                self._tools[name] = tool
        if self._keeper.sandbox is not None:
            for name, function in self._tools.items():
                self._keeper.sandbox.bind_function(name, function)

    def send_variables(self, variables: Dict[str, Any]) -> None:
        self._variables.update(variables)
        if self._keeper.sandbox is not None:
            _bind_variables(self._keeper.sandbox, variables)

    def _final_answer(self, answer: Any = None, *args: Any, **kwargs: Any) -> Any:
        # The first answer of a step stands, whatever the guest does after.
        if self._answer is None:
            self._answer = (answer,)
        # Stops the guest's code here; the answer is kept on this side, so
        # a guest that catches the exception still ends the run with it.
        raise _FinalAnswer("final_answer was called")

    def __call__(self, code_action: str) -> CodeOutput:
        sandbox, replaced = self._keeper.get()
        note = ("Note: the sandbox was replaced after the last step lost it; earlier variables "
                "are gone.\n") if replaced else ""
        self._answer = None
        result = sandbox.execute(code_action)
        logs = note + result.stdout + result.stderr
        gone = self._keeper.ran(result)
        if self._answer is not None:
            return CodeOutput(output=self._answer[0], logs=logs, is_final_answer=True)
        if not result.ok:
            printed = f"Printed before the error:\n{logs}\n" if logs else ""
            raise SandboxExecutionError(
                f"{printed}Code execution failed: {result.error_type}: {result.error or ''}\n"
                f"{_LOST if gone else ''}".rstrip())
        return CodeOutput(output=result.result, logs=logs, is_final_answer=False)

    def cleanup(self) -> None:
        self._keeper.close()


def _bind_variables(sandbox: stockade.Sandbox, variables: Dict[str, Any]) -> None:
    for name, value in variables.items():
        try:
            sandbox.run("None", inputs={name: value})
        except stockade.StockadeError as error:
            warnings.warn(f"stockade: the agent's variable {name!r} cannot enter the sandbox: {error}",
                          stacklevel=3)

"""A LangChain tool that runs Python or JavaScript in a stockade sandbox and
returns what the code printed and the value of its last expression:

    from stockade.integrations.langchain import StockadeTool

    tool = StockadeTool()                      # run_python
    tool.invoke({"code": "x = 6 * 7\\nprint(x)"})
    js = StockadeTool(language="javascript")   # run_javascript

The tool keeps one sandbox, so variables persist from call to call until
`reset()`; a sandbox a limit loses is replaced on the next call, which
says so. The code's own errors and the limits it meets come back as text
for the model to read, never as exceptions. `close()` ends the worker.
"""

from __future__ import annotations

import threading
from typing import Any, Dict

from langchain_core.tools import BaseTool
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

import stockade

from ._keeper import SandboxKeeper

__all__ = ["StockadeTool", "CodeInput"]

_DESCRIPTIONS = {
    "python": ("Run Python code in a sandbox with no network access and no host files; returns what "
               "it printed and the value of its last expression. Variables persist between calls."),
    "javascript": ("Run JavaScript in a sandbox with no network access and no host files; returns "
                   "what it logged and the value of its last expression. Variables persist between "
                   "calls."),
}


class CodeInput(BaseModel):
    """What the tool takes."""

    code: str = Field(description="The source to run; its last expression's value is returned.")


class StockadeTool(BaseTool):
    """Runs code in one stockade sandbox of `language`, made on first use
    with `sandbox_options` (limits=, engine=, mounts=, ... as
    `stockade.Sandbox` takes them)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    name: str = "run_python"
    description: str = _DESCRIPTIONS["python"]
    args_schema: type[BaseModel] = CodeInput
    language: str = "python"
    sandbox_options: Dict[str, Any] = Field(default_factory=dict)

    _keeper: SandboxKeeper = PrivateAttr()
    # One call at a time: `batch` and parallel tool calls share the sandbox.
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def __init__(self, language: str = "python", **fields: Any) -> None:
        if language not in _DESCRIPTIONS:
            raise ValueError(f"StockadeTool: language must be 'python' or 'javascript', not {language!r}")
        fields.setdefault("name", f"run_{language}")
        fields.setdefault("description", _DESCRIPTIONS[language])
        super().__init__(language=language, **fields)
        self._keeper = SandboxKeeper(lambda: stockade.Sandbox(self.language, **self.sandbox_options))

    def _run(self, code: str, **_: Any) -> str:
        with self._lock:
            return self._run_locked(code)

    def _run_locked(self, code: str) -> str:
        sandbox, replaced = self._keeper.get()
        parts = []
        if replaced:
            parts.append("Note: the previous sandbox was lost; this ran in a fresh one, so earlier "
                         "variables are gone.")
        result = sandbox.execute(code)
        gone = self._keeper.ran(result)
        if result.stdout:
            parts.append("stdout:\n" + result.stdout.rstrip("\n"))
        if result.stderr:
            parts.append("stderr:\n" + result.stderr.rstrip("\n"))
        if result.ok and result.result is not None:
            parts.append(f"result: {result.result!r}")
        if not result.ok:
            parts.append(f"error: {result.error_type}: {result.error}")
            if gone:
                parts.append("The sandbox was lost with this call; the next call starts a fresh one.")
        return "\n\n".join(parts) if parts else "(no output and no result)"

    def reset(self) -> None:
        """Discards the sandbox's state: the next call starts afresh."""
        self.close()

    def close(self) -> None:
        """Ends the sandbox's worker."""
        with self._lock:
            self._keeper.close()

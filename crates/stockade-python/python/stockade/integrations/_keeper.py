"""The one sandbox an integration keeps across calls: replaced on the next
call when a limit or a crash ended it, or its `max_duration` is spent
(such a sandbox would refuse every later run), with word of the
replacement for that call to pass on."""

from __future__ import annotations

from typing import Callable, Optional, Tuple

import stockade


class SandboxKeeper:
    """Holds the sandbox `make` makes, making it on first use."""

    def __init__(self, make: Callable[[], stockade.Sandbox]) -> None:
        self._make = make
        self.sandbox: Optional[stockade.Sandbox] = None
        self._spent = False
        self._replaced = False

    def get(self) -> Tuple[stockade.Sandbox, bool]:
        """The live sandbox, and whether it replaces one a limit ended
        (said once: the call that starts in it)."""
        if self.sandbox is not None and (self.sandbox.lost or self._spent):
            self.sandbox.close()
            self.sandbox = None
            self._replaced = True
        self._spent = False
        if self.sandbox is None:
            self.sandbox = self._make()
        replaced, self._replaced = self._replaced, False
        return self.sandbox, replaced

    def ran(self, result: stockade.ExecutionResult) -> bool:
        """Takes note of a run's result; True when the sandbox is gone with
        it (the next call starts afresh)."""
        self._spent = result.error_type == "TimeLimitError"
        return self._spent or (self.sandbox is not None and self.sandbox.lost)

    def close(self) -> None:
        if self.sandbox is not None:
            self.sandbox.close()
            self.sandbox = None
        self._spent = self._replaced = False

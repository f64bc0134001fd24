"""Stepped runs: `sandbox.start(code)` stops at each host call, name lookup
and await, and hands the host a cursor (FunctionCall, NameLookup,
PendingFutures) to answer, or Complete with the run's value. Each answer
returns the next one. From an AsyncSandbox the answers are awaited."""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

#: An awaited call's failure: an exception instance, or (type name, message).
ErrorSpec = Union[BaseException, Tuple[str, str]]


def _error_pair(error: ErrorSpec) -> Tuple[str, str]:
    if isinstance(error, BaseException):
        return type(error).__name__, str(error)
    type_name, message = error
    return str(type_name), str(message)


class _Cursor:
    """What every cursor has: the sandbox it belongs to and its number."""

    def __init__(self, owner: Any, cursor: int) -> None:
        self._owner = owner
        #: The cursor's number, unique in its sandbox.
        self.cursor = cursor

    def _answer(self, how: str, **fields: Any) -> Any:
        return self._owner._answer(self.cursor, how, fields)

    def dump(self) -> Any:
        """The sandbox suspended here, as sealed bytes (see Sandbox.dump); a
        restored sandbox holds this cursor again (`pending`). The cursor
        stays live; a cursor already answered cannot be dumped."""
        pending = self._owner.pending
        if pending is None or getattr(pending, "cursor", None) != self.cursor:
            from ._errors import CursorError
            raise CursorError(f"cursor {self.cursor} was already answered; dump the sandbox "
                              "(sandbox.dump()) or its live cursor (sandbox.pending)")
        return self._owner.dump()


class FunctionCall(_Cursor):
    """The guest called host function `name` and waits for its outcome."""

    def __init__(self, owner: Any, cursor: int, name: str, args: List[Any],
                 kwargs: Dict[str, Any], call_id: int) -> None:
        super().__init__(owner, cursor)
        self.name = name
        self.args = tuple(args)
        self.kwargs = kwargs
        #: The id a deferred call is resolved by, at a PendingFutures cursor.
        self.call_id = call_id

    def resume(self, value: Any) -> Any:
        """The call returns `value`."""
        return self._answer("return", value=value)

    def resume_error(self, type: str, message: str) -> Any:
        """The call raises `type(message)` in the guest."""
        return self._answer("raise", error=(type, message))

    def resume_pending(self) -> Any:
        """The call runs on: the guest gets a future, resolved later by
        `call_id` at a PendingFutures cursor."""
        return self._answer("pending")

    def __repr__(self) -> str:
        return f"FunctionCall(cursor={self.cursor}, name={self.name!r}, args={self.args!r}, kwargs={self.kwargs!r}, call_id={self.call_id})"


class NameLookup(_Cursor):
    """The guest read `name`, which nothing in it defines (Python guests)."""

    def __init__(self, owner: Any, cursor: int, name: str) -> None:
        super().__init__(owner, cursor)
        self.name = name

    def resume(self, value: Any) -> Any:
        """The name is bound to `value`."""
        return self._answer("bind", value=value)

    def resume_function(self) -> Any:
        """The name is a host function; calls to it come as FunctionCall."""
        return self._answer("function")

    def resume_not_found(self) -> Any:
        """The name is not defined: the guest gets a NameError."""
        return self._answer("not_found")

    def __repr__(self) -> str:
        return f"NameLookup(cursor={self.cursor}, name={self.name!r})"


class PendingFutures(_Cursor):
    """Every guest task waits on deferred calls (`call_ids`)."""

    def __init__(self, owner: Any, cursor: int, call_ids: List[int]) -> None:
        super().__init__(owner, cursor)
        self.call_ids = tuple(call_ids)

    def resolve(self, results: Optional[Mapping[int, Any]] = None, *,
                errors: Optional[Mapping[int, ErrorSpec]] = None) -> Any:
        """Resolves some or all awaited calls: `results` maps a call id to
        its value, `errors` to the exception it raises in the guest."""
        pairs = {call_id: _error_pair(error) for call_id, error in (errors or {}).items()}
        return self._answer("resolve", results=dict(results or {}), errors=pairs)

    def __repr__(self) -> str:
        return f"PendingFutures(cursor={self.cursor}, call_ids={self.call_ids!r})"


class Complete:
    """The stepped run ended; `value` is its result."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __repr__(self) -> str:
        return f"Complete(value={self.value!r})"


Progress = Union[FunctionCall, NameLookup, PendingFutures, Complete]


def _progress(owner: Any, described: tuple) -> Progress:
    """The object for the native layer's description of where a run is."""
    kind = described[0]
    if kind == "call":
        return FunctionCall(owner, *described[1:])
    if kind == "lookup":
        return NameLookup(owner, *described[1:])
    if kind == "futures":
        return PendingFutures(owner, *described[1:])
    return Complete(described[1])

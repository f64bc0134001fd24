"""Values a guest returns that have no Python equivalent."""

from __future__ import annotations


class Repr(str):
    """A guest value with no Python equivalent (a function, a class
    instance), carried as its text. It is a str, so it prints as the guest
    would show it, and its type tells it apart from a real string."""

    __slots__ = ()

    def __repr__(self) -> str:
        return str(self)


class Cycle(str):
    """Where a guest container contained itself: `[...]` or `{...}`."""

    __slots__ = ()

    def __repr__(self) -> str:
        return str(self)

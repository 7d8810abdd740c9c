"""Hooks: how a lower domain lets a higher one act, without importing it.

A domain declares the moments others may act on as module-level `Hook`s (many listeners,
each called in turn) or `Provider`s (one answer, given by the domain that owns the data).
Listeners are connected in one place only, `portal/wiring.py`, which `create_app` runs:
"what happens when a driver leaves" is read there, top to bottom. Listeners run in the
caller's transaction, in the order they were connected, with keyword arguments only.

This module imports no domain, so every domain may import it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Listener = Callable[..., Any]


class Hook:
    """A moment in a domain that other domains may act on: `hook(**facts)` calls every
    connected listener with the same keyword arguments and returns their answers in order."""

    def __init__(self, name: str, doc: str) -> None:
        self.name = name
        self.__doc__ = doc
        self._listeners: list[Listener] = []

    def connect(self, listener: Listener) -> Listener:
        """Add a listener (once: connecting it again changes nothing)."""
        if listener not in self._listeners:
            self._listeners.append(listener)
        return listener

    def disconnect(self, listener: Listener) -> None:
        """Take a listener off (a test's own listener, after the test)."""
        self._listeners.remove(listener)

    @property
    def listeners(self) -> tuple[Listener, ...]:
        return tuple(self._listeners)

    def __call__(self, **facts: Any) -> list[Any]:
        return [listener(**facts) for listener in self._listeners]

    def __repr__(self) -> str:
        names = ", ".join(_name(listener) for listener in self._listeners)
        return f"<Hook {self.name}: {names or 'no listener'}>"


class Provider:
    """A question a domain asks of a higher one (e.g. billing asking hours for a task's
    recorded minutes): one answering function, connected in `portal/wiring.py`. Asked while
    nothing is connected, it gives `default`."""

    def __init__(self, name: str, doc: str, *, default: Any = None) -> None:
        self.name = name
        self.__doc__ = doc
        self._default = default
        self._answer: Listener | None = None

    def connect(self, answer: Listener) -> Listener:
        if self._answer is not None and self._answer is not answer:
            raise RuntimeError(f"{self.name} already answered by {_name(self._answer)}")
        self._answer = answer
        return answer

    @property
    def connected(self) -> bool:
        return self._answer is not None

    def __call__(self, **facts: Any) -> Any:
        if self._answer is None:
            return self._default
        return self._answer(**facts)

    def __repr__(self) -> str:
        return f"<Provider {self.name}: {_name(self._answer) if self._answer else 'none'}>"


def _name(function: Listener) -> str:
    return f"{getattr(function, '__module__', '?')}.{getattr(function, '__qualname__', '?')}"

"""A dispatch map whose extra entries come and go while a run goes on (MCP servers).

The built-in tools are fixed; the extra ones are asked for on every look-up, so a tool
that appeared or left (a server's list_changed, a crash) is seen before the next model
turn. A built-in name is never shadowed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from .base import Tool


class LiveTools(Mapping[str, Tool]):
    def __init__(self, fixed: Mapping[str, Tool], extra: Callable[[], Mapping[str, Tool]]):
        self._fixed = fixed
        self._extra = extra

    def _current(self) -> dict[str, Tool]:
        extra = {k: v for k, v in self._extra().items() if k not in self._fixed}
        return {**self._fixed, **extra}

    def __getitem__(self, name: str) -> Tool:
        if name in self._fixed:
            return self._fixed[name]
        return self._extra()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._current())

    def __len__(self) -> int:
        return len(self._current())

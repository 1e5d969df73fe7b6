"""A bounded buffer for command output: keeps the head and the tail, counts what it drops.

Output is capped while it streams, so a command that prints gigabytes costs the server a
few hundred kilobytes at most. A byte that is not UTF-8 reads `\\xhh`: a file name that
is not UTF-8 (`ls`) shows as its readable form (names.py), which the file tools take.
"""

from __future__ import annotations

import codecs

COMMAND_OUTPUT_CAP = 50_000
"""Characters of a command's output the model gets at most (bash, bash_output, MCP)."""


class HeadTailBuffer:
    """Holds at most `cap` characters: the first half and the most recent half."""

    def __init__(self, cap: int) -> None:
        self._head_cap = cap // 2
        self._tail_cap = cap - self._head_cap
        self._head: list[str] = []
        self._head_len = 0
        self._tail = ""
        self.dropped = 0
        """Characters seen but not kept."""
        self._decoder: codecs.IncrementalDecoder | None = None
        """Made on the first bytes: text-only users (MCP results) never need one."""

    def feed_bytes(self, data: bytes, final: bool = False) -> None:
        if self._decoder is None:
            self._decoder = codecs.getincrementaldecoder("utf-8")(errors="backslashreplace")
        self.feed(self._decoder.decode(data, final))

    def feed(self, text: str) -> None:
        if not text:
            return
        room = self._head_cap - self._head_len
        if room > 0:
            self._head.append(text[:room])
            self._head_len += min(room, len(text))
            text = text[room:]
            if not text:
                return
        combined = self._tail + text
        overflow = len(combined) - self._tail_cap
        if overflow > 0:
            self.dropped += overflow
            combined = combined[overflow:]
        self._tail = combined

    def render(self) -> str:
        head = "".join(self._head)
        if not self.dropped:
            return head + self._tail
        return (
            f"{head}\n\n[... {self.dropped:,} characters of output cut here; "
            f"the first {self._head_len:,} and the last {len(self._tail):,} are shown ...]\n\n"
            f"{self._tail}"
        )

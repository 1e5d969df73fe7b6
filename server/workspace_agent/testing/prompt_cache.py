"""Prompt-cache accounting for the scripted Messages API, modelled on the real API.

The prompt is read in the API's cache order (tools, system, messages) as a list of
blocks. A request reads from the cache the longest prefix that an earlier request marked
with a `cache_control` breakpoint; it writes the prefixes up to its own breakpoints
(those of at least MIN_CACHEABLE tokens); what follows its last breakpoint is plain input.
Billed like the API: writes at 1.25x, reads at 0.1x, uncached input at 1x.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass
from typing import Any

MIN_CACHEABLE = 1024
WRITE_PRICE, READ_PRICE = 1.25, 0.1


@dataclass(frozen=True)
class CacheUsage:
    input_tokens: int
    cache_creation_input_tokens: int
    cache_read_input_tokens: int

    def to_usage(self) -> dict[str, int]:
        return {
            "input_tokens": self.input_tokens,
            "cache_creation_input_tokens": self.cache_creation_input_tokens,
            "cache_read_input_tokens": self.cache_read_input_tokens,
        }


class PromptCache:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._written: set[bytes] = set()
        """Digests of the prefixes earlier requests wrote at their breakpoints."""

    def account(self, body: dict[str, Any], estimate: Any) -> CacheUsage:
        """Usage of one request; `estimate` turns a block into a token count."""
        blocks = list(_blocks(body))
        digest = hashlib.sha256()
        prefixes: list[tuple[bytes, int]] = []  # (digest, tokens so far) after each block
        breakpoints: list[int] = []
        tokens = 0
        for index, block in enumerate(blocks):
            if isinstance(block, dict) and "cache_control" in block:
                breakpoints.append(index)
                block = {k: v for k, v in block.items() if k != "cache_control"}
            digest.update(json.dumps(block, sort_keys=True).encode())
            tokens += estimate({k: v for k, v in block.items() if k != "_in"})
            prefixes.append((digest.copy().digest(), tokens))
        with self._lock:
            hit = max((i for i, (d, _) in enumerate(prefixes) if d in self._written), default=-1)
            read = prefixes[hit][1] if hit >= 0 else 0
            written_up_to = read
            for index in breakpoints:
                if index > hit and prefixes[index][1] >= MIN_CACHEABLE:
                    self._written.add(prefixes[index][0])
                    written_up_to = prefixes[index][1]
        return CacheUsage(
            input_tokens=tokens - written_up_to,
            cache_creation_input_tokens=written_up_to - read,
            cache_read_input_tokens=read,
        )


def billed(input_tokens: int, cache_write: int, cache_read: int) -> float:
    """Input cost in uncached-token equivalents."""
    return input_tokens + WRITE_PRICE * cache_write + READ_PRICE * cache_read


def _blocks(body: dict[str, Any]) -> Any:
    """The prompt as blocks in cache order; the same content gives the same block whether
    or not it carries a breakpoint."""
    for tool in body.get("tools") or []:
        yield {**tool, "_in": "tools"}
    system = body.get("system")
    for block in [{"type": "text", "text": system}] if isinstance(system, str) else system or []:
        yield {**block, "_in": "system"}
    for message in body.get("messages") or []:
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        for block in content:
            yield {**block, "_in": message["role"]}

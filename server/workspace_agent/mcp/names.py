"""Tool names the Messages API accepts: `mcp__<server>__<tool>`, `^[a-zA-Z0-9_-]{1,64}$`.

Other characters become `_`; a name that is too long, or that two tools would share
after that, keeps a prefix and gets 8 hex digits of sha256 of the real (server, tool)
pair, so it is stable across restarts. Built-in names are never taken (every MCP name
starts with `mcp__`). The caller keeps the reverse map (name -> server, tool).
"""

from __future__ import annotations

import hashlib
import re

NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
MAX = 64
_OTHER = re.compile(r"[^A-Za-z0-9_-]")


def sanitize(part: str) -> str:
    return _OTHER.sub("_", part) or "_"


def tool_name(server: str, tool: str, taken: set[str] | frozenset[str] = frozenset()) -> str:
    name = f"mcp__{sanitize(server)}__{sanitize(tool)}"
    if len(name) <= MAX and name not in taken:
        return name
    digest = hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:8]
    return f"{name[: MAX - 9]}_{digest}"

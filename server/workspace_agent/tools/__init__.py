"""The tool registry: ONE dispatch map from tool name to Tool (schema + handler).

Adding a tool means writing its module and listing it here; the agent loop never changes.
`BACKGROUND_TOOLS` are offered to a session only once it has a background command (the
session manager adds them, as MCP tools come and go): until then they cost no bytes in
its requests.
"""

from __future__ import annotations

from .background_tools import BASH_OUTPUT, BASH_STOP
from .base import Tool, ToolContext, ToolError
from .bash import BASH
from .explore import FIND_FILES, SEARCH
from .files import EDIT_FILE, READ_FILE, WRITE_FILE
from .todo import TODO

__all__ = ["BACKGROUND_TOOLS", "TOOLS", "Tool", "ToolContext", "ToolError", "described"]

TOOLS: dict[str, Tool] = {
    tool.name: tool for tool in (BASH, READ_FILE, WRITE_FILE, EDIT_FILE, TODO, SEARCH, FIND_FILES)
}
BACKGROUND_TOOLS: dict[str, Tool] = {tool.name: tool for tool in (BASH_OUTPUT, BASH_STOP)}


def described(name: str) -> Tool | None:
    """The tool named `name` as a saved call of it is shown (its kind, summary): the
    built-in ones, and those a run adds (web_fetch, web_search: imported on first ask)."""
    found = TOOLS.get(name) or BACKGROUND_TOOLS.get(name)
    if found is None and name in ("web_fetch", "web_search"):
        from .web import WEB_FETCH, web_search_shape

        found = WEB_FETCH if name == "web_fetch" else web_search_shape()
    return found

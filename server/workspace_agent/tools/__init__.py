"""The tool registry: ONE dispatch map from tool name to Tool (schema + handler).

Adding a tool means writing its module and listing it here; the agent loop never changes.
"""

from __future__ import annotations

from .base import Tool, ToolContext, ToolError
from .bash import BASH
from .files import EDIT_FILE, READ_FILE, WRITE_FILE
from .todo import TODO

__all__ = ["TOOLS", "Tool", "ToolContext", "ToolError"]

TOOLS: dict[str, Tool] = {
    tool.name: tool for tool in (BASH, READ_FILE, WRITE_FILE, EDIT_FILE, TODO)
}

"""Tools say what they are (issue 31, item 3): every tool declares its metadata (kind,
reach, read-only, how its changes and result read), an MCP tool's comes from its server's
annotations, and nothing outside a tool names it to treat it differently."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import mcp.types
import pytest

from workspace_agent.code_intel.tools import code_intel_tools
from workspace_agent.mcp.config import ServerConfig
from workspace_agent.mcp.connection import Connection
from workspace_agent.mcp.tools import build_tool
from workspace_agent.tools import BACKGROUND_TOOLS, TOOLS
from workspace_agent.tools.base import Tool
from workspace_agent.tools.bash import BASH

SOURCE = Path(__file__).resolve().parents[3] / "server" / "workspace_agent"

DECLARED = {
    # name: (kind, reach, read_only, plan_safe, whole_file_changes, runs a command)
    "bash": ("execute", "workspace", False, True, False, True),
    "bash_output": ("other", "nothing", True, True, False, False),
    "bash_stop": ("other", "nothing", False, True, False, False),
    "read_file": ("read", "nothing", True, True, False, False),
    "write_file": ("edit", "named_file", False, False, True, False),
    "edit_file": ("edit", "named_file", False, False, False, False),
    "todo": ("plan", "nothing", False, True, False, False),
    "code_intel": ("read", "nothing", True, True, False, False),
    "rename_symbol": ("edit", "workspace", False, False, True, False),
    "search": ("search", "nothing", True, True, False, False),
    "find_files": ("search", "nothing", True, True, False, False),
}


class NoAnswers:
    """A source of code intelligence that is never asked (the tools' metadata only)."""

    name = "nobody"


def metadata(tool: Tool, tool_input: dict[str, Any]) -> tuple[Any, ...]:
    return (
        tool.kind,
        tool.reach,
        tool.read_only,
        tool.plan_safe,
        tool.whole_file_changes,
        tool.command(tool_input) is not None,
    )


def test_every_built_in_tool_declares_what_it_is():
    # BACKGROUND_TOOLS are offered once a session has a background command, code_intel and
    # rename_symbol where the editor or a configured language server answers.
    every = {**TOOLS, **BACKGROUND_TOOLS, **code_intel_tools(NoAnswers())}  # type: ignore[arg-type]
    assert set(every) == set(DECLARED)  # a new tool gets its line here
    for name, tool in every.items():
        assert metadata(tool, {"command": "ls"}) == DECLARED[name], name
        if tool.read_only:  # a tool that changes nothing reaches nothing
            assert tool.reach == "nothing", name


def test_the_command_a_call_runs_is_the_tools_to_say():
    assert BASH.command({"command": "make test"}) == "make test"
    assert TOOLS["write_file"].command({"path": "a", "content": ""}) is None
    assert BASH.command("not an object") is None


def test_bash_reads_its_own_status_line_back_and_gives_a_gist():
    assert BASH.exit_status_in("boom\n[exit status 3]") == 3
    assert BASH.exit_status_in("[exit status -9 (killed by signal SIGKILL)]") is None
    assert BASH.exit_status_in("no status") is None
    assert BASH.gist("collected 3\nFAILED test_a.py\n[exit status 1]") == (
        "exit status 1 · FAILED test_a.py"
    )
    # a note after the status (new problems): the first line, as for any tool
    assert BASH.gist("ok\n[exit status 0]\n<problems/>") == "ok  (+2 lines)"
    assert TOOLS["read_file"].gist("one\ntwo") == "one  (+1 lines)"
    assert all(t.exit_status_in is None for n, t in TOOLS.items() if n != "bash")


def mcp_tool(annotations: mcp.types.ToolAnnotations | None, read_only_server: bool = False) -> Tool:
    config = ServerConfig("files", "stdio", command="true", read_only=read_only_server)
    connection = Connection(config, None, lambda _c: None)
    definition = mcp.types.Tool(
        name="lookup", description="d", inputSchema={"type": "object"}, annotations=annotations
    )
    return build_tool(connection, definition, "mcp__files__lookup")


@pytest.mark.parametrize(
    ("annotations", "read_only_server", "expected"),
    [
        (mcp.types.ToolAnnotations(readOnlyHint=True), False, ("execute", "nothing", True, True)),
        (
            mcp.types.ToolAnnotations(readOnlyHint=False),
            False,
            ("execute", "workspace", False, False),
        ),
        (None, False, ("execute", "workspace", False, False)),
        (
            mcp.types.ToolAnnotations(destructiveHint=True),
            False,
            ("execute", "workspace", False, False),
        ),
        (None, True, ("other", "nothing", False, False)),  # the user's readOnly for the server
    ],
)
def test_an_mcp_tools_metadata_comes_from_its_servers_hints(
    annotations: mcp.types.ToolAnnotations | None, read_only_server: bool, expected: tuple[Any, ...]
):
    tool = mcp_tool(annotations, read_only_server)
    assert (tool.kind, tool.reach, tool.read_only, tool.plan_safe) == expected
    assert not tool.whole_file_changes and tool.command({}) is None
    assert tool.exit_status_in is None


def python_sources() -> list[Path]:
    return sorted(SOURCE.rglob("*.py"))


def test_no_module_treats_a_built_in_tool_by_its_name():
    """The metadata replaces the lists of names: a comparison with a built-in tool's name,
    or a list of them, fails here (the tools' own modules, the demo's and the scripted
    model's scripts aside; config.py's `bash` is the approvals setting's kind of question)."""
    names = "|".join(DECLARED)
    compared = re.compile(rf"""[!=]=\s*["']({names})["']|\(\s*["']({names})["']\s*,""")
    found = [
        f"{path.relative_to(SOURCE)}:{n}: {line.strip()}"
        for path in python_sources()
        if path.parent.name not in ("tools", "demo", "testing") and path.name != "config.py"
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if compared.search(line)
    ]
    assert found == []


def test_only_bash_reads_or_writes_its_status_line():
    found = [
        str(path.relative_to(SOURCE))
        for path in python_sources()
        if "[exit status" in path.read_text() and path.name != "bash.py"
    ]
    assert found == []

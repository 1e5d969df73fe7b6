"""code_intel and rename_symbol in `workspace-agent run` with a real language server the
user configured (jedi-language-server from PyPI, in the sandbox): what the model gets back
for references across files, a definition and workspace symbols; a rename across three
files as one step that `changes` lists and `revert` takes back as one; a server that
crashes mid-request is started again once, then the tools say it is gone and why."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.cli import CLI, cli_env
from tests.support.language_servers import APP, LIB, MORE, python_project, user_settings


def run_cli(workspace: Path, model: ScriptedModelServer, config: Path, *args: str):
    return subprocess.run(
        [*CLI, *args, "--workspace", str(workspace)],
        env=cli_env(model, WORKSPACE_AGENT_CONFIG_DIR=str(config)),
        capture_output=True,
        text=True,
        timeout=120,
    )


def tool_results(model: ScriptedModelServer) -> list[str]:
    """The tool results the model got, in order (each request's last user message)."""
    found: list[str] = []
    for request in model.requests:
        last = request.body["messages"][-1]
        if last["role"] != "user" or not isinstance(last["content"], list):
            continue
        for block in last["content"]:
            if block.get("type") == "tool_result":
                content = block["content"]
                if isinstance(content, list):
                    content = "".join(part.get("text", "") for part in content)
                found.append(content)
    return found


def tool_names(request: Any) -> list[str]:
    return [t["name"] for t in request.body.get("tools", [])]


PLAN = {"items": [{"id": "1", "text": "Rename greet", "status": "in_progress"}]}


def test_references_definition_symbols_and_a_rename_reverted_as_one_step(
    model: ScriptedModelServer, workspace: Path, tmp_path: Path, sandbox_works: None
):
    python_project(workspace)
    config = user_settings(tmp_path / "config")
    model.load(
        script_of(
            reply(
                tool("todo", PLAN),
                tool(
                    "code_intel",
                    {"operation": "references", "path": "lib.py", "line": 1, "column": 5},
                ),
                # side by side with the references (both read-only), on the same file
                tool("code_intel", {"operation": "document_symbols", "path": "lib.py"}),
            ),
            reply(
                tool(
                    "code_intel",
                    {"operation": "definition", "path": "app.py", "line": 3, "column": 7},
                )
            ),
            reply(tool("code_intel", {"operation": "workspace_symbols", "query": "Greet"})),
            reply(
                tool(
                    "rename_symbol",
                    {"path": "lib.py", "line": 1, "column": 5, "new_name": "salute"},
                )
            ),
            reply(text("Renamed.")),
        )
    )
    ran = run_cli(workspace, model, config, "run", "Rename greet", "--yes")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "code_intel" in tool_names(model.requests[0])
    assert "rename_symbol" in tool_names(model.requests[0])
    _, references, outline, definition, symbols, renamed = tool_results(model)
    assert references == (
        "7 references in 3 files:\n"
        "app.py:1:17: from lib import greet\n"
        'app.py:3:7: print(greet("a"))\n'
        "\n"
        "lib.py:1:5: def greet(name):\n"
        'lib.py:7:16: return greet("x")\n'
        "\n"
        "more.py:1:17: from lib import greet\n"
        'more.py:5:12: return greet("b") + greet("c")\n'
        'more.py:5:25: return greet("b") + greet("c")'
    )
    assert outline == (
        "3 symbols in 1 file:\n"
        "lib.py:1:5: function greet | def greet(name):\n"
        "lib.py:5:7: class Greeter | class Greeter:\n"
        "  lib.py:6:9: method run | def run(self):"
    )
    assert definition.startswith("1 definition in 1 file:\nlib.py:1:5: def greet(name):"), (
        definition
    )
    assert "lib.py:5:7: class Greeter (in lib.Greeter) | class Greeter:" in symbols, symbols
    assert renamed == (
        "Renamed to salute: 6 lines in 3 files\n  app.py: 2 lines\n  lib.py: 2 lines\n  more.py: 2 lines"
    ), renamed
    assert (workspace / "lib.py").read_text() == LIB.replace("greet", "salute")
    assert (workspace / "app.py").read_text() == APP.replace("greet", "salute")
    assert (workspace / "more.py").read_text() == MORE.replace("greet", "salute")

    session_id = re.search(r"session (\w+)", ran.stdout).group(1)
    changes = run_cli(workspace, model, config, "changes", "--session", session_id, "--json")
    files = json.loads(changes.stdout)["items"][0]["files"]
    assert sorted(f["path"] for f in files) == ["app.py", "lib.py", "more.py"]
    reverted = run_cli(workspace, model, config, "revert", "--session", session_id, "--item", "1")
    assert reverted.returncode == 0, reverted.stdout + reverted.stderr
    assert (workspace / "lib.py").read_text() == LIB
    assert (workspace / "app.py").read_text() == APP
    assert (workspace / "more.py").read_text() == MORE


def test_a_crashed_server_is_started_again_once_then_the_tools_say_it_is_gone(
    model: ScriptedModelServer, workspace: Path, tmp_path: Path, sandbox_works: None
):
    python_project(workspace)
    (workspace / "crash.py").write_text("x = 1\n")
    config = user_settings(tmp_path / "config", crashing_in=workspace)
    crash = {"operation": "document_symbols", "path": "crash.py"}
    definition = {"operation": "definition", "path": "app.py", "line": 3, "column": 7}
    model.load(
        script_of(
            reply(tool("code_intel", crash)),
            reply(tool("code_intel", definition)),
            reply(tool("code_intel", crash)),
            reply(tool("code_intel", definition)),
            reply(text("Done.")),
        )
    )
    ran = run_cli(workspace, model, config, "run", "Look around", "--yes")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    first, again, second, after = tool_results(model)
    assert first.startswith("language server `py` stopped (exit status 3"), first
    assert "it is started again at the next call (once" in first
    assert again.startswith("1 definition in 1 file:\nlib.py:1:5: def greet(name):"), again
    assert second.startswith("language server `py` stopped again (exit status 3"), second
    assert "it is not started again until the agent restarts" in second
    assert after == second

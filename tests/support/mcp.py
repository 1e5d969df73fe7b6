"""The real MCP servers the MCP tests start (installed by `make mcp-test-servers`), and an
agent core wired to them the way the front ends wire it (mcp/runtime.py)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
import pytest
from pytest_lsp import LanguageClient

from workspace_agent import protocol as p
from workspace_agent.agent.sessions import SessionManager
from workspace_agent.config import resolve_settings
from workspace_agent.lsp.wire import to_plain
from workspace_agent.mcp.runtime import McpRuntime

ROOT = Path(__file__).resolve().parents[2]
SERVERS = ROOT / "tests" / "mcp_servers"
EVERYTHING = SERVERS / "node_modules" / ".bin" / "mcp-server-everything"
FILESYSTEM = SERVERS / "node_modules" / ".bin" / "mcp-server-filesystem"
TIME = SERVERS / ".venv" / "bin" / "mcp-server-time"
GIT = SERVERS / ".venv" / "bin" / "mcp-server-git"


def require_servers() -> None:
    missing = [p.name for p in (EVERYTHING, FILESYSTEM, TIME, GIT) if not p.exists()]
    if not missing:
        return
    message = f"MCP test servers missing ({', '.join(missing)}): run `make mcp-test-servers`"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def write_user_config(user_dir: Path, servers: dict[str, Any]) -> None:
    user_dir.mkdir(parents=True, exist_ok=True)
    (user_dir / "mcp.json").write_text(json.dumps({"mcpServers": servers}))


@dataclass
class Recorder:
    """The listener and the asker of an in-process agent: what the user would see and
    what they were asked; `answers` are given in order ("deny" once they run out)."""

    answers: list[str] = field(default_factory=list)
    questions: list[tuple[str, str]] = field(default_factory=list)
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def on_event(self, session_id: str, kind: str, fields: dict[str, Any]) -> None:
        self.events.append((kind, fields))

    def on_todos(self, session_id: str, items: list[Any]) -> None: ...

    def on_context(self, session_id: str, meter: Any) -> None: ...

    def on_changes(self, session_id: str, changes: Any) -> None: ...

    async def ask(self, kind: str, action: str, reason: str | None = None) -> Any:
        self.questions.append((kind, action))
        return self.answers.pop(0) if self.answers else "deny"

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [fields for k, fields in self.events if k == kind]


def agent_with(
    runtime: McpRuntime, workspace: Path, model_url: str, recorder: Recorder, **settings: Any
) -> SessionManager:
    editor = {"baseUrl": model_url, "approvals": {"bash": "allow"}, **settings}
    return SessionManager(
        recorder,
        root=lambda: workspace,
        settings=lambda root: resolve_settings(root, editor, {"ANTHROPIC_API_KEY": "sk-test"}),
        asker=recorder,
        observers=[runtime.observer],
        session_tools=lambda _session: runtime.tools(),
    )


def processes_of(program: Path, workspace: Path | None = None) -> list[psutil.Process]:
    """The live processes running `program` (an MCP server's executable); with `workspace`,
    only those working there (the agent starts its servers in the workspace), so a server
    of an earlier test still on its way out is not counted."""
    found = []
    real = os.path.realpath(workspace) if workspace is not None else None
    for process in psutil.process_iter(["cmdline", "status", "cwd"]):
        if process.info["status"] == psutil.STATUS_ZOMBIE:
            continue
        if str(program) not in " ".join(process.info["cmdline"] or []):
            continue
        if real is None or process.info["cwd"] == real:
            found.append(process)
    return found


def marker(workspace: Path, name: str) -> None:
    """A workspace `.mcp.json` candidate whose command creates the file `name`."""
    config = {"mcpServers": {"marker": {"command": "sh", "args": ["-c", f"touch {name}"]}}}
    (workspace / ".mcp.json").write_text(json.dumps(config))


def record_states(client: LanguageClient) -> list[list[dict[str, Any]]]:
    """Every workspaceAgent/mcpServers list the client gets, in order."""
    states: list[list[dict[str, Any]]] = []
    client.feature(p.MCP_SERVERS_NOTIFICATION)(
        lambda params: states.append(to_plain(params)["servers"])
    )
    return states


def state_of(states: list[list[dict[str, Any]]], name: str) -> dict[str, Any] | None:
    """The server's state in the latest list."""
    latest = [s for s in states[-1] if s["name"] == name] if states else []
    return latest[0] if latest else None


def in_state(states: list[list[dict[str, Any]]], name: str, state: str) -> bool:
    current = state_of(states, name)
    return current is not None and current["state"] == state

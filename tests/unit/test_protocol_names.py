"""The contract's names are the same in protocol.py, docs/protocol.md and contract.ts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from workspace_agent import protocol as p
from workspace_agent.config import EDITOR_KEYS
from workspace_agent.lsp.server import create_server
from workspace_agent.tools import TOOLS

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
TS = ROOT / "vscode-extension" / "src" / "contract.ts"  # generated; protocol.ts re-exports it

NAMES = [
    p.RUN_REQUEST,
    p.CHANGES_REQUEST,
    p.FILE_VERSION_REQUEST,
    p.HISTORY_REQUEST,
    p.TOOL_OUTPUT_REQUEST,
    p.MCP_RESTART_REQUEST,
    p.MCP_TRUST_REQUEST,
    p.MCP_SET_ENABLED_REQUEST,
    *p.MCP_NEXT_STEPS,
    p.APPROVAL_REQUEST,
    *p.APPROVAL_DECISIONS,
    *p.APPROVAL_STATUSES,
    p.CHANGES_NOTIFICATION,
    *p.CHANGE_KINDS,
    *p.FILE_SIDES,
    *p.COMMANDS,
    p.TODOS_NOTIFICATION,
    p.EVENT_NOTIFICATION,
    p.MCP_SERVERS_NOTIFICATION,
    p.SANDBOX_NOTIFICATION,
    *p.EVENT_KINDS,
    *p.STOP_REASONS,
    *p.TODO_STATUSES,
]


@pytest.mark.parametrize("name", NAMES + list(EDITOR_KEYS) + list(TOOLS))
def test_every_name_is_documented(name: str):
    assert f"`{name}`" in DOC or f'"{name}"' in DOC


def test_the_server_advertises_exactly_the_documented_commands():
    server = create_server()
    assert sorted(server.protocol.fm.commands) == sorted(p.COMMANDS)
    documented = set(re.findall(r"^\| `(workspaceAgent\.\w+)`", DOC, flags=re.M))
    assert documented == set(p.COMMANDS)


@pytest.mark.parametrize("name", NAMES)
def test_the_extension_mirrors_every_name(name: str):
    assert f'"{name}"' in TS.read_text(encoding="utf-8") or f"'{name}'" in TS.read_text(
        encoding="utf-8"
    )


def test_the_core_imports_neither_adapter():
    core = [
        *(ROOT / "server" / "workspace_agent" / "agent").glob("*.py"),
        *(ROOT / "server" / "workspace_agent" / "tools").glob("*.py"),
        *(ROOT / "server" / "workspace_agent" / "checkpoints").glob("*.py"),
        ROOT / "server" / "workspace_agent" / "config.py",
        ROOT / "server" / "workspace_agent" / "protocol.py",
    ]
    for module in core:
        source = module.read_text(encoding="utf-8")
        assert not re.search(r"^\s*(from|import) (pygls|lsprotocol)", source, flags=re.M), module
        assert not re.search(r"^\s*(from|import) (acp\b|\.+acp\b)", source, flags=re.M), module


@pytest.mark.parametrize(
    "name",
    [
        p.PROTOCOL_VERSION_CAPABILITY,
        p.REVERT_DRY_RUN_CAPABILITY,
        p.REVERT_ONLY_CAPABILITY,
        p.APPROVALS_CAPABILITY,
    ],
)
def test_the_announced_capabilities_are_documented_and_mirrored(name: str):
    assert f'"{name}"' in DOC
    assert f"'{name}'" in TS.read_text(encoding="utf-8")


def _doc_block(interface: str) -> str:
    match = re.search(rf"^interface {interface} \{{\n(.*?)^\}}", DOC, flags=re.M | re.S)
    assert match, f"interface {interface} is not in docs/protocol.md"
    return match.group(1)


def _keys(value: object) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


def test_the_changes_payload_is_the_documented_one(tmp_path: Path):
    """Every field the server sends is in docs/protocol.md's ChangesResult, and every
    documented field is in the extension's contract.ts."""
    from workspace_agent.checkpoints.history import changes_payload
    from workspace_agent.checkpoints.timeline import Record

    from tests.support.journal import Journal, no_stats

    journal = Journal(tmp_path)
    journal.run("Write a parser")
    journal.call(None, None, "look.txt", True)
    journal.call("1", "Parse", "p.py", True)
    journal.call("1", "Parse the input", "p2.py", False)  # reworded: lastText
    journal.timeline.append(Record("item", todo_id="2", text="Test"))
    journal.timeline.append(Record("tool", todo_id="2", tool="bash", command="pytest"))
    plan = [("1", "Parse the input"), ("2", "Test")]
    payload = {"sessionId": "s", **changes_payload(journal.timeline, no_stats, plan)}
    block = _doc_block("ChangesResult")
    documented = set(re.findall(r"^\s*(\w+)\??:", block, flags=re.M))
    documented |= set(re.findall(r"[{,;] (\w+)\??:", block))  # inline objects
    sent = _keys(payload)
    assert {"key", "text", "lastText", "run", "runs", "prompt", "startedAt", "lastRun"} <= sent
    assert {"displayName", "revertible", "notRevertibleReason", "planRow", "shown"} <= sent
    assert sent <= documented
    ts = TS.read_text(encoding="utf-8")
    for name in sorted(documented):
        assert re.search(rf"\b{name}\??:", ts), f"{name} of ChangesResult is not in contract.ts"

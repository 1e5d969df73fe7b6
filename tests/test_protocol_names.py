"""The contract's names are the same in protocol.py, docs/protocol.md and protocol.ts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from workspace_agent import protocol as p
from workspace_agent.config import EDITOR_KEYS
from workspace_agent.lsp.server import create_server
from workspace_agent.tools import TOOLS

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
TS = ROOT / "vscode-extension" / "src" / "protocol.ts"

NAMES = [
    p.RUN_REQUEST,
    p.CHANGES_REQUEST,
    p.FILE_VERSION_REQUEST,
    p.CHANGES_NOTIFICATION,
    *p.CHANGE_KINDS,
    *p.FILE_SIDES,
    *p.COMMANDS,
    p.TODOS_NOTIFICATION,
    p.EVENT_NOTIFICATION,
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

"""The contract's one source (contract/workspace-agent.json) and what is made of it: the
generated files are up to date, the check names a stale one, and the hand-written parts
of the server (config.py's settings, protocol.py's detail fields) agree with the source."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import jsonschema
import pytest

from workspace_agent import protocol as p
from workspace_agent.config import KEYS, PARSERS, AgentSettings

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "generate_contract.py"
SOURCE = json.loads((ROOT / "contract" / "workspace-agent.json").read_text(encoding="utf-8"))
GENERATED = [
    "server/workspace_agent/contract.py",
    "vscode-extension/src/contract.ts",
    "docs/protocol.md",
    "vscode-extension/package.json",
    "server/workspace_agent/lsp/methods.py",
    "vscode-extension/src/lspExt.ts",
    "vscode-extension/eslint.config.mjs",
]


def check(root: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--root", str(root), *extra],
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """The source and the generated files, in a tree of their own."""
    for name in ["contract/workspace-agent.json", *GENERATED]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / name, tmp_path / name)
    return tmp_path


def test_the_source_fits_its_schema():
    schema = json.loads((ROOT / "contract" / "workspace-agent.schema.json").read_text("utf-8"))
    jsonschema.validate(SOURCE, schema)


def test_every_generated_file_is_up_to_date():
    result = check(ROOT, "--check")
    assert result.returncode == 0, result.stderr


def test_the_check_names_a_stale_file_and_the_command_that_fixes_it(copy: Path):
    stale = copy / "server" / "workspace_agent" / "contract.py"
    stale.write_text(stale.read_text("utf-8").replace('"workspaceAgent/run"', '"x/run"'), "utf-8")
    result = check(copy, "--check")
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        "server/workspace_agent/contract.py is out of date with contract/workspace-agent.json: "
        "run make generate (python scripts/generate_contract.py) and commit the result"
    ]
    assert '"x/run"' in stale.read_text("utf-8"), "--check writes nothing"


def test_a_change_to_the_source_makes_its_copies_stale_until_generated(copy: Path):
    source = copy / "contract" / "workspace-agent.json"
    data = json.loads(source.read_text("utf-8"))
    setting = next(s for s in data["settings"] if s["key"] == "diagnostics.waitSeconds")
    setting["vscode"]["default"] = 2.5
    source.write_text(json.dumps(data, indent=2), "utf-8")
    result = check(copy, "--check")
    assert result.returncode == 1
    assert "vscode-extension/package.json is out of date" in result.stderr
    assert "docs/protocol.md" not in result.stderr  # a client setting: not in its table

    assert check(copy).returncode == 0
    manifest = json.loads((copy / "vscode-extension" / "package.json").read_text("utf-8"))
    properties = manifest["contributes"]["configuration"]["properties"]
    assert properties["workspaceAgent.diagnostics.waitSeconds"]["default"] == 2.5
    assert check(copy, "--check").returncode == 0


def test_a_source_that_does_not_hold_together_is_refused_with_the_reason(copy: Path):
    source = copy / "contract" / "workspace-agent.json"
    text = source.read_text("utf-8").replace('"type": "TodoItem[]"', '"type": "TodoItm[]"', 1)
    source.write_text(text, "utf-8")
    result = check(copy)
    assert result.returncode == 2
    assert "unknown type 'TodoItm'" in result.stderr
    assert (copy / "server" / "workspace_agent" / "contract.py").read_text("utf-8") == (
        ROOT / "server" / "workspace_agent" / "contract.py"
    ).read_text("utf-8"), "nothing was written"


def test_the_server_reads_exactly_the_settings_the_contract_sends_it():
    """config.py's KEYS come from the contract (contract.SERVER_SETTINGS); what stays
    hand-written is each one's parser, by field: one for each, none left over."""
    server = {s["field"]: s for s in SOURCE["settings"] if s["target"] == "server"}
    assert sorted(PARSERS) == sorted(server)
    read = {key.editor: key for key in KEYS if key.editor}
    assert sorted(read) == sorted(s["key"] for s in server.values())
    for key in read.values():
        setting = server[key.field]
        assert (setting["key"], setting.get("env")) == (key.editor, key.env)
        assert setting.get("fromDotenv", True) == key.from_dotenv
        assert key.parse is PARSERS[key.field]


def test_the_contract_gives_the_server_s_own_defaults():
    defaults = {f.name: f.default for f in fields(AgentSettings)}
    parsers = {key.field: key.parse for key in KEYS}
    checked = 0
    for setting in SOURCE["settings"]:
        if "serverDefault" not in setting:
            continue
        value, field = setting["serverDefault"], setting["field"]
        expected = None if value is None else parsers[field](value)
        assert expected == defaults[field], setting["key"]
        checked += 1
    assert checked >= 20


def test_the_detail_fields_are_the_core_only_fields_of_the_events():
    core_only = {
        field["name"]
        for event in SOURCE["events"]["kinds"]
        for field in event["fields"]
        if field.get("in") == "core"
    }
    # changedFiles is not left out but renamed: the LSP's `changes` (conversation/entries.py)
    assert core_only - {"changedFiles"} == p.TOOL_DETAIL_FIELDS

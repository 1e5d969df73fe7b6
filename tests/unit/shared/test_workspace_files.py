"""Every file the agent reads from the workspace on its own goes through one check: a link
out of the workspace (the file, or a folder it is in) is refused and nothing of its target
is read. One case per reader in `workspace_files.READERS`; a reader added there without a
case here fails `test_every_reader_has_a_case`."""

from __future__ import annotations

import importlib
import inspect
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from workspace_agent.agent import saved_prompts, settings_file
from workspace_agent.hooks.config import Hook
from workspace_agent.hooks.sources import find_hooks
from workspace_agent.hooks.trust import candidate
from workspace_agent.instructions import files as instruction_files
from workspace_agent.mcp.sources import discover
from workspace_agent.shared import host_programs, workspace_files
from workspace_agent.skills.discovery import find_skills
from workspace_agent.subagents.definitions import find_agents

SECRET = "aws_secret_access_key = planted-secret-0123"


def plant(root: Path, outside: Path, relative: str, content: str, folder: bool = False) -> None:
    """`relative` in the workspace as a link to a file outside holding `content` (or, with
    `folder`, its parent folder as a link to an outside folder holding it)."""
    link = root / relative
    link.parent.parent.mkdir(parents=True, exist_ok=True)
    if folder:
        target = outside / "linked-folder"
        target.mkdir(parents=True, exist_ok=True)
        (target / link.name).write_text(content)
        link.parent.symlink_to(target, target_is_directory=True)
    else:
        link.parent.mkdir(parents=True, exist_ok=True)
        outside.mkdir(parents=True, exist_ok=True)
        target = outside / f"target-{link.name}"
        target.write_text(content)
        link.symlink_to(target)


def saved_command(root: Path, outside: Path, folder: bool) -> str:
    plant(root, outside, ".claude/commands/review.md", SECRET, folder)
    plant(root, outside / "w", ".workspace-agent/commands/deploy.md", SECRET, folder)
    shown = []
    for name in ("review", "deploy"):
        with pytest.raises(saved_prompts.CommandError) as refused:
            saved_prompts.resolve(f"/{name} now", root, root / "no-user-dir")
        shown.append(str(refused.value))
    commands, problems = saved_prompts.list_commands(root, root / "no-user-dir")
    assert not {"review", "deploy"} & {command.name for command in commands}
    return "\n".join([*shown, *problems])


def instructions(root: Path, outside: Path, folder: bool) -> str:
    plant(root, outside, "AGENTS.md", SECRET)
    plant(root, outside / "n", "pkg/AGENTS.md", SECRET, folder)
    found = instruction_files.load_instructions(root, ("AGENTS.md",), root / "no-user-dir")
    assert found.files == ()
    assert instruction_files.find_in(root / "pkg", root, ("AGENTS.md",)) is None
    return workspace_files.LEADS_OUTSIDE


def workspace_settings(root: Path, outside: Path, folder: bool) -> str:
    plant(root, outside, ".workspace-agent/settings.json", json.dumps({"maxTurns": 3}), folder)
    found = settings_file.read_settings(root, root / "no-user-dir")
    assert "maxTurns" not in found.values
    return "\n".join(found.problems)


def mcp_config(root: Path, outside: Path, folder: bool) -> str:
    server = {"mcpServers": {"planted": {"command": "cat", "args": [SECRET]}}}
    plant(root, outside, ".vscode/mcp.json", json.dumps(server), folder)
    plant(root, outside / "m", ".mcp.json", json.dumps(server))
    found = discover(root, root / "no-user-dir")
    assert found.servers == []
    return "\n".join(found.problems)


def hook_settings(root: Path, outside: Path, folder: bool) -> str:
    hooks = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": SECRET}]}]}}
    plant(root, outside, ".claude/settings.json", json.dumps(hooks), folder)
    plant(root, outside / "h", ".workspace-agent/settings.json", json.dumps(hooks), folder)
    found = find_hooks(root, root / "no-user-dir")
    assert found.hooks == ()
    return "\n".join(found.problems)


def hook_script(root: Path, outside: Path, folder: bool) -> str:
    plant(root, outside, "scripts/fmt.sh", SECRET, folder)
    host_programs.protect(root)
    try:
        ((path, seen),) = candidate(Hook("Stop", "sh scripts/fmt.sh", "user", "x"), root).scripts
    finally:
        host_programs.forget([root])
    assert path == "scripts/fmt.sh" and seen.startswith("link:")  # its target, never its text
    return f"{seen} {workspace_files.LEADS_OUTSIDE}"


def skills(root: Path, outside: Path, folder: bool) -> str:
    skill = f"---\nname: leak\ndescription: {SECRET}\n---\n{SECRET}\n"
    plant(root, outside, ".claude/skills/leak/SKILL.md", skill, folder)
    found = find_skills(root, root / "no-home", root / "no-user-dir")
    assert found.skills == ()
    return "\n".join(found.problems)


def agents(root: Path, outside: Path, folder: bool) -> str:
    agent = f"---\nname: leak\ndescription: {SECRET}\n---\n{SECRET}\n"
    plant(root, outside, ".claude/agents/leak.md", agent, folder)
    found = find_agents(root, root / "no-home", root / "no-user-dir")
    assert "leak" not in found.names
    return "\n".join(found.problems)


CASES: dict[str, Callable[[Path, Path, bool], str]] = {
    "workspace_agent.agent.saved_prompts": saved_command,
    "workspace_agent.instructions.files": instructions,
    "workspace_agent.agent.settings_file": workspace_settings,
    "workspace_agent.mcp.config": mcp_config,
    "workspace_agent.hooks.sources": hook_settings,
    "workspace_agent.hooks.trust": hook_script,
    "workspace_agent.skills.discovery": skills,
    "workspace_agent.subagents.definitions": agents,
}


@pytest.mark.parametrize("folder", [False, True], ids=["linked file", "linked folder"])
@pytest.mark.parametrize("reader", sorted(CASES))
def test_a_link_out_of_the_workspace_is_refused_and_nothing_of_it_is_read(
    reader: str, folder: bool, tmp_path: Path
):
    root, outside = tmp_path / "ws", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    said = CASES[reader](root, outside, folder)
    assert SECRET not in said
    assert workspace_files.LEADS_OUTSIDE in said


def test_every_reader_has_a_case_and_uses_the_one_check():
    assert set(CASES) == set(workspace_files.READERS)
    for name in workspace_files.READERS:
        source = inspect.getsource(importlib.import_module(name))
        assert "workspace_files" in source, f"{name} reads workspace files without the check"


def test_a_file_inside_the_workspace_reads_as_usual_links_within_it_too(tmp_path: Path):
    root = tmp_path / "ws"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "AGENTS.md").write_text("be brief")
    (root / "AGENTS.md").symlink_to(root / "docs" / "AGENTS.md")
    assert workspace_files.read_text(root / "AGENTS.md", root) == "be brief"
    assert workspace_files.is_file(root / "AGENTS.md", root)
    found = instruction_files.load_instructions(root, ("AGENTS.md",), tmp_path / "none")
    assert [f.text for f in found.files] == ["be brief"]

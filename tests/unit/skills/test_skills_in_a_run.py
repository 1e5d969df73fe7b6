"""Skills in a run, with the scripted model: the first request's system prompt lists each
skill's name and description (never a body); the `skill` tool gives the body and the
folder, whose other files read_file reads even in the user's folder outside the
workspace (and nothing else outside); a run without skills sends the very bytes it sent
before skills existed (no list, no tool)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from workspace_agent.agent.prompt import system_prompt
from workspace_agent.agent.sessions import SessionManager
from workspace_agent.config import resolve_settings
from workspace_agent.protocol import RunRequest
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

BASE_TOOLS = [
    "bash",
    "read_file",
    "write_file",
    "edit_file",
    "todo",
    "search",
    "find_files",
    "web_fetch",
    "web_search",
    "task",
]


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    def on_event(self, session_id: str, kind: str, fields: dict[str, Any]) -> None:
        self.events.append((kind, fields))

    def on_todos(self, session_id: str, items: list[Any]) -> None: ...

    def on_context(self, session_id: str, meter: dict[str, Any]) -> None: ...

    def on_changes(self, session_id: str, changes: dict[str, Any]) -> None: ...


def manager(workspace: Path, model: ScriptedModelServer, listener: Recorder) -> SessionManager:
    settings = {"baseUrl": model.url, "checkpoints": {"enabled": False}}
    return SessionManager(
        listener,
        root=lambda: workspace,
        settings=lambda root: resolve_settings(root, settings, {"ANTHROPIC_API_KEY": "k"}),
    )


def results(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for b in body["messages"][-1]["content"] if b.get("type") == "tool_result"]


async def test_without_skills_the_request_is_what_it_was(
    workspace: Path, model: ScriptedModelServer
):
    model.load(script_of(reply(text("hi"))))
    await manager(workspace, model, Recorder()).run(RunRequest("hello"))

    (request,) = model.requests
    assert [block["text"] for block in request.body["system"]] == [system_prompt(workspace)]
    assert [t["name"] for t in request.body["tools"]] == BASE_TOOLS


async def test_the_list_names_skills_and_the_tool_gives_body_and_folder(
    workspace: Path, model: ScriptedModelServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    claude = tmp_path / "claude-home"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    mine = claude / "skills" / "release-notes"
    (mine / "references").mkdir(parents=True)
    (mine / "SKILL.md").write_text(
        "---\nname: release-notes\ndescription: Write release notes from the git log.\n---\n"
        "Follow references/style.md for $ARGUMENTS.\n"
    )
    (mine / "references" / "style.md").write_text("One line per change.\n")
    (tmp_path / "secret.txt").write_text("not for the model")
    team = workspace / ".claude" / "skills" / "deploy"
    team.mkdir(parents=True)
    (team / "SKILL.md").write_text(
        "---\nname: deploy\ndescription: Deploy the service.\n---\nRun scripts/deploy.sh.\n"
    )
    quiet = workspace / ".claude" / "skills" / "by-hand"
    quiet.mkdir(parents=True)
    (quiet / "SKILL.md").write_text(
        "---\nname: by-hand\ndescription: Only when asked.\ndisable-model-invocation: true\n---\n"
        "Secret steps.\n"
    )
    model.load(
        script_of(
            reply(tool("skill", {"name": "release-notes", "arguments": "v2.1"})),
            reply(tool("read_file", {"path": str(mine / "references" / "style.md")})),
            reply(tool("read_file", {"path": str(tmp_path / "secret.txt")})),
            reply(tool("skill", {"name": "by-hand"})),
            reply(text("done")),
        )
    )
    listener = Recorder()

    result = await manager(workspace, model, listener).run(RunRequest("write the notes"))

    assert result.stop_reason == "end_turn"
    first = model.requests[0].body
    system = "".join(block["text"] for block in first["system"])
    assert system.startswith(system_prompt(workspace))
    assert "- deploy: Deploy the service." in system
    assert "- release-notes: Write release notes from the git log." in system
    assert "by-hand" not in system  # the model does not load it
    assert "Run scripts/deploy.sh" not in system and "Follow references" not in system
    assert [t["name"] for t in first["tools"]] == [*BASE_TOOLS[:9], "skill", "task"]

    loaded, style, secret, refused = (results(r.body)[0] for r in model.requests[1:5])
    assert loaded["content"] == (
        f'<skill name="release-notes" folder="{mine}">\n'
        "Follow references/style.md for v2.1.\n"
        "</skill>\n"
        f"Paths in this skill are relative to its folder, {mine}: read its other files with "
        "read_file when it points to them; run its scripts with bash."
    )
    assert "One line per change." in style["content"] and not style.get("is_error")
    assert secret.get("is_error") and "outside the workspace" in secret["content"]
    assert refused.get("is_error") and "disable-model-invocation: true" in refused["content"]

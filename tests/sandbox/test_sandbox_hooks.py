"""A workspace's hook (its `.claude/settings.json`) in the real sandbox: it does not run
until the user trusts it; trusted, it runs inside the sandbox like a `bash` command (it
writes the workspace, never a folder outside it); and when a sandboxed command changes the
script it runs, it is asked about again before it runs."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from workspace_agent.agent.sessions import SessionManager
from workspace_agent.config import resolve_settings
from workspace_agent.protocol import RunRequest
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool


class Listener:
    def __init__(self) -> None:
        self.hooks: list[dict[str, Any]] = []

    def on_event(self, session_id: str, kind: str, fields: dict[str, Any]) -> None:
        if kind == "hook":
            self.hooks.append(fields)

    def on_todos(self, session_id: str, items: list[Any]) -> None: ...

    def on_context(self, session_id: str, meter: dict[str, Any]) -> None: ...

    def on_changes(self, session_id: str, changes: dict[str, Any]) -> None: ...


class Asker:
    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.asked: list[str] = []

    async def ask(self, kind: str, action: str, reason: str | None = None) -> Any:
        self.asked.append(action)
        return self.answers.pop(0)


@pytest.fixture
def outside() -> Iterator[Path]:
    """A folder outside the workspace (under /var/tmp: read-only inside the sandbox)."""
    folder = Path(tempfile.mkdtemp(prefix="wa-hook-outside-", dir="/var/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def agent(workspace: Path, model: ScriptedModelServer, asker: Asker, listener: Listener) -> Any:
    values = {"baseUrl": model.url, "approvals": {"bash": "allow"}}
    return SessionManager(
        listener,
        root=lambda: workspace,
        settings=lambda root: resolve_settings(root, values, {"ANTHROPIC_API_KEY": "k"}),
        asker=asker,
    )


async def test_a_workspace_hook_runs_once_trusted_in_the_sandbox_and_is_asked_again_when_changed(
    sandbox_works: None,
    workspace: Path,
    model: ScriptedModelServer,
    outside: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.setenv("WORKSPACE_AGENT_CONFIG_DIR", str(tmp_path / "config"))
    (workspace / "scripts").mkdir()
    script = workspace / "scripts" / "after.sh"
    script.write_text(
        f"echo inside >> hook-ran.txt\necho out > {outside}/escaped.txt || echo refused >&2\n"
    )
    hook = {"type": "command", "command": "sh ./scripts/after.sh"}
    (workspace / ".claude").mkdir()
    (workspace / ".claude" / "settings.json").write_text(
        json.dumps({"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [hook]}]}})
    )
    change = f"echo 'touch {workspace}/changed.txt' >> scripts/after.sh"
    model.load(
        script_of(
            reply(tool("bash", {"command": "true"})),
            reply(text("first")),
            reply(tool("bash", {"command": "true"})),
            reply(tool("bash", {"command": change})),
            reply(text("second")),
        )
    )
    # not trusted (declined): it does not run
    declined, listener = Asker("deny"), Listener()
    await agent(workspace, model, declined, listener).run(RunRequest("one"))
    assert len(declined.asked) == 1 and "sh ./scripts/after.sh" in declined.asked[0]
    assert not (workspace / "hook-ran.txt").exists()
    assert listener.hooks[-1]["outcome"] == "skipped"

    # trusted: it runs, in the sandbox; then a command changes its script: asked again
    asker, listener = Asker("allow", "deny"), Listener()
    result = await agent(workspace, model, asker, listener).run(RunRequest("two"))
    assert result.stop_reason == "end_turn"
    assert (workspace / "hook-ran.txt").read_text() == "inside\n"  # once: not after the change
    assert not (outside / "escaped.txt").exists()
    ran, skipped = listener.hooks
    assert ran["outcome"] == "ok" and ran["sandboxed"] is True and "refused" in ran["output"]
    assert skipped["outcome"] == "skipped" and len(asker.asked) == 2
    assert not (workspace / "changed.txt").exists()

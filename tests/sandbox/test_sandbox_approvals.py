"""Fewer questions because of the sandbox, and never relaxed approvals without it.

- approvals.bash "sandboxed" (the default): a plain command in the sandbox runs without a
  question; the guard's refusals and its "asked even when allowed" cases are unchanged;
  a user's explicit "ask" stays ask.
- Leaving the sandbox (`unsandboxed_reason`) is asked about every time, names what
  widens, and an earlier "Allow for this session" does not cover it.
- Where the sandbox cannot start (stand-ins: no bwrap on PATH, a bwrap whose user
  namespaces are refused, a fake bwrap planted in the workspace) the reason and the fix
  reach the model and commands go back to questions; `required` refuses them.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from workspace_agent.config import AgentSettings
from workspace_agent.guard.approvals import Answer, Approvals
from workspace_agent.sandbox import probe
from workspace_agent.shared.todo import TodoList
from workspace_agent.tools.base import ToolContext, ToolError, ToolResult
from workspace_agent.tools.bash import BASH


class Recorder:
    def __init__(self, answer: Answer = "allow") -> None:
        self.answer: Answer = answer
        self.questions: list[tuple[str, str, str | None]] = []

    async def ask(self, kind: str, action: str, reason: str | None = None) -> Answer | None:
        self.questions.append((kind, action, reason))
        return self.answer


@pytest.fixture
def ws() -> Iterator[Path]:
    base = Path(tempfile.mkdtemp(prefix="wa-approvals-", dir="/var/tmp"))
    (base / "ws").mkdir()
    probe.forget()
    yield base / "ws"
    probe.forget()
    shutil.rmtree(base, ignore_errors=True)


def context(
    ws: Path, asker: Recorder, policy: dict[str, str] | None = None, **settings
) -> ToolContext:
    """A run's context in a session of its own (what the sandbox tells once, it tells per
    session)."""
    approvals = Approvals(policy or dict(AgentSettings().approvals), asker)
    return ToolContext(
        ws,
        replace(AgentSettings(), **settings),
        TodoList(),
        approvals,
        session_id=uuid.uuid4().hex,
    )


async def bash(ctx: ToolContext, command: str, **extra: object) -> ToolResult:
    answer = await BASH.handler(ctx, {"command": command, **extra})
    assert isinstance(answer, ToolResult)
    return answer


async def test_a_plain_sandboxed_command_runs_without_a_question(ws: Path, sandbox_works: None):
    asker = Recorder()
    answer = await bash(context(ws, asker), "touch plain.marker")
    assert answer.sandboxed is True and (ws / "plain.marker").exists()
    assert asker.questions == []


async def test_the_guard_still_refuses_and_still_asks_in_the_sandbox(ws: Path, sandbox_works: None):
    asker = Recorder()
    ctx = context(ws, asker)
    with pytest.raises(ToolError, match="refused"):
        await bash(ctx, "sudo touch x")
    await bash(ctx, "x=touch; $x flagged.marker")
    ((kind, _, reason),) = asker.questions
    assert kind == "bash" and reason and "variable" in reason


async def test_an_explicit_ask_stays_ask(ws: Path, sandbox_works: None):
    asker = Recorder()
    answer = await bash(context(ws, asker, {"bash": "ask", "write": "allow"}), "true")
    assert answer.sandboxed is True
    assert [q[1] for q in asker.questions] == ["run `true`"]


async def test_leaving_the_sandbox_is_asked_every_time_and_names_what_widens(
    ws: Path, sandbox_works: None
):
    outside = ws.parent / "outside.txt"
    asker = Recorder("allow_session")
    ctx = context(ws, asker, {"bash": "allow", "write": "allow"})
    ctx.approvals.allowed_for_session.add("bash")  # an earlier "Allow for this session"
    for _ in range(2):
        answer = await bash(ctx, f"echo x >> {outside}", unsandboxed_reason="write the report")
        assert answer.sandboxed is False
    assert outside.read_text() == "x\nx\n"  # it did run outside, as asked
    assert len(asker.questions) == 2
    reason = asker.questions[0][2]
    assert reason is not None and "outside the sandbox, with your full access" in reason
    assert "write the report" in reason


async def test_leaving_the_sandbox_declined_runs_nothing(ws: Path, sandbox_works: None):
    outside = ws.parent / "outside.txt"
    ctx = context(ws, Recorder("deny"), {"bash": "allow", "write": "allow"})
    with pytest.raises(ToolError, match="declined"):
        await bash(ctx, f"touch {outside}", unsandboxed_reason="needs it")
    assert not outside.exists()


async def test_required_never_leaves_the_sandbox(ws: Path, sandbox_works: None):
    ctx = context(ws, Recorder(), sandbox_mode="required")
    with pytest.raises(ToolError, match="required"):
        await bash(ctx, "true", unsandboxed_reason="needs the network")


def stand_in_bin(folder: Path, bwrap_script: str | None) -> str:
    """A PATH with the few programs the commands here use, and `bwrap` as given."""
    folder.mkdir(parents=True, exist_ok=True)
    for program in ("touch", "cat"):
        found = shutil.which(program)
        assert found
        (folder / program).symlink_to(found)
    if bwrap_script is not None:
        (folder / "bwrap").write_text(f"#!/bin/sh\n{bwrap_script}\n")
        (folder / "bwrap").chmod(0o755)
    return str(folder)


USERNS_REFUSED = "echo 'bwrap: setting up uid map: Permission denied' >&2; exit 1"
UNCONFINED = 'while [ "$1" != "--" ]; do shift; done; shift; exec "$@"'


@pytest.mark.parametrize(
    ("stand_in", "reason", "fix"),
    [
        (None, "bubblewrap (bwrap) is not installed", "apt-get install bubblewrap"),
        (USERNS_REFUSED, "unprivileged user namespaces are refused", "/etc/apparmor.d/bwrap"),
    ],
    ids=["bwrap missing", "user namespaces refused"],
)
async def test_where_the_sandbox_cannot_start_commands_are_asked_about_with_the_reason(
    ws: Path, monkeypatch: pytest.MonkeyPatch, stand_in: str | None, reason: str, fix: str
):
    monkeypatch.setenv("PATH", stand_in_bin(ws.parent / "bin", stand_in))
    asker = Recorder()
    session = context(ws, asker)
    answer = await bash(session, "touch plain.marker")
    assert answer.sandboxed is False and (ws / "plain.marker").exists()
    assert [q[1] for q in asker.questions] == ["run `touch plain.marker`"]  # back to asking
    assert f"[ran outside the sandbox: {reason}" in answer.text and fix in answer.text
    again = await bash(session, "touch again.marker")
    assert "outside the sandbox" not in again.text  # the model is told once per session
    assert len(asker.questions) == 2  # and still asked every time

    ctx = context(ws, Recorder(), sandbox_mode="required")
    with pytest.raises(ToolError, match=f"sandbox.mode is `required`.*{re.escape(reason)}"):
        await bash(ctx, "touch required.marker")
    assert not (ws / "required.marker").exists()


async def test_a_bwrap_planted_in_the_workspace_is_never_used(
    ws: Path, monkeypatch: pytest.MonkeyPatch
):
    """A fake bwrap that runs the command unconfined must not count as a sandbox."""
    planted = stand_in_bin(ws / "node_modules" / ".bin", UNCONFINED)
    monkeypatch.setenv("PATH", f"{planted}{os.pathsep}{stand_in_bin(ws.parent / 'bin', None)}")
    asker = Recorder()
    answer = await bash(context(ws, asker), "touch plain.marker")
    assert answer.sandboxed is False
    assert "bubblewrap (bwrap) is not installed" in answer.text
    assert len(asker.questions) == 1


async def test_a_wider_write_path_is_asked_every_time_and_only_that_path_widens(
    ws: Path, sandbox_works: None
):
    cache = ws.parent / "real-cache"
    (cache / ".git").mkdir(parents=True)  # a checkout: its .git stays read-only
    elsewhere = ws.parent / "elsewhere.txt"
    asker = Recorder("allow_session")
    ctx = context(ws, asker, {"bash": "allow", "write": "allow"})
    blocked = await bash(ctx, f"echo x > {cache}/pkg")
    assert "blocked by the sandbox: write to " in blocked.text and asker.questions == []
    ctx.approvals.allowed_for_session.add("bash")  # an earlier "Allow for this session"
    for n in range(2):
        answer = await bash(
            ctx,
            f"echo {n} >> {cache}/pkg; echo x > {elsewhere}; touch {cache}/.git/hook",
            writable_paths=[str(cache)],
        )
        assert answer.sandboxed is True
    assert (cache / "pkg").read_text() == "0\n1\n"
    assert not elsewhere.exists() and not (cache / ".git" / "hook").exists()
    assert len(asker.questions) == 2
    reason = asker.questions[0][2]
    assert reason == (
        f"it may also write {cache}, outside the workspace (the sandbox's other walls stay)"
    )


async def test_a_wider_write_path_must_be_a_folder_and_not_everything(ws: Path):
    ctx = context(ws, Recorder(), {"bash": "allow", "write": "allow"})
    with pytest.raises(ToolError, match="is not an existing folder"):
        await bash(ctx, "true", writable_paths=[str(ws.parent / "missing")])
    with pytest.raises(ToolError, match="would leave no sandbox"):
        await bash(ctx, "true", writable_paths=["/"])


async def test_a_wider_write_path_is_refused_near_credentials_as_the_setting_is(
    ws: Path, monkeypatch: pytest.MonkeyPatch
):
    """The model's own `writable_paths` meet the sandbox.writablePaths setting's rules: a
    folder holding or inside a credential location is refused before anyone is asked, a
    link into one too."""
    home = ws.parent / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / "projects").mkdir()
    (home / "projects" / "keys").symlink_to(home / ".ssh")
    monkeypatch.setenv("HOME", str(home))
    asker = Recorder()
    ctx = context(ws, asker, {"bash": "allow", "write": "allow"})
    for asked in ("~/.ssh", str(home / "projects" / "keys")):
        with pytest.raises(ToolError) as refused:
            await bash(ctx, "true", writable_paths=[asked])
        assert str(refused.value) == (
            f"not run: writable_paths: {home / '.ssh'} would let commands reach "
            f"{home / '.ssh'} (credentials); the sandbox keeps those out of reach even when "
            "asked (run the command without that folder)"
        )
    with pytest.raises(ToolError, match="would leave no sandbox"):
        await bash(ctx, "true", writable_paths=["~"])
    assert asker.questions == [], "nobody was asked about a write that cannot be granted"

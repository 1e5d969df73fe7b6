"""Random sessions through the real server, and every request they make is one the Messages
API takes: the strict scripted model checks each (request_rules.py) and answers a 400 to
any broken one, so a step that leaves the history in a shape the API refuses fails here.

Each session is a seeded random walk over what users do: tool rounds (write, edit, read,
bash), thinking, an MCP server's tools (one that grows its tool list), plan mode, a cancel
while a command runs, the context window running out (compaction), a revert of the last
run, and a restart of the server followed by a resume of the session. The seed is in the
failure message. Each session takes every kind of step once, in a random order, then a
few random ones. WORKSPACE_AGENT_RANDOM_SESSIONS=N runs N sessions (default 1, about ten
seconds), WORKSPACE_AGENT_RANDOM_SEED=S starts from seed S."""

from __future__ import annotations

import asyncio
import json
import os
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from workspace_agent import protocol as p
from workspace_agent.agent.loop import CANCELLED_RESULT
from workspace_agent.testing.scripted_model import (
    ScriptedModelServer,
    reply,
    script_of,
    text,
    thinking,
    tool,
)

from tests.support.client import RecordingClient, start_server, start_session
from tests.support.lsp import command, events_of, run, wait_for
from tests.support.mcp import in_state, record_states
from tests.support.server import USER_CONFIG

SESSIONS = int(os.environ.get("WORKSPACE_AGENT_RANDOM_SESSIONS", "1"))
FIRST_SEED = int(os.environ.get("WORKSPACE_AGENT_RANDOM_SEED", "2029"))
KINDS = ("tools", "mcp", "plan", "cancel", "compact", "revert", "restart")
EXTRA_STEPS = 2
GROWING = Path(__file__).resolve().parents[1] / "mcp_servers" / "growing_server.py"
SETTINGS: dict[str, Any] = {
    "bashTimeoutSeconds": 20,
    "approvals": {"bash": "allow", "mcp": "allow", "write": "allow"},
}
MCP_CONFIG = {"mcpServers": {"growing": {"command": sys.executable, "args": [str(GROWING)]}}}


class Walk:
    """One session's random steps on one workspace, across server processes."""

    def __init__(self, seed: int, workspace: Path, model: ScriptedModelServer) -> None:
        self.seed, self.random = seed, random.Random(seed)
        self.workspace, self.model = workspace, model
        self.session_id: str | None = None
        self.files = 0
        self.done: list[str] = []

    async def start(self) -> RecordingClient:
        client = await start_server()
        self.states = record_states(client)
        await start_session(client, self.workspace, self.model, settings=SETTINGS)
        return client

    def load(self, *replies: dict[str, Any]) -> None:
        self.model.load(script_of(*replies, on_exhausted="text"))

    async def ask(self, client: RecordingClient, prompt: str, **kw: Any) -> dict[str, Any]:
        result = await run(client, prompt, self.session_id, **kw)
        self.session_id = result["sessionId"]
        rejected = [r.rejected for r in self.model.requests if r.rejected]
        assert rejected == [], f"seed {self.seed}, steps {self.done}: {rejected}"
        return result

    def new_file(self) -> str:
        self.files += 1
        return f"notes/f{self.files}.txt"

    def tool_round(self) -> list[dict[str, Any]]:
        """One to three replies of tool calls (some answers holding several), then text."""
        replies = []
        for _ in range(self.random.randint(1, 3)):
            calls = []
            for _ in range(self.random.randint(1, 3)):
                kind = self.random.choice(["write", "read", "bash", "edit"])
                if kind == "write" or not self.files:
                    name = self.new_file()
                    calls.append(tool("write_file", {"path": name, "content": "one\ntwo\n"}))
                elif kind == "read":
                    calls.append(tool("read_file", {"path": f"notes/f{self.files}.txt"}))
                elif kind == "edit":
                    path = f"notes/f{self.random.randint(1, self.files)}.txt"
                    calls.append(
                        tool("edit_file", {"path": path, "old_text": "two", "new_text": "2"})
                    )
                else:
                    calls.append(tool("bash", {"command": "ls notes | head -3"}))
            lead = [text("Working on it.")] if self.random.random() < 0.6 else []
            if self.random.random() < 0.4:
                lead.insert(0, thinking(f"Step {len(replies)}: let me look."))
            replies.append(reply(*lead, *calls))
        return [*replies, reply(text("Done with that."))]

    def plan(self) -> list[str]:
        """Every kind of step once, in a random order (a restart never first), then more."""
        kinds = list(KINDS)
        self.random.shuffle(kinds)
        if kinds[0] == "restart":
            kinds.reverse()
        return kinds + [self.random.choice(KINDS) for _ in range(EXTRA_STEPS)]

    async def step(self, client: RecordingClient, kind: str) -> RecordingClient:
        self.done.append(kind)
        if kind == "tools":
            self.load(*self.tool_round())
            await self.ask(client, "Change the notes")
        elif kind == "mcp":
            await wait_for(
                lambda: in_state(self.states, "growing", "ready"), timeout=30, what="MCP ready"
            )
            self.load(
                reply(text("Growing."), tool("mcp__growing__grow", {})),
                reply(tool("mcp__growing__grown", {})),
                reply(text("It grew.")),
            )
            await self.ask(client, "Use the growing server")
        elif kind == "plan":
            name = self.new_file()
            self.load(
                reply(tool("read_file", {"path": "notes"}), tool("write_file", {"path": name})),
                reply(text("The plan: write one file.")),
            )
            await self.ask(client, "Plan the next file", mode="plan")
        elif kind == "cancel":
            await self.cancel(client)
        elif kind == "compact":  # reads that fill the history, then the window runs out
            data = self.workspace / "data.txt"
            data.write_text("".join(f"line {n:04d} {'x' * 60}\n" for n in range(60)))
            read = tool("read_file", {"path": "data.txt"})
            self.load(
                *[reply(text(f"Read {n}."), read) for n in range(self.random.randint(5, 8))],
                reply(text("partial"), stop_reason="model_context_window_exceeded"),
                reply(text("Done after compacting.")),
            )
            await self.ask(client, "Keep going")
        elif kind == "revert":  # a run that writes, then that run undone
            self.load(reply(tool("write_file", {"path": self.new_file(), "content": "x\n"})))
            await self.ask(client, "Write one more")
            await command(client, p.REVERT_COMMAND, {"sessionId": self.session_id, "lastRun": True})
            self.load(reply(text("Reverted, noted.")))
            await self.ask(client, "I reverted that")
        else:  # restart: a new server process resumes the saved session
            await client.shutdown_session()
            client = await self.start()
            self.load(*self.tool_round())
            await self.ask(client, "Go on after the restart")
        return client

    async def cancel(self, client: RecordingClient) -> None:
        self.load(reply(text("Waiting."), tool("bash", {"command": "sleep 30"})))
        started = len(events_of(client, "toolCall"))
        running = asyncio.ensure_future(self.ask(client, "Wait for it"))
        await wait_for(
            lambda: len(events_of(client, "toolCall")) > started or running.done(),
            timeout=20,
            what="the command to start",
        )
        if self.session_id is None:  # the first run: its session id comes with an event
            self.session_id = events_of(client, "toolCall")[-1]["sessionId"]
        await command(client, p.CANCEL_COMMAND, {"sessionId": self.session_id})
        assert (await running)["stopReason"] == "cancelled"


@pytest.fixture
def growing_server() -> Iterator[None]:
    """The growing MCP server (the mcp package's own, run by this Python) in the user's
    config, removed after."""
    (USER_CONFIG / "mcp.json").write_text(json.dumps(MCP_CONFIG))
    yield
    (USER_CONFIG / "mcp.json").unlink(missing_ok=True)


async def test_random_sessions_send_only_requests_the_api_takes(
    growing_server: None, tmp_path: Path, model: ScriptedModelServer
):
    for seed in range(FIRST_SEED, FIRST_SEED + SESSIONS):
        workspace = tmp_path / f"session-{seed}"
        workspace.mkdir()
        walk = Walk(seed, workspace, model)
        client = await walk.start()
        try:
            for kind in walk.plan():
                client = await walk.step(client, kind)
        finally:
            await client.shutdown_session()
    sent = [json.dumps(r.body) for r in model.requests if r.path == "/v1/messages"]
    assert len(sent) >= SESSIONS * (len(KINDS) + EXTRA_STEPS)
    # the steps did what they stand for: the grown MCP tool answered, a compaction cut the
    # history, the cancel answered the command's tool_use, plan mode refused the write
    assert any("grown here" in body for body in sent)
    assert any("removed to save context" in b or "summarised to fit" in b for b in sent)
    assert any(CANCELLED_RESULT in body for body in sent)
    assert any("plan mode" in body.lower() and "write_file" in body for body in sent)

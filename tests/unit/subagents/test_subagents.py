"""Subagents through the session manager, with the scripted model telling a subagent's
requests apart by their system prompt: the parent gets only the final message (never the
subagent's calls); two read-only subagents of one answer are both in flight before either
ends (a rendezvous in the scripted model, not a clock); a subagent's write is the parent
step's change and its revert restores the file; `explore` has read-only tools only, so a
write_file it asks for is refused; a background command it starts is the parent step's;
a cancel mid-subagent leaves no process and answers every call; a subagent that cannot
finish says what it knows and why it stopped."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import psutil

from workspace_agent.agent.sessions import SessionManager
from workspace_agent.config import resolve_settings
from workspace_agent.protocol import RevertParams, RunRequest
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, text, tool

EXPLORE = '"explore" subagent'
GENERAL = '"general" subagent'


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    def on_event(self, session_id: str, kind: str, fields: dict[str, Any]) -> None:
        self.events.append((kind, fields))

    def on_todos(self, session_id: str, items: list[Any]) -> None: ...

    def on_context(self, session_id: str, meter: dict[str, Any]) -> None: ...

    def on_changes(self, session_id: str, changes: dict[str, Any]) -> None: ...

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [fields for k, fields in self.events if k == kind]


def manager(
    workspace: Path, model: ScriptedModelServer, listener: Recorder, **extra: Any
) -> SessionManager:
    settings = {
        "baseUrl": model.url,
        "approvals": {"bash": "allow"},
        "sandbox": {"mode": "off"},
        **extra,
    }
    return SessionManager(
        listener,
        root=lambda: workspace,
        settings=lambda root: resolve_settings(root, settings, {"ANTHROPIC_API_KEY": "k"}),
    )


def plan(*texts: str, doing: int = 0) -> dict[str, Any]:
    status = {doing: "in_progress"} | {n: "completed" for n in range(doing)}
    items = [
        {"id": str(n + 1), "text": t, "status": status.get(n, "pending")}
        for n, t in enumerate(texts)
    ]
    return tool("todo", {"items": items})


def conversation(match: str, system: str, *replies: dict[str, Any]) -> dict[str, Any]:
    return {"match": match, "match_system": system, "replies": list(replies)}


def system_of(body: dict[str, Any]) -> str:
    return "".join(block["text"] for block in body["system"])


def tool_names(body: dict[str, Any]) -> list[str]:
    return [t["name"] for t in body["tools"]]


def results(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        b["tool_use_id"]: b
        for b in body["messages"][-1]["content"]
        if b.get("type") == "tool_result"
    }


async def test_two_explorers_work_side_by_side_and_only_their_answers_come_back(
    workspace: Path, model: ScriptedModelServer
):
    (workspace / "a.py").write_text("A = 1\n")
    (workspace / "b.py").write_text("B = 2\n")
    meet = {"name": "explorers", "parties": 2}
    model.load(
        {
            "conversations": [
                conversation(
                    "where is A",
                    EXPLORE,
                    reply(tool("read_file", {"path": "a.py"}), rendezvous=meet),
                    reply(plan("Read a.py"), tool("read_file", {"path": "a.py", "limit": 1})),
                    reply(text("A is set in a.py, line 1.")),
                ),
                conversation(
                    "where is B",
                    EXPLORE,
                    reply(tool("read_file", {"path": "b.py"}), rendezvous=meet),
                    reply(text("B is set in b.py, line 1.")),
                ),
                {
                    "match": "find A and B",
                    "replies": [
                        reply(plan("Find them")),
                        reply(
                            tool(
                                "task",
                                {
                                    "description": "Find A",
                                    "prompt": "where is A",
                                    "agent": "explore",
                                },
                                "task_a",
                            ),
                            tool(
                                "task",
                                {
                                    "description": "Find B",
                                    "prompt": "where is B",
                                    "agent": "explore",
                                },
                                "task_b",
                            ),
                        ),
                        reply(text("Both found.")),
                    ],
                },
            ]
        }
    )
    listener = Recorder()

    result = await manager(workspace, model, listener).run(RunRequest("find A and B"))

    assert result.stop_reason == "end_turn" and result.text == "Both found."
    assert all(r.rejected is None for r in model.requests)
    mains = [r.body for r in model.requests if EXPLORE not in system_of(r.body)]
    helpers = [r.body for r in model.requests if EXPLORE in system_of(r.body)]
    assert len(mains) == 3 and len(helpers) == 5
    # explore gets the tools that change no file (its plan is its own), never task (depth 1)
    assert {tuple(tool_names(body)) for body in helpers} == {
        ("read_file", "todo", "search", "find_files", "web_fetch", "web_search")
    }
    assert tool_names(mains[0])[-1] == "task"
    # the parent's requests hold its own calls and the final messages, never theirs
    answered = results(mains[2])
    assert answered["task_a"]["content"].startswith(
        "A is set in a.py, line 1.\n\n[subagent explore: finished after 3 tool calls; changed no files; "
    )
    assert answered["task_b"]["content"].startswith(
        "B is set in b.py, line 1.\n\n[subagent explore: finished after 1 tool call; changed no files; "
    )
    sent = str([body["messages"] for body in mains])
    assert "read_file" not in sent and "A = 1" not in sent
    # what front ends see: the subagents' calls marked with their task call, under step 1
    inner = [f for f in listener.of("toolCall") if "parentToolUseId" in f]
    assert sorted(f["parentToolUseId"] for f in inner) == ["task_a"] * 3 + ["task_b"]
    assert {f["todoId"] for f in inner} == {"1"}
    ends = [f for f in listener.of("subagent") if "stopReason" in f]
    assert sorted((f["toolUseId"], f["stopReason"], f["toolCalls"]) for f in ends) == [
        ("task_a", "end_turn", 3),
        ("task_b", "end_turn", 1),
    ]
    assert all(f["usage"]["outputTokens"] > 0 and f["todoId"] == "1" for f in ends)
    (end,) = listener.of("runEnd")
    used = sum(f["usage"]["inputTokens"] + f["usage"]["outputTokens"] for f in ends)
    assert end["usage"]["inputTokens"] + end["usage"]["outputTokens"] > used  # theirs added


async def test_a_subagents_write_is_its_parent_steps_change_and_revert_takes_it_back(
    workspace: Path, model: ScriptedModelServer
):
    (workspace / "notes.txt").write_text("old\n")
    model.load(
        {
            "conversations": [
                conversation(
                    "update the notes",
                    GENERAL,
                    reply(plan("Rewrite notes.txt", "Check it")),
                    reply(tool("write_file", {"path": "notes.txt", "content": "new\n"})),
                    reply(plan("Rewrite notes.txt", "Check it", doing=1)),
                    reply(text("notes.txt now says new.")),
                ),
                {
                    "match": "refresh the notes",
                    "replies": [
                        reply(plan("Refresh the notes", "Report")),
                        reply(
                            tool(
                                "task",
                                {"description": "Update notes", "prompt": "update the notes"},
                                "task_w",
                            )
                        ),
                        reply(text("Refreshed.")),
                    ],
                },
            ]
        }
    )
    listener = Recorder()
    agent = manager(workspace, model, listener)

    result = await agent.run(RunRequest("refresh the notes"))

    assert result.stop_reason == "end_turn"
    assert (workspace / "notes.txt").read_text() == "new\n"
    general = [r.body for r in model.requests if GENERAL in system_of(r.body)]
    assert tool_names(general[0]) == [
        "bash",
        "read_file",
        "write_file",
        "edit_file",
        "todo",
        "search",
        "find_files",
        "web_fetch",
        "web_search",
    ]
    (answer,) = results(model.requests[-1].body).values()
    assert answer["content"].endswith(
        "[subagent general: finished after 3 tool calls; changed 1 file: notes.txt (modified); "
        + answer["content"].rsplit("; ", 1)[1]
    )
    # its own plan, live, under the parent's step
    plans = [f["items"] for f in listener.of("subagent") if f["items"] and "stopReason" not in f]
    assert [[i["status"] for i in items] for items in plans] == [
        ["in_progress", "pending"],
        ["completed", "in_progress"],
    ]
    assert {f["todoId"] for f in listener.of("subagent")} == {"1"}

    checkpoints = agent.checkpoints(result.session_id)
    changes = await checkpoints.changes()
    (step,) = [item for item in changes["items"] if item["files"]]
    assert step["todoId"] == "1" and step["text"] == "Refresh the notes"
    assert [(f["path"], f["change"]) for f in step["files"]] == [("notes.txt", "modified")]
    await checkpoints.revert(RevertParams(result.session_id, todo_id="1"))
    assert (workspace / "notes.txt").read_text() == "old\n"
    await agent.checkpoint_service.idle()


async def test_a_background_command_a_subagent_starts_is_its_parent_steps_and_outlives_it(
    workspace: Path, model: ScriptedModelServer
):
    started = tool("bash", {"command": "echo started", "run_in_background": True}, "bg_1")
    model.load(
        {
            "conversations": [
                conversation(
                    "start it",
                    GENERAL,
                    reply(plan("Start the command")),  # its own item #1, in progress
                    reply(started),
                    reply(text("It started.")),
                ),
                {
                    "match": "serve it",
                    "replies": [
                        reply(plan("Build", "Serve", doing=1)),
                        reply(tool("task", {"description": "Start", "prompt": "start it"})),
                        reply(text("Served.")),
                    ],
                },
            ]
        }
    )
    listener = Recorder()
    agent = manager(workspace, model, listener)

    result = await agent.run(RunRequest("serve it"))

    assert result.stop_reason == "end_turn"
    (command,) = agent.background.commands(result.session_id)  # the session's, after its end
    assert (command.tool_use_id, command.todo_id) == ("bg_1", "2")  # the parent's step, #2
    assert {(f["toolUseId"], f["todoId"]) for f in listener.of("background")} == {("bg_1", "2")}


async def test_explore_is_refused_write_file_even_when_its_model_asks(
    workspace: Path, model: ScriptedModelServer
):
    model.load(
        {
            "conversations": [
                conversation(
                    "look around",
                    EXPLORE,
                    reply(tool("write_file", {"path": "planted.txt", "content": "x"})),
                    reply(text("I could not write, as expected.")),
                ),
                {
                    "replies": [
                        reply(
                            tool(
                                "task",
                                {
                                    "description": "Look",
                                    "prompt": "look around",
                                    "agent": "explore",
                                },
                            )
                        ),
                        reply(text("ok")),
                    ]
                },
            ]
        }
    )
    result = await manager(workspace, model, Recorder()).run(RunRequest("go"))

    assert result.stop_reason == "end_turn"
    assert not (workspace / "planted.txt").exists()
    refused = next(
        results(r.body)
        for r in model.requests
        if EXPLORE in system_of(r.body) and len(r.body["messages"]) == 3
    )
    (block,) = refused.values()
    assert block.get("is_error") and block["content"] == (
        "unknown tool 'write_file'; the available tools are: read_file, todo, search, find_files, "
        "web_fetch, web_search"
    )


async def test_a_cancel_mid_subagent_leaves_no_process_and_answers_every_call(
    workspace: Path, model: ScriptedModelServer
):
    sleeper = "sleep 300 & echo $! > sleep.pid; wait"
    model.load(
        {
            "conversations": [
                conversation("wait a while", GENERAL, reply(tool("bash", {"command": sleeper}))),
                {
                    "replies": [
                        reply(
                            tool(
                                "task", {"description": "Wait", "prompt": "wait a while"}, "task_s"
                            )
                        )
                    ]
                },
            ]
        }
    )
    listener = Recorder()
    agent = manager(workspace, model, listener)
    running = asyncio.create_task(agent.run(RunRequest("go")))
    pid_file = workspace / "sleep.pid"
    for _ in range(500):
        if pid_file.exists() and pid_file.read_text().strip():
            break
        await asyncio.sleep(0.02)
    pid = int(pid_file.read_text())
    (session,) = agent.running()
    assert agent.cancel(session.id)

    result = await running

    assert result.stop_reason == "cancelled"
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    uses = [
        b["id"]
        for m in session.messages
        if m["role"] == "assistant"
        for b in m["content"]
        if b["type"] == "tool_use"
    ]
    answered = [
        b["tool_use_id"]
        for m in session.messages
        if m["role"] == "user"
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]
    assert uses == answered == ["task_s"]
    ends = [f for f in listener.of("subagent") if "stopReason" in f]
    assert [f["stopReason"] for f in ends] == ["cancelled"]
    inner_results = [f for f in listener.of("toolResult") if f.get("parentToolUseId") == "task_s"]
    assert [f["ok"] for f in inner_results] == [False]  # its bash call was answered too
    await agent.checkpoint_service.idle()


async def test_a_subagent_that_cannot_finish_says_what_it_knows_and_why(
    workspace: Path, model: ScriptedModelServer
):
    agents = workspace / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "brief.md").write_text(
        "---\nname: brief\ndescription: Reads one file.\ntools: Read, NotebookEdit\nmaxTurns: 1\n---\n"
        "You read one file and say what is in it.\n"
    )
    (agents / "broken.md").write_text("---\nname: Broken Agent\ndescription: d\n---\nbody\n")
    (workspace / "a.py").write_text("A = 1\n")
    model.load(
        {
            "conversations": [
                conversation(
                    "read a.py",
                    '"brief" subagent',
                    reply(text("Reading a.py."), tool("read_file", {"path": "a.py"})),
                ),
                conversation(
                    "fail please",
                    GENERAL,
                    reply(error={"status": 400, "message": "bad request from the test"}),
                ),
                {
                    "replies": [
                        reply(
                            tool(
                                "task",
                                {"description": "Read", "prompt": "read a.py", "agent": "brief"},
                                "task_1",
                            ),
                            tool(
                                "task", {"description": "Fail", "prompt": "fail please"}, "task_2"
                            ),
                        ),
                        reply(text("Noted.")),
                    ]
                },
            ]
        }
    )
    listener = Recorder()

    result = await manager(workspace, model, listener).run(RunRequest("go"))

    assert result.stop_reason == "end_turn"
    brief = next(r.body for r in model.requests if '"brief" subagent' in system_of(r.body))
    assert tool_names(brief) == ["read_file"]  # Read mapped; NotebookEdit has no tool here
    assert "You read one file and say what is in it." in system_of(brief)
    short, failed = results(model.requests[-1].body).values()
    assert short.get("is_error") and short["content"].startswith(
        "Reading a.py.\n\n[subagent brief: stopped after 1 tool call: it reached its limit of 1 "
        "turns before it finished; what it found so far is above; changed no files; "
    )
    assert (
        failed.get("is_error")
        and "[subagent general: stopped by an error after 0 tool calls: " in failed["content"]
    )
    assert "bad request from the test" in failed["content"]
    notices = [f["message"] for f in listener.of("notice")]
    assert any("broken.md:2: `name` 'Broken Agent' must be" in n for n in notices)
    assert (
        "Subagent brief (Read): its definition names tools this session does not have: NotebookEdit; it works without them"
        in notices
    )

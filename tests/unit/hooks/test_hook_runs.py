"""Hooks in a run, in this process: the user's Claude Code settings file with real shell
scripts, each event as Claude Code's scripts expect it, through the session manager and
the scripted Messages API (what the model was sent, the files on disk, the checkpoint's
step, the plan, the rows the user sees)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from workspace_agent.agent.sessions import SessionManager
from workspace_agent.config import resolve_settings
from workspace_agent.protocol import FileVersionParams, RevertParams, RunRequest
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

GUARD = """#!/bin/sh
if grep -q 'rm -rf' ; then echo "no rm -rf in this project (hook policy)" >&2; exit 2; fi
"""
FORMAT = """#!/bin/sh
path=$(sed -n 's/.*"file_path": *"\\([^"]*\\)".*/\\1/p')
sed -i -E 's/ *= */ = /g' "$path"
"""
CONTEXT = """#!/bin/sh
echo '{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "on branch release-7"}}'
"""
ONCE = """#!/bin/sh
# exit 2 the first time ($1 names the state file), 0 after
if [ ! -e "$1" ]; then touch "$1"; echo "$2" >&2; exit 2; fi
"""


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.plans: list[list[Any]] = []

    def on_event(self, session_id: str, kind: str, fields: dict[str, Any]) -> None:
        self.events.append((kind, fields))

    def on_todos(self, session_id: str, items: list[Any]) -> None:
        self.plans.append(items)

    def on_context(self, session_id: str, meter: dict[str, Any]) -> None: ...

    def on_changes(self, session_id: str, changes: dict[str, Any]) -> None: ...

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [fields for k, fields in self.events if k == kind]


def user_hooks(home: Path, scripts: Path, hooks: dict[str, Any]) -> None:
    """`~/.claude/settings.json` (CLAUDE_CONFIG_DIR) with `hooks`, scripts made runnable."""
    for script in scripts.iterdir():
        script.chmod(0o755)
    home.mkdir(parents=True, exist_ok=True)
    (home / "settings.json").write_text(json.dumps({"model": "opus", "hooks": hooks}, indent=2))


def command(script: Path, *args: str) -> dict[str, Any]:
    return {"type": "command", "command": " ".join([str(script), *args])}


def manager(workspace: Path, model: ScriptedModelServer, listener: Recorder) -> SessionManager:
    settings = {"baseUrl": model.url, "approvals": {"bash": "allow"}}
    return SessionManager(
        listener,
        root=lambda: workspace,
        settings=lambda root: resolve_settings(root, settings, {"ANTHROPIC_API_KEY": "k"}),
    )


@pytest.fixture
def scripts(tmp_path: Path) -> Path:
    folder = tmp_path / "scripts"
    folder.mkdir()
    for name, body in {"guard.sh": GUARD, "fmt.sh": FORMAT, "context.sh": CONTEXT}.items():
        (folder / name).write_text(body)
    (folder / "once.sh").write_text(ONCE)
    return folder


async def test_a_run_with_the_users_claude_code_hooks(
    workspace: Path,
    model: ScriptedModelServer,
    scripts: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
):
    home = tmp_path / "claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home))
    state = tmp_path / "state"
    state.mkdir()
    user_hooks(
        home,
        scripts,
        {
            "UserPromptSubmit": [{"hooks": [command(scripts / "context.sh")]}],
            "PreToolUse": [{"matcher": "Bash", "hooks": [command(scripts / "guard.sh")]}],
            "PostToolUse": [{"matcher": "Edit|Write", "hooks": [command(scripts / "fmt.sh")]}],
            "TaskCompleted": [
                {"hooks": [command(scripts / "once.sh", str(state / "t"), "'test_a fails'")]}
            ],
            "Stop": [
                {"hooks": [command(scripts / "once.sh", str(state / "s"), "'run the tests'")]}
            ],
        },
    )
    (workspace / "a.py").write_text("x=0\n")
    (workspace / "build").mkdir()
    item = {"id": "1", "text": "set x", "status": "in_progress"}
    model.load(
        script_of(
            reply(tool("todo", {"items": [item]})),
            reply(tool("bash", {"command": "rm -rf build"})),
            reply(tool("write_file", {"path": "a.py", "content": "x=1\n"})),
            reply(tool("todo", {"items": [{**item, "status": "completed"}]})),
            reply(tool("todo", {"items": [{**item, "status": "completed"}]})),
            reply(text("done")),
            reply(text("really done")),
        )
    )
    listener = Recorder()
    agent = manager(workspace, model, listener)
    result = await agent.run(RunRequest("set x to 1"))

    assert result.stop_reason == "end_turn" and result.text == "really done"
    first = model.requests[0].body["messages"][0]["content"]
    assert any("on branch release-7" in block.get("text", "") for block in first)
    # PreToolUse: the command never ran, the model got the hook's stderr
    refused = model.requests[2].body["messages"][-1]["content"][0]
    assert refused["is_error"] and "no rm -rf in this project" in refused["content"]
    assert "guard.sh" in refused["content"] and (workspace / "build").is_dir()
    # PostToolUse: formatted on disk, and the step's after side is the formatted text
    assert (workspace / "a.py").read_text() == "x = 1\n"
    after = await agent.checkpoints(result.session_id).file_version(
        FileVersionParams(result.session_id, "1", "a.py", "after")
    )
    assert after == "x = 1\n"
    # TaskCompleted: refused once (the item stayed in progress, the model was told), then done
    told = model.requests[4].body["messages"][-1]["content"][0]["content"]
    assert "Plan item #1 is not done" in told and "test_a fails" in told
    checked = [plan[0] for plan in listener.plans if plan and plan[0].check is not None]
    reopened = checked[0]
    assert reopened.status == "in_progress" and not reopened.check.passed
    assert reopened.check.first_line == "test_a fails" and reopened.check.hook == "once.sh"
    final = result.todos[0]
    assert final.status == "completed" and final.check.passed
    # Stop: one more turn with the hook's reason, then the end
    again = model.requests[6].body["messages"][-1]
    assert again["role"] == "user" and "run the tests" in again["content"][0]["text"]
    rows = [(f["event"], f["hook"], f["outcome"]) for f in listener.of("hook")]
    assert rows == [
        ("UserPromptSubmit", "context.sh", "ok"),
        ("PreToolUse", "guard.sh", "blocked"),
        ("PostToolUse", "fmt.sh", "ok"),
        ("TaskCompleted", "once.sh", "blocked"),
        ("TaskCompleted", "once.sh", "ok"),
        ("Stop", "once.sh", "blocked"),
        ("Stop", "once.sh", "ok"),
    ]
    post = listener.of("hook")[2]
    assert post["toolUseId"] and post["source"] == "user"
    assert post["origin"].endswith("settings.json:" + str(post["origin"]).rsplit(":", 1)[1])
    # revert the item: the formatter's change goes back with the call's
    await agent.checkpoints(result.session_id).revert(
        RevertParams(result.session_id, "1", force=True)
    )
    assert (workspace / "a.py").read_text() == "x=0\n"


async def test_hooks_that_misbehave_are_told_and_the_run_goes_on(
    workspace: Path, model: ScriptedModelServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    home = tmp_path / "claude"
    home.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home))
    hooks = {
        "PreToolUse": [
            {
                "matcher": "Read",
                "hooks": [{"type": "command", "command": "sleep 30", "timeout": 0.5}],
            },
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "exit 2"}]},
        ],
        "PostToolUse": [
            {
                "matcher": "Write",
                "hooks": [{"type": "command", "command": "yes x | head -c 10000000"}],
            }
        ],
        "AfterEdit": [{"hooks": [{"type": "command", "command": "true"}]}],
    }
    written = json.dumps({"hooks": hooks}, indent=2)
    (home / "settings.json").write_text(written)
    line = written.splitlines().index('    "AfterEdit": [') + 1
    (workspace / ".claude").mkdir()
    (workspace / ".claude" / "settings.local.json").write_text('{\n  "hooks": {,}\n}')
    (workspace / "a.py").write_text("x = 1\n")
    model.load(
        script_of(
            reply(tool("read_file", {"path": "a.py"})),
            reply(tool("bash", {"command": "ls"})),
            reply(tool("write_file", {"path": "b.txt", "content": "b\n"})),
            reply(text("done")),
        )
    )
    listener = Recorder()
    result = await manager(workspace, model, listener).run(RunRequest("look around"))

    assert result.stop_reason == "end_turn"
    notices = [f["message"] for f in listener.of("notice")]
    unknown = f"settings.json:{line}: 'AfterEdit' is not an event hooks run at"
    assert any(unknown in n for n in notices), notices
    assert any(".claude/settings.local.json:2:13: not valid JSON" in n for n in notices), notices
    read, bash, _write = (r.body["messages"][-1]["content"][0] for r in model.requests[1:])
    assert not read.get("is_error") and "x = 1" in read["content"]  # the hook timed out: it ran
    assert bash["is_error"] and "exited with status 2 (block) without saying why" in bash["content"]
    assert (workspace / "b.txt").read_text() == "b\n"
    rows = {f["event"] + ":" + f["hook"]: f for f in listener.of("hook")}
    assert rows["PreToolUse:sleep"]["outcome"] == "timedOut"
    assert "timed out after 0.5 s" in rows["PreToolUse:sleep"]["message"]
    assert rows["PreToolUse:exit"]["outcome"] == "blocked"
    loud = rows["PostToolUse:head"]
    assert loud["outcome"] == "ok" and loud["output"].startswith("x\nx\n")
    assert loud["output"].endswith("[… cut: the first 10,000 characters are kept]")
    assert len(loud["output"]) < 10_100


async def test_a_stop_hook_that_always_blocks_ends_after_the_cap(
    workspace: Path, model: ScriptedModelServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    home = tmp_path / "claude"
    home.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home))
    check = {"type": "command", "command": "cat > /dev/null; echo 'the tests fail' >&2; exit 2"}
    stop = [{"matcher": "Bash", "hooks": [check]}]  # a matcher means nothing to Stop
    (home / "settings.json").write_text(json.dumps({"hooks": {"Stop": stop}}))
    model.load(script_of(*(reply(text(f"done {n}")) for n in range(5))))
    listener = Recorder()
    result = await manager(workspace, model, listener).run(RunRequest("finish"))

    assert result.stop_reason == "end_turn" and result.text == "done 3"
    assert len(model.requests) == 4  # the answer, then 3 more turns: the cap
    told = [
        m["content"][0]["text"]
        for m in model.requests[3].body["messages"][1:]
        if m["role"] == "user"
    ]
    assert len(told) == 3 and all("the tests fail" in t for t in told)
    last = listener.of("notice")[-1]["message"]
    assert last.startswith("The run ends here: Stop hooks kept it going 3 times")
    assert "the tests fail" in last


class Asker:
    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.asked: list[tuple[str, str, str | None]] = []

    async def ask(self, kind: str, action: str, reason: str | None = None) -> Any:
        self.asked.append((kind, action, reason))
        return self.answer


def asking_manager(
    workspace: Path, model: ScriptedModelServer, listener: Recorder, asker: Asker, **settings: Any
) -> SessionManager:
    values = {"baseUrl": model.url, **settings}
    return SessionManager(
        listener,
        root=lambda: workspace,
        settings=lambda root: resolve_settings(root, values, {"ANTHROPIC_API_KEY": "k"}),
        asker=asker,
    )


@pytest.mark.parametrize("answer", ["deny", "allow"])
async def test_a_workspace_hook_waits_for_trust_and_never_runs_on_the_host(
    workspace: Path,
    model: ScriptedModelServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    answer: str,
):
    monkeypatch.setenv("WORKSPACE_AGENT_CONFIG_DIR", str(tmp_path / "config"))
    mark = tmp_path / "ran"
    hook = {"type": "command", "command": f"touch {mark}"}
    (workspace / ".claude").mkdir()
    (workspace / ".claude" / "settings.json").write_text(
        json.dumps({"hooks": {"UserPromptSubmit": [{"hooks": [hook]}]}})
    )
    model.load(script_of(reply(text("hi")), reply(text("hi again"))))
    listener, asker = Recorder(), Asker(answer)
    agent = asking_manager(workspace, model, listener, asker, **{"sandbox.mode": "off"})
    result = await agent.run(RunRequest("hello"))

    assert result.stop_reason == "end_turn" and not mark.exists()
    ((kind, action, reason),) = asker.asked
    assert kind == "hook" and f"touch {mark}" in action and ".claude/settings.json:1" in action
    assert reason is not None and "a repository's settings run this command" in reason
    row = listener.of("hook")[0]
    trust_file = tmp_path / "config" / "hooks-trust.json"
    if answer == "deny":
        assert row["outcome"] == "skipped" and "not trusted" in row["message"]
        assert f"workspace-agent hooks trust --workspace {workspace}" in row["message"]
        assert not trust_file.exists()
    else:  # trusted, but a workspace's hook runs only in the sandbox
        assert row["outcome"] == "failed" and "sandbox.mode is off" in row["message"]
        assert trust_file.exists()
    again = await agent.run(RunRequest("again", result.session_id))
    assert again.stop_reason == "end_turn"
    assert len(asker.asked) == 1  # asked once per hook and process


async def test_a_users_hook_that_runs_a_workspace_script_is_asked_about_when_it_changes(
    workspace: Path, model: ScriptedModelServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("WORKSPACE_AGENT_CONFIG_DIR", str(tmp_path / "config"))
    home = tmp_path / "claude"
    home.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home))
    hook = {"type": "command", "command": "sh scripts/note.sh"}
    (home / "settings.json").write_text(
        json.dumps({"hooks": {"UserPromptSubmit": [{"hooks": [hook]}]}})
    )
    (workspace / "scripts").mkdir()
    (workspace / "scripts" / "note.sh").write_text("echo first >> ran.txt\n")
    model.load(script_of(*(reply(text(f"ok {n}")) for n in range(3))))
    listener, asker = Recorder(), Asker("allow")
    agent = asking_manager(workspace, model, listener, asker)
    first = await agent.run(RunRequest("one"))
    await agent.run(RunRequest("two", first.session_id))
    assert len(asker.asked) == 1 and "script scripts/note.sh" in asker.asked[0][1]
    assert "on your machine" in str(asker.asked[0][2])
    # a command changes the script (as a sandboxed one may): asked again before it runs
    (workspace / "scripts" / "note.sh").write_text("echo changed >> ran.txt\n")
    await agent.run(RunRequest("three", first.session_id))
    assert len(asker.asked) == 2
    assert (workspace / "ran.txt").read_text() == "first\nfirst\nchanged\n"


async def test_a_hooks_word_on_a_calls_question(
    workspace: Path, model: ScriptedModelServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    home = tmp_path / "claude"
    home.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home))
    say = (
        "read -r input; case \"$input\" in *'echo one'*) d=allow;; *) d=ask;; esac; "
        'echo "{\\"hookSpecificOutput\\": {\\"permissionDecision\\": \\"$d\\", '
        '\\"updatedInput\\": {\\"command\\": \\"echo $d\\"}}}"'
    )
    hooks = {"PreToolUse": [{"matcher": "bash", "hooks": [{"type": "command", "command": say}]}]}
    (home / "settings.json").write_text(json.dumps({"hooks": hooks}))
    model.load(
        script_of(
            reply(tool("bash", {"command": "echo one"})),
            reply(tool("bash", {"command": "echo two"})),
            reply(text("done")),
        )
    )
    listener, asker = Recorder(), Asker("allow")
    approvals = {"bash": "ask"}
    agent = asking_manager(workspace, model, listener, asker, approvals=approvals)
    await agent.run(RunRequest("echo twice"))

    # `allow` answered the first call's question; `ask` asked the second; both ran the
    # input the hook gave them
    assert [action for _, action, _ in asker.asked] == ["run `echo ask`"]
    outputs = [r.body["messages"][-1]["content"][0]["content"] for r in model.requests[1:]]
    assert outputs[0].startswith("allow") and outputs[1].startswith("ask")


async def test_a_cancelled_run_kills_its_hooks(
    workspace: Path, model: ScriptedModelServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    home = tmp_path / "claude"
    home.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home))
    pid_file = tmp_path / "pid"
    slow = {"type": "command", "command": f"sleep 30 & echo $! > {pid_file}; wait"}
    (home / "settings.json").write_text(json.dumps({"hooks": {"PreToolUse": [{"hooks": [slow]}]}}))
    model.load(script_of(reply(tool("read_file", {"path": "a.py"})), reply(text("done"))))
    (workspace / "a.py").write_text("x = 1\n")
    listener = Recorder()
    agent = manager(workspace, model, listener)
    running = asyncio.create_task(agent.run(RunRequest("read it")))
    for _ in range(500):
        if pid_file.exists() and pid_file.read_text().strip():
            break
        await asyncio.sleep(0.02)
    pid = int(pid_file.read_text())
    (session,) = agent.running()
    assert agent.cancel(session.id)
    result = await running

    assert result.stop_reason == "cancelled"
    assert listener.of("hook")[-1]["outcome"] == "cancelled"
    for _ in range(100):  # the hook's child went with its process group
        if not alive(pid):
            break
        await asyncio.sleep(0.02)
    assert not alive(pid)


def alive(pid: int) -> bool:
    """Running (a zombie nobody reaped yet counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def _long_conversation() -> list[dict[str, Any]]:
    """Twelve reads of 20,000 characters each: enough for /compact to shorten."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "text", "text": "go"}]}]
    for n in range(12):
        use = {"type": "tool_use", "id": f"t{n}", "name": "read_file", "input": {"path": "a"}}
        messages.append({"role": "assistant", "content": [{"type": "text", "text": f"{n}"}, use]})
        result = {"type": "tool_result", "tool_use_id": f"t{n}", "content": "x" * 20_000}
        messages.append({"role": "user", "content": [result]})
    messages.append({"role": "assistant", "content": [{"type": "text", "text": "done"}]})
    return messages


async def test_session_start_says_how_the_session_started(
    workspace: Path, model: ScriptedModelServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    home = tmp_path / "claude"
    home.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home))
    said = 'sed -n \'s/.*"source": *"\\([a-z]*\\)".*/started by \\1/p\''
    hooks = {"SessionStart": [{"hooks": [{"type": "command", "command": said}]}]}
    (home / "settings.json").write_text(json.dumps({"hooks": hooks}))
    model.load(script_of(*(reply(text(f"answer {n}")) for n in range(4))))
    listener = Recorder()
    agent = manager(workspace, model, listener)

    first = await agent.run(RunRequest("hello"))
    await agent.run(RunRequest("more", first.session_id))  # the same start: no SessionStart
    session = agent.get(first.session_id)
    session.messages = _long_conversation()
    compacted = await agent.run(RunRequest("/compact", first.session_id))
    await agent.run(RunRequest("after the compaction", first.session_id))
    cleared = await agent.run(RunRequest("/clear", first.session_id))
    await agent.run(RunRequest("in the new session", cleared.session_id))

    assert compacted.text.startswith("Compacted the conversation as asked")
    told = [
        [block["text"] for block in request.body["messages"][-1]["content"]]
        for request in model.requests
    ]
    started = [[t for t in texts if "started by" in t] for texts in told]
    assert [len(found) for found in started] == [1, 0, 1, 1]  # each once, with the prompt
    sources = [found[0].rsplit("started by ", 1)[1].split()[0] for found in started if found]
    assert sources == ["startup", "compact", "clear"]
    rows = [(f["event"], f["outcome"]) for f in listener.of("hook")]
    assert rows == [("SessionStart", "ok")] * 3


async def test_pre_compact_hooks_run_before_each_compaction_with_its_trigger(
    workspace: Path, model: ScriptedModelServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """`auto` when a run's last request came near the context window, `manual` at
    /compact: the same hook hears both, as in Claude Code; its row is in the answer."""
    home = tmp_path / "claude"
    home.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home))
    heard = tmp_path / "triggers.txt"
    said = f'sed -n \'s/.*"trigger": *"\\([a-z]*\\)".*/\\1/p\' >> {heard}; echo >> {heard}'
    hooks = {"PreCompact": [{"hooks": [{"type": "command", "command": said}]}]}
    (home / "settings.json").write_text(json.dumps({"hooks": hooks}))
    model.load(script_of(*(reply(text(f"answer {n}")) for n in range(3))))
    listener = Recorder()
    settings = {"baseUrl": model.url, "contextWindow": 1_000}  # every request fills it
    agent = SessionManager(
        listener,
        root=lambda: workspace,
        settings=lambda root: resolve_settings(root, settings, {"ANTHROPIC_API_KEY": "k"}),
    )

    first = await agent.run(RunRequest("hello"))
    assert not heard.exists()  # nothing came near the window before the first request
    await agent.run(RunRequest("more", first.session_id))
    assert heard.read_text().split() == ["auto"]
    agent.get(first.session_id).messages = _long_conversation()
    compacted = await agent.run(RunRequest("/compact", first.session_id))

    assert compacted.text.startswith("Compacted the conversation as asked")
    assert heard.read_text().split() == ["auto", "manual"]
    rows = [(f["event"], f["outcome"]) for f in listener.of("hook")]
    assert rows == [("PreCompact", "ok")] * 2
    kinds = [kind for kind, _ in listener.events]
    last_start = len(kinds) - 1 - kinds[::-1].index("runStart")
    assert kinds[last_start:].index("hook") < kinds[last_start:].index("notice")

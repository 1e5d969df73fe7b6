"""Checkpoints end to end through the real server: what each plan item changed (shell
commands included), file versions for diffs, revert and undo (told live and kept in the
history), the user's own files left alone, and the issue's tree of odd names, type changes
and a file the revert cannot write."""

from __future__ import annotations

import asyncio
import base64
import os
import re
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from workspace_agent import protocol as p
from workspace_agent.checkpoints.publisher import CHANGES_INTERVAL
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.client import RecordingClient
from tests.support.lsp import (
    assert_valid_history,
    changes,
    command,
    events_of,
    push_settings,
    request,
    run,
    wait_for,
)
from tests.support.unwritable import LATIN1, LATIN1_SHOWN, unwritable

HELLO = "def greet():\n    return 'hi'\n"


def plan(active: int | None, done: int = 0) -> dict[str, Any]:
    texts = ["Create the module", "Generate and tidy", "Polish"]
    items = []
    for n, item_text in enumerate(texts, start=1):
        status = "completed" if n <= done else "in_progress" if n == active else "pending"
        items.append({"id": str(n), "text": item_text, "status": status})
    return {"items": items}


SED_AND_FRIENDS = (
    "sed -i \"s/'hi'/'hello'/\" pkg/hello.py && printf 'gen\\n' > gen.txt && rm old.txt"
    " && echo noise > build.log && mkdir -p node_modules/x && echo m > node_modules/x/i.js"
    " && printf 'a\\0b' > blob.bin; exit 3"
)

THREE_ITEMS = script_of(
    reply(tool("bash", {"command": "echo pre > pre.txt"})),
    reply(tool("todo", plan(1)), tool("write_file", {"path": "pkg/hello.py", "content": HELLO})),
    reply(tool("todo", plan(2, done=1)), tool("bash", {"command": SED_AND_FRIENDS})),
    reply(
        tool("todo", plan(3, done=2)),
        tool("edit_file", {"path": "gen.txt", "old_text": "gen", "new_text": "generated"}),
    ),
    reply(tool("todo", plan(None, done=3))),
    reply(text("Done.")),
)


def paced(script: dict[str, Any]) -> dict[str, Any]:
    """`script` with every reply taking longer than the changes notifications' window, as
    a real model does: then every workspace-changing call is notified on its own."""
    replies = script["conversations"][0]["replies"]
    paced_replies = [{**r, "delay": CHANGES_INTERVAL * 1.5} for r in replies]
    return {**script, "conversations": [{"replies": paced_replies}]}


def prepare(workspace: Path) -> None:
    (workspace / "old.txt").write_text("old\n")
    (workspace / ".gitignore").write_text("*.log\n")


def by_path(files: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {f["path"]: f for f in files}


async def version(
    client: RecordingClient, session_id: str, todo_id: str | None, path: str, side: str
):
    params = {"sessionId": session_id, "todoId": todo_id, "path": path, "side": side}
    return (await request(client, p.FILE_VERSION_REQUEST, params))["text"]


async def test_changes_are_attributed_to_the_plan_item_shell_commands_included(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    prepare(workspace)
    model.load(paced(THREE_ITEMS))
    result = await run(client, "Make the module")
    session_id = result["sessionId"]
    assert result["stopReason"] == "end_turn"
    notified = list(client.changes)  # what the client had when the run's answer came

    got = await changes(client, session_id)
    assert [item["todoId"] for item in got["items"]] == [None, "1", "2", "3"]
    before_plan, item1, item2, item3 = got["items"]
    # a command names its tool call (workspaceAgent/toolOutput opens its output)
    bash_ids = [e["toolUseId"] for e in events_of(client, "toolCall") if e["name"] == "bash"]
    assert before_plan == {
        "todoId": None,
        "key": before_plan["key"],
        "text": None,
        "displayName": "the changes made before the plan",
        "run": 1,
        "revertible": True,
        "planRow": None,
        "shown": True,
        "files": [
            {
                "path": "pre.txt",
                "change": "added",
                "additions": 1,
                "deletions": 0,
                "reverted": False,
            }
        ],
        "reverted": False,
        "commands": [{"command": "echo pre > pre.txt", "exitCode": 0, "toolUseId": bash_ids[0]}],
    }
    assert [item["text"] for item in got["items"]] == [
        None,
        "Create the module",
        "Generate and tidy",
        "Polish",
    ]
    assert len({item["key"] for item in got["items"]}) == 4
    (the_run,) = got["runs"]
    assert the_run["run"] == 1 and the_run["prompt"] == "Make the module"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", the_run["startedAt"])
    assert got["lastRun"] == 1
    assert item1["files"] == [
        {
            "path": "pkg/hello.py",
            "change": "added",
            "additions": 2,
            "deletions": 0,
            "reverted": False,
        }
    ]
    assert item1["commands"] == []
    # The command's sed -i, generated file, deletion and binary file all count; the
    # git-ignored log and node_modules do not.
    assert by_path(item2["files"]) == {
        "pkg/hello.py": {
            "path": "pkg/hello.py",
            "change": "modified",
            "additions": 1,
            "deletions": 1,
            "reverted": False,
        },
        "gen.txt": {
            "path": "gen.txt",
            "change": "added",
            "additions": 1,
            "deletions": 0,
            "reverted": False,
        },
        "old.txt": {
            "path": "old.txt",
            "change": "deleted",
            "additions": 0,
            "deletions": 1,
            "reverted": False,
        },
        "blob.bin": {
            "path": "blob.bin",
            "change": "added",
            "additions": 0,
            "deletions": 0,
            "binary": True,
            "reverted": False,
        },
    }
    assert item2["commands"] == [
        {"command": SED_AND_FRIENDS, "exitCode": 3, "toolUseId": bash_ids[1]}
    ]
    assert item3["files"] == [
        {"path": "gen.txt", "change": "modified", "additions": 1, "deletions": 1, "reverted": False}
    ]
    assert got["reverts"] == []
    # With model calls slower than the notifications' window (as real ones are), one
    # notification after each of the four workspace-changing calls; the last one is what
    # the request answers.
    assert len(notified) == 4
    assert notified[-1] == got
    assert notified[0]["items"] == [before_plan]
    assert not (workspace / ".git").exists()  # a workspace without git

    assert await version(client, session_id, "2", "pkg/hello.py", "before") == HELLO
    assert await version(client, session_id, "2", "pkg/hello.py", "after") == HELLO.replace(
        "hi", "hello"
    )
    assert await version(client, session_id, "1", "pkg/hello.py", "before") is None
    assert await version(client, session_id, "2", "old.txt", "after") is None
    assert await version(client, session_id, "2", "old.txt", "before") == "old\n"
    with pytest.raises(
        JsonRpcException,
        match=re.escape("blob.bin is a binary file: there is no text to show for it"),
    ):
        await version(client, session_id, "2", "blob.bin", "after")
    with pytest.raises(
        JsonRpcException, match=re.escape("pre.txt was not changed under plan item #2")
    ):
        await version(client, session_id, "2", "pre.txt", "after")
    with pytest.raises(JsonRpcException, match=re.escape("'side' must be one of before | after")):
        await version(client, session_id, "2", "pre.txt", "sideways")


async def test_large_files_are_named_as_skipped_and_old_sessions_pruned(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    await push_settings(client, model, {"maxFileBytes": 5000, "checkpoints": {"maxBytes": 1}})
    model.load(
        {
            "conversations": [
                {
                    "match": "first",
                    "replies": [
                        reply(tool("bash", {"command": "echo one > one.txt"})),
                        reply(text("ok")),
                    ],
                },
                {
                    "match": "second",
                    "replies": [
                        reply(tool("todo", plan(1))),
                        reply(
                            tool(
                                "bash",
                                {"command": "head -c 6000 /dev/zero > big.bin; echo s > small.txt"},
                            )
                        ),
                        reply(text("ok")),
                    ],
                },
            ]
        }
    )
    first = (await run(client, "first"))["sessionId"]
    second = (await run(client, "second"))["sessionId"]

    (item,) = (await changes(client, second))["items"]
    assert item["files"] == [
        {"path": "small.txt", "change": "added", "additions": 1, "deletions": 0, "reverted": False}
    ]
    assert item["skipped"] == [
        {
            "path": "big.bin",
            "reason": "larger than maxFileBytes (6,000 bytes > 5,000); not checkpointed",
        }
    ]

    def pruned() -> list[str]:  # the store is packed and pruned after the run's answer
        notices = [e["message"] for e in events_of(client, "notice") if e["sessionId"] == second]
        return [n for n in notices if "Checkpoints of 1 older session(s) were removed" in n]

    await wait_for(lambda: pruned(), what="the pruning notice")
    assert "(setting workspaceAgent.checkpoints.maxBytes)" in pruned()[0]
    assert (await changes(client, first))["items"] == []


async def test_checkpoints_can_be_turned_off(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={"workspaceAgent": {"baseUrl": model.url, "checkpoints": {"enabled": False}}}
        )
    )
    model.load(
        script_of(reply(tool("write_file", {"path": "a.txt", "content": "a\n"})), reply(text("ok")))
    )
    session_id = (await run(client, "write"))["sessionId"]
    assert (workspace / "a.txt").exists()
    assert await changes(client, session_id) == {
        "sessionId": session_id,
        "items": [],
        "runs": [],
        "lastRun": None,
        "reverts": [],
    }
    assert client.changes == []
    assert not (workspace / ".workspace-agent" / "checkpoints").exists()
    with pytest.raises(JsonRpcException, match="has no checkpoints"):
        await command(client, p.REVERT_COMMAND, {"sessionId": session_id, "todoId": None})


async def test_revert_is_refused_while_a_run_of_the_session_is_going(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    model.load(
        script_of(
            reply(tool("todo", plan(1))),
            reply(tool("write_file", {"path": "a.txt", "content": "agent\n"})),
            reply(tool("bash", {"command": "sleep 30"})),
            reply(text("ok")),
        )
    )
    started = asyncio.ensure_future(run(client, "Slow work"))
    await _wait(lambda: any(e["kind"] == "toolCall" and e["name"] == "bash" for e in client.events))
    session_id = client.events[0]["sessionId"]

    with pytest.raises(JsonRpcException) as refused:
        await command(client, p.REVERT_COMMAND, {"sessionId": session_id, "todoId": "1"})
    assert refused.value.code == -32803
    assert "has a run going on" in str(refused.value) and "nothing was changed" in str(
        refused.value
    )
    assert (workspace / "a.txt").read_text() == "agent\n"

    await command(client, p.CANCEL_COMMAND, {"sessionId": session_id})
    assert (await started)["stopReason"] == "cancelled"
    (item,) = (await changes(client, session_id))["items"]
    assert item["commands"] == [  # cancelled
        {"command": "sleep 30", "exitCode": None, "toolUseId": "toolu_scripted_0003"}
    ]
    reverted = await command(client, p.REVERT_COMMAND, {"sessionId": session_id, "todoId": "1"})
    assert reverted["deleted"] == ["a.txt"]


async def test_bad_revert_arguments_get_clear_errors(
    client: RecordingClient, model: ScriptedModelServer
):
    with pytest.raises(JsonRpcException, match="needs either 'key' or 'todoId'"):
        await command(client, p.REVERT_COMMAND, {"sessionId": "abc"})
    with pytest.raises(JsonRpcException, match="there is no session 'nope'"):
        await command(client, p.REVERT_COMMAND, {"sessionId": "nope", "todoId": "1"})
    with pytest.raises(JsonRpcException, match="needs 'undoId'"):
        await command(client, p.UNDO_REVERT_COMMAND, {"sessionId": "abc"})
    with pytest.raises(JsonRpcException, match="with 'only' needs a plan item"):
        await command(client, p.REVERT_COMMAND, {"sessionId": "abc", "lastRun": True, "only": True})
    with pytest.raises(JsonRpcException, match="'only' must be true or false"):
        await command(client, p.REVERT_COMMAND, {"sessionId": "abc", "todoId": "2", "only": 1})
    model.load(script_of(reply(text("hi"))))
    session_id = (await run(client, "hello"))["sessionId"]
    with pytest.raises(JsonRpcException, match="nothing to revert: plan item #7 made no"):
        await command(client, p.REVERT_COMMAND, {"sessionId": session_id, "todoId": "7"})


async def test_open_documents_are_recorded_and_restored_through_the_editor(
    editor: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    source = workspace / "app.py"
    source.write_text("value = 1\n")
    uri = editor.double.open(source, "value = 1\n")
    model.load(
        script_of(
            reply(tool("todo", plan(1))),
            reply(tool("edit_file", {"path": "app.py", "old_text": "1", "new_text": "2"})),
            reply(text("ok")),
        )
    )
    session_id = (await run(editor, "Edit"))["sessionId"]
    assert editor.double.texts[uri] == "value = 2\n"
    assert source.read_text() == "value = 1\n"  # the edit is in the buffer, unsaved
    (item,) = (await changes(editor, session_id))["items"]
    assert item["files"] == [
        {"path": "app.py", "change": "modified", "additions": 1, "deletions": 1, "reverted": False}
    ]
    assert await version(editor, session_id, "1", "app.py", "after") == "value = 2\n"

    edits_before = len(editor.double.edits)
    reverted = await command(editor, p.REVERT_COMMAND, {"sessionId": session_id, "todoId": "1"})

    assert reverted["restored"] == ["app.py"]
    restore = editor.double.edits[edits_before]
    assert restore.label == "Workspace Agent: app.py"
    assert editor.double.texts[uri] == "value = 1\n"  # the buffer, through applyEdit
    assert source.read_text() == "value = 1\n"
    assert editor.double.saved[-1] == [uri]  # saved like the agent's edits


THE_ISSUES_STEP = (
    "touch .signal/started && until [ -e .signal/go ]; do sleep 0.05; done"
    " && printf 'more\\n' >> \"$(printf 'caf\\351.txt')\""
    " && rm becomes-dir && mkdir becomes-dir && echo y > becomes-dir/x.py"
    " && chmod 644 locked/ro.txt && echo z >> locked/ro.txt"
)


async def test_the_issues_tree_through_the_editor(
    editor: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    """A Latin-1 name, a file a step turns into a folder, a read-only file, and a file the
    user saves in the editor while the step's command runs: the run ends, the changes name
    the file readably with its bytes and its diff opens, the user's save is not the
    step's, a revert meets a file it cannot write (said in the dry run and the result) and
    takes back the rest, and undo puts it back."""
    (workspace / ".gitignore").write_text(".signal/\n")
    (workspace / ".signal").mkdir()
    latin1 = workspace / os.fsdecode(LATIN1)
    latin1.write_bytes(b"latin\n")
    (workspace / "becomes-dir").write_text("module\n")
    (workspace / "locked").mkdir()
    read_only = workspace / "locked/ro.txt"
    read_only.write_text("ro\n")
    os.chmod(read_only, 0o444)
    notes = workspace / "notes.md"
    notes.write_text("draft\n")
    uri = editor.double.open(notes, "draft\n")
    model.load(
        script_of(
            reply(tool("todo", plan(1)), tool("bash", {"command": THE_ISSUES_STEP})),
            reply(text("Done.")),
        )
    )
    running = asyncio.ensure_future(run(editor, "Turn the module into a package"))
    await wait_for(lambda: (workspace / ".signal/started").exists(), 60, "the command")
    editor.double.type(uri, "draft\nmine\n")  # the user saves while the command runs
    editor.double.save(uri)
    await request(editor, p.SESSIONS_REQUEST, {})  # answered after the didSave is taken
    (workspace / ".signal/go").touch()
    ran = await running
    assert ran["stopReason"] == "end_turn"
    session_id = ran["sessionId"]

    (item,) = (await changes(editor, session_id))["items"]
    files = by_path(item["files"])
    assert set(files) == {LATIN1_SHOWN, "becomes-dir", "becomes-dir/x.py", "locked/ro.txt"}
    name_bytes = files[LATIN1_SHOWN]["pathBytes"]
    assert base64.b64decode(name_bytes) == LATIN1
    (called,) = [e for e in events_of(editor, "toolResult") if e["name"] == "bash"]
    assert {"path": LATIN1_SHOWN, "pathBytes": name_bytes} in [
        {k: f[k] for k in ("path", "pathBytes") if k in f} for f in called["changes"]
    ]
    side = {"sessionId": session_id, "todoId": "1", "path": LATIN1_SHOWN, "pathBytes": name_bytes}
    before = await request(editor, p.FILE_VERSION_REQUEST, {**side, "side": "before"})
    assert before["text"] == "latin\n"
    del side["pathBytes"]  # the readable form alone names it too
    after = await request(editor, p.FILE_VERSION_REQUEST, {**side, "side": "after"})
    assert after["text"] == "latin\nmore\n"

    revert = {"sessionId": session_id, "todoId": "1"}
    cannot = {"path": "locked/ro.txt", "reason": ANY_CANNOT_WRITE}
    with unwritable(read_only):
        dry = await command(editor, p.REVERT_COMMAND, {**revert, "dryRun": True})
        assert dry["skipped"] == [cannot]
        assert events_of(editor, "revert") == []  # a dry run changes nothing, tells nothing
        reverted = await command(editor, p.REVERT_COMMAND, revert)
    assert reverted["restored"] == ["becomes-dir", LATIN1_SHOWN]
    assert reverted["deleted"] == ["becomes-dir/x.py"]
    assert reverted["nonUtf8Names"] == [{"path": LATIN1_SHOWN, "pathBytes": name_bytes}]
    assert reverted["skipped"] == [cannot]
    assert (workspace / "becomes-dir").read_text() == "module\n"
    assert latin1.read_bytes() == b"latin\n"
    assert notes.read_text() == "draft\nmine\n"  # the user's, not the step's
    (item,) = editor.changes[-1]["items"]
    assert not item["reverted"]  # locked/ro.txt was left as it was
    assert {f["path"]: f["reverted"] for f in item["files"]} == {
        "becomes-dir": True,
        "becomes-dir/x.py": True,
        LATIN1_SHOWN: True,
        "locked/ro.txt": False,
    }

    undone = await command(
        editor, p.UNDO_REVERT_COMMAND, {"sessionId": session_id, "undoId": reverted["undoId"]}
    )
    assert undone["skipped"] == []
    assert (workspace / "becomes-dir/x.py").read_text() == "y\n"
    assert latin1.read_bytes() == b"latin\nmore\n"
    assert notes.read_text() == "draft\nmine\n"

    # The conversation shows both, live and as its history file keeps them (a reload).
    told = [
        {k: v for k, v in e.items() if k not in ("sessionId", "_at")}
        for e in events_of(editor, "revert")
    ]
    odd = [{"path": LATIN1_SHOWN, "pathBytes": name_bytes}]
    target = 'before plan item #1 "Create the module"'
    assert told == [
        {
            "kind": "revert",
            "action": "revert",
            "target": target,
            "todoId": "1",
            "restored": ["becomes-dir", LATIN1_SHOWN],
            "deleted": ["becomes-dir/x.py"],
            "skipped": [cannot],
            "nonUtf8Names": odd,
            "undoId": reverted["undoId"],
        },
        {
            "kind": "revert",
            "action": "undo",
            "target": target,
            "todoId": None,
            "restored": ["becomes-dir/x.py", LATIN1_SHOWN],
            "deleted": ["becomes-dir"],
            "skipped": [],
            "nonUtf8Names": odd,
            "undoId": reverted["undoId"],
        },
    ]
    page = await request(editor, p.HISTORY_REQUEST, {"sessionId": session_id, "limit": 1000})
    kept = [
        {k: v for k, v in e.items() if k not in ("seq", "run")}
        for e in page["entries"]
        if e["kind"] == "revert"
    ]
    assert kept == told
    with pytest.raises(JsonRpcException, match="already undone"):
        await command(
            editor, p.UNDO_REVERT_COMMAND, {"sessionId": session_id, "undoId": reverted["undoId"]}
        )

    # The model is told, in the next user message, by the names it can use.
    model.load(script_of(reply(text("Understood."))))
    await run(editor, "What now?", session_id)
    last = model.requests[-1].body["messages"]
    assert_valid_history(last)
    told_model = "\n".join(b["text"] for b in last[-1]["content"] if b["type"] == "text")
    assert f"Restored to their earlier content: becomes-dir, {LATIN1_SHOWN}." in told_model
    assert "Left as they are: locked/ro.txt (cannot be written: " in told_model
    assert "The user undid the last revert" in told_model


class _CannotWrite(str):
    """Any 'cannot be written: ...' reason (root meets an immutable file, others a
    read-only folder: tests/support/unwritable.py)."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, str) and other.startswith("cannot be written: ")

    __hash__ = str.__hash__


ANY_CANNOT_WRITE = _CannotWrite("cannot be written: ...")


async def _wait(predicate: Any, timeout: float = 20.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("timed out")
        await asyncio.sleep(0.02)

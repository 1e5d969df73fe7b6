"""Plan items over several runs of one session, through the real server: models number
every new plan from "1", so each occurrence of an item is an entry of its own (its key,
its text, its run), and a revert goes to that occurrence's checkpoint. A dry run of a
revert says what it would do and changes nothing. Journals written before items had
texts still read."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from workspace_agent import protocol as p
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.client import RecordingClient
from tests.support.lsp import changes, command, request, run

PARSER_1 = "def parse(text):\n    return text.split()\n"
PARSER_2 = "def parse(text):\n    return text.split(',')\n"
TESTS_1 = "from parser import parse\n\n\ndef test_parse():\n    assert parse('a b')\n"
TESTS_2 = TESTS_1 + "\n\ndef test_commas():\n    assert parse('a,b') == ['a', 'b']\n"
DOCS = "# parse\n\nSplits text at commas.\n"


def plan(texts: list[str], active: int | None, done: int = 0) -> dict[str, Any]:
    return {
        "items": [
            {
                "id": str(n),
                "text": item_text,
                "status": "completed" if n <= done else "in_progress" if n == active else "pending",
            }
            for n, item_text in enumerate(texts, start=1)
        ]
    }


FIRST = ["Write the parser", "Add tests"]
SECOND = ["Switch to commas", "Add tests"]  # "1" is another step; "2" the same words again

FIRST_RUN = script_of(
    reply(tool("bash", {"command": "echo look > look.txt"})),
    reply(
        tool("todo", plan(FIRST, 1)), tool("write_file", {"path": "parser.py", "content": PARSER_1})
    ),
    reply(tool("todo", plan(FIRST, 2, done=1))),
    reply(tool("write_file", {"path": "test_parser.py", "content": TESTS_1})),
    reply(tool("todo", plan(FIRST, None, done=2))),
    reply(text("Parser and tests written.")),
)
SECOND_RUN = script_of(
    reply(tool("todo", plan(SECOND, 1))),
    reply(
        tool("bash", {"command": "sed -i \"s/split()/split(',')/\" parser.py"}),
        tool("write_file", {"path": "docs.md", "content": DOCS}),
    ),
    reply(tool("todo", plan(SECOND, 2, done=1))),
    reply(tool("write_file", {"path": "test_parser.py", "content": TESTS_2})),
    reply(tool("todo", plan(SECOND, None, done=2))),
    reply(text("Commas now.")),
)


async def two_runs(client: RecordingClient, model: ScriptedModelServer) -> str:
    model.load(FIRST_RUN)
    session_id = (await run(client, "Write a parser"))["sessionId"]
    model.load(SECOND_RUN)
    assert (await run(client, "Make it split at commas", session_id))["stopReason"] == "end_turn"
    return session_id


async def version(client: RecordingClient, params: dict[str, Any]) -> str | None:
    return (await request(client, p.FILE_VERSION_REQUEST, params))["text"]


def summary(got: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [
        (item["todoId"], item["text"], item["run"], sorted(f["path"] for f in item["files"]))
        for item in got["items"]
    ]


async def test_a_second_run_whose_plan_reuses_ids_gets_items_of_its_own(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    session_id = await two_runs(client, model)
    got = await changes(client, session_id)

    assert summary(got) == [
        (None, None, 1, ["look.txt"]),
        ("1", "Write the parser", 1, ["parser.py"]),
        ("2", "Add tests", 1, ["test_parser.py"]),
        # Run 2's "1" is another step; its "2" has the words of run 1's completed "2" but
        # is done again, so it is an item of its own too.
        ("1", "Switch to commas", 2, ["docs.md", "parser.py"]),
        ("2", "Add tests", 2, ["test_parser.py"]),
    ]
    keys = [item["key"] for item in got["items"]]
    assert len(set(keys)) == 5 and all(isinstance(k, str) and k for k in keys)
    assert [(r["run"], r["prompt"]) for r in got["runs"]] == [
        (1, "Write a parser"),
        (2, "Make it split at commas"),
    ]
    assert got["lastRun"] == 2
    assert client.changes[-1] == got  # the notification after the last call says the same
    _, parse1, tests1, commas, tests2 = got["items"]
    assert commas["commands"] == [
        {
            "command": "sed -i \"s/split()/split(',')/\" parser.py",
            "exitCode": 0,
            "toolUseId": "toolu_scripted_0008",
        }
    ]
    assert tests2["files"] == [
        {
            "path": "test_parser.py",
            "change": "modified",
            "additions": 4,
            "deletions": 0,
            "reverted": False,
        }
    ]

    # Diffs: by key, each occurrence's own; by todoId alone, the latest occurrence.
    def side(item: dict[str, Any] | None, path: str, which: str) -> dict[str, Any]:
        named = {"key": item["key"]} if item else {"todoId": "1"}
        return {"sessionId": session_id, **named, "path": path, "side": which}

    assert await version(client, side(parse1, "parser.py", "before")) is None
    assert await version(client, side(parse1, "parser.py", "after")) == PARSER_1
    assert await version(client, side(commas, "parser.py", "before")) == PARSER_1
    assert await version(client, side(commas, "parser.py", "after")) == PARSER_2
    assert await version(client, side(None, "parser.py", "after")) == PARSER_2
    assert await version(client, side(tests1, "test_parser.py", "after")) == TESTS_1
    with pytest.raises(
        JsonRpcException,
        match=re.escape('docs.md was not changed under plan item #1 "Write the parser"'),
    ):
        await version(client, side(parse1, "docs.md", "after"))
    with pytest.raises(JsonRpcException, match="there is no plan item with key 'nope'"):
        await version(client, {**side(parse1, "docs.md", "after"), "key": "nope"})
    mismatch = {**side(parse1, "parser.py", "after"), "todoId": "2"}
    with pytest.raises(
        JsonRpcException, match='is plan item #1 "Write the parser", not plan item #2'
    ):
        await version(client, mismatch)

    # Revert to before run 1's "2": that occurrence's checkpoint, not run 2's.
    reverted = await command(
        client, p.REVERT_COMMAND, {"sessionId": session_id, "key": tests1["key"]}
    )
    assert reverted["restored"] == ["parser.py"]
    assert reverted["deleted"] == ["docs.md", "test_parser.py"]
    assert reverted["skipped"] == []
    assert (workspace / "parser.py").read_text() == PARSER_1
    assert not (workspace / "test_parser.py").exists() and not (workspace / "docs.md").exists()
    assert client.changes[-1]["reverts"][-1]["target"] == 'before plan item #2 "Add tests"'
    await command(
        client, p.UNDO_REVERT_COMMAND, {"sessionId": session_id, "undoId": reverted["undoId"]}
    )
    assert (workspace / "test_parser.py").read_text() == TESTS_2

    # Revert to before run 2's "2" (its key): only its own change goes.
    reverted = await command(
        client, p.REVERT_COMMAND, {"sessionId": session_id, "key": tests2["key"], "todoId": "2"}
    )
    assert (reverted["restored"], reverted["deleted"]) == (["test_parser.py"], [])
    assert (workspace / "test_parser.py").read_text() == TESTS_1
    assert (workspace / "parser.py").read_text() == PARSER_2
    await command(
        client, p.UNDO_REVERT_COMMAND, {"sessionId": session_id, "undoId": reverted["undoId"]}
    )

    # todoId "1" alone is the latest "1": run 2's, whose checkpoint has run 1's parser.
    reverted = await command(client, p.REVERT_COMMAND, {"sessionId": session_id, "todoId": "1"})
    assert reverted["restored"] == ["parser.py", "test_parser.py"]
    assert reverted["deleted"] == ["docs.md"]
    assert (workspace / "parser.py").read_text() == PARSER_1
    assert (workspace / "test_parser.py").read_text() == TESTS_1
    assert client.changes[-1]["reverts"][-1]["target"] == 'before plan item #1 "Switch to commas"'


async def test_the_payload_says_what_the_view_shows_of_each_item(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    """Names, whether a revert to before an item has anything to take back (and why
    not), and which row of the session's current plan shows which occurrence."""
    session_id = await two_runs(client, model)
    got = await changes(client, session_id)

    def facts(items: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
        return [(i["displayName"], i["revertible"], i["planRow"], i["shown"]) for i in items]

    # The plan now is the second run's: its rows show run 2's items; run 1's "1" is a
    # replaced plan's step, run 1's "2" the same step done again since.
    assert facts(got["items"]) == [
        ("the changes made before the plan", True, None, True),
        ('plan item #1 "Write the parser"', True, None, False),
        ('plan item #2 "Add tests"', True, "Add tests", False),
        ('plan item #1 "Switch to commas"', True, "Switch to commas", True),
        ('plan item #2 "Add tests"', True, "Add tests", True),
    ]
    assert client.changes[-1] == got  # the run's last notification says the same

    # A third run replaces the plan and only runs a command under its step: the rows are
    # told against the plan as it is now, and a revert to before that step has nothing
    # to take back.
    model.load(
        script_of(
            reply(tool("todo", plan(["Read the parser"], 1))),
            reply(tool("bash", {"command": "cat parser.py"})),
            reply(tool("todo", plan(["Read the parser"], None, done=1))),
            reply(text("Read.")),
        )
    )
    await run(client, "Read it", session_id)
    got = await changes(client, session_id)
    assert facts(got["items"])[3:] == [
        ('plan item #1 "Switch to commas"', True, None, False),
        ('plan item #2 "Add tests"', True, None, False),
        ('plan item #1 "Read the parser"', False, "Read the parser", True),
    ]
    read = got["items"][-1]
    assert read["notRevertibleReason"] == (
        'the agent changed no files from plan item #1 "Read the parser" on'
    )
    assert all("notRevertibleReason" not in item for item in got["items"][:-1])
    assert client.changes[-1] == got

    # The same name in the revert's target (and so in what the model is told).
    reverted = await command(
        client, p.REVERT_COMMAND, {"sessionId": session_id, "key": got["items"][0]["key"]}
    )
    assert reverted["deleted"] == ["docs.md", "look.txt", "parser.py", "test_parser.py"]
    target = client.changes[-1]["reverts"][-1]["target"]
    assert target == "before the changes made before the plan"


def _digest(workspace: Path, session_id: str) -> dict[str, str]:
    """The workspace, the saved conversations and the session's checkpoint journal (the
    store's git objects are packed in the background after a run: checked apart)."""
    store = workspace / ".workspace-agent" / "checkpoints"
    out = {}
    for dirpath, _dirs, files in os.walk(workspace):
        for name in files:
            path = Path(dirpath) / name
            if store in path.parents:
                continue
            out[str(path.relative_to(workspace))] = hashlib.sha256(path.read_bytes()).hexdigest()
    journal = store / "sessions" / f"{session_id}.jsonl"
    out["journal"] = hashlib.sha256(journal.read_bytes()).hexdigest()
    out["journal mtime"] = str(journal.stat().st_mtime_ns)
    return out


def _stored(workspace: Path, content: bytes) -> bool:
    """Whether the checkpoint store holds a blob with this content."""
    store = workspace / ".workspace-agent" / "checkpoints" / "repo"
    sha = hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    found = subprocess.run(
        ["git", f"--git-dir={store}", "cat-file", "-e", sha], env=env, capture_output=True
    )
    return found.returncode == 0


async def test_a_dry_run_says_what_a_revert_would_do_and_changes_nothing(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    session_id = await two_runs(client, model)
    items = (await changes(client, session_id))["items"]
    parse1 = items[1]
    # The user edits a file the agent changed, and creates one.
    mine = b"from parser import parse\n# the user's own test file now\n"
    (workspace / "test_parser.py").write_bytes(mine)
    (workspace / "notes.txt").write_text("mine\n")
    notifications = len(client.changes)
    before = _digest(workspace, session_id)

    args = {"sessionId": session_id, "key": parse1["key"], "dryRun": True}
    preview = await command(client, p.REVERT_COMMAND, args)
    forced = await command(client, p.REVERT_COMMAND, {**args, "force": True})
    last_run = await command(
        client, p.REVERT_COMMAND, {"sessionId": session_id, "lastRun": True, "dryRun": True}
    )

    assert preview == {
        "restored": [],
        "deleted": ["docs.md", "parser.py"],
        "skipped": [
            {"path": "test_parser.py", "reason": "changed after the agent's last change to it"}
        ],
        "undoId": None,
        "dryRun": True,
    }
    assert forced["deleted"] == ["docs.md", "parser.py", "test_parser.py"]
    assert forced["skipped"] == []
    assert last_run == {
        "restored": ["parser.py"],
        "deleted": ["docs.md"],
        "skipped": [
            {"path": "test_parser.py", "reason": "changed after the agent's last change to it"}
        ],
        "undoId": None,
        "dryRun": True,
    }
    assert _digest(workspace, session_id) == before  # nothing written, nothing recorded
    assert not _stored(workspace, mine)  # the user's file was hashed, not stored
    assert len(client.changes) == notifications  # nothing to tell: nothing changed

    # The real revert does what the dry run said.
    done = await command(client, p.REVERT_COMMAND, {"sessionId": session_id, "key": parse1["key"]})
    assert {k: done[k] for k in ("restored", "deleted", "skipped")} == {
        k: preview[k] for k in ("restored", "deleted", "skipped")
    }
    assert isinstance(done["undoId"], str) and "dryRun" not in done
    assert (workspace / "test_parser.py").read_bytes() == mine

    # Undo, as a dry run first.
    undo_args = {"sessionId": session_id, "undoId": done["undoId"]}
    before = _digest(workspace, session_id)
    undo_preview = await command(client, p.UNDO_REVERT_COMMAND, {**undo_args, "dryRun": True})
    assert undo_preview == {
        "restored": ["docs.md", "parser.py"],
        "deleted": [],
        "skipped": [],
        "dryRun": True,
    }
    assert _digest(workspace, session_id) == before
    undone = await command(client, p.UNDO_REVERT_COMMAND, undo_args)
    assert undone == {k: v for k, v in undo_preview.items() if k != "dryRun"}

    # The model heard of the revert and the undo, not of the dry runs.
    model.load(script_of(reply(text("Noted."))))
    await run(client, "What changed?", session_id)
    sent = json.dumps(model.requests[-1].body["messages"][-1])
    assert sent.count("[Workspace Agent] The user reverted") == 1
    assert sent.count("[Workspace Agent] The user undid the last revert") == 1

    # A flag that is not a boolean is refused, not taken for true.
    with pytest.raises(JsonRpcException, match="'dryRun' must be true or false"):
        await command(client, p.REVERT_COMMAND, {**args, "dryRun": "yes"})

"""Diffs as ACP clients read them (issue 19): an edit's `diff` carries the whole old and
new text of the file, so a client that numbers lines from `oldText` places the change
right; above a size, a window of whole lines whose location says where it starts; and a
loaded session shows the same diffs (and the same failed plan call) as the live run.

Over real stdio with the ACP package's client side, the model scripted.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from workspace_agent.acp.diffs import CONTEXT_LINES, DIFF_TEXT_CHARS, ShownDiff, shown_diff
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.acp import EditorClient, acp_agent, agent_env, prompt, real
from tests.support.unwritable import LATIN1, LATIN1_SHOWN, unwritable

STORY = "line one\nline two\nline three\nline four\n"


def closing(client: EditorClient) -> dict[str, dict[str, Any]]:
    """The last tool_call_update of each call, by toolCallId."""
    return {u["toolCallId"]: u for u in client.of_kind("tool_call_update")}


async def test_an_edit_diff_is_the_whole_file(model: ScriptedModelServer, workspace: Path):
    """Through the client's fs (a client without it writes on disk, as for a name that is
    not UTF-8: test_the_issues_tree_over_acp)."""
    (workspace / "story.txt").write_text(STORY.replace("\n", "\r\n"))  # CRLF on disk
    model.load(
        script_of(
            reply(
                tool(
                    "edit_file",
                    {"path": "story.txt", "old_text": "line three", "new_text": "line THREE"},
                )
            ),
            reply(text("Edited.")),
        )
    )
    client = EditorClient(True)
    async with acp_agent(client, workspace, agent_env(model), "--yes") as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        assert await prompt(conn, session.session_id, "Shout line three") == "end_turn"

    story = str(real(workspace) / "story.txt")
    assert (workspace / "story.txt").read_text() == STORY.replace("three", "THREE")
    (end,) = closing(client).values()
    assert end["content"] == [
        {
            "type": "diff",
            "path": story,
            "oldText": STORY,
            "newText": STORY.replace("line three", "line THREE"),
        }
    ]
    assert end["locations"] == [{"path": story, "line": 3}]


async def test_a_large_file_diff_is_a_window_of_whole_lines(
    model: ScriptedModelServer, workspace: Path
):
    lines = [f"row {n} = {n}\n" for n in range(1, 8001)]
    assert len("".join(lines)) > DIFF_TEXT_CHARS
    (workspace / "big.txt").write_text("".join(lines))
    model.load(
        script_of(
            reply(
                tool(
                    "edit_file",
                    {"path": "big.txt", "old_text": "row 4000 = 4000\n", "new_text": "row 4000\n"},
                )
            ),
            reply(text("Edited.")),
        )
    )
    client = EditorClient()
    async with acp_agent(client, workspace, agent_env(model), "--yes") as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        assert await prompt(conn, session.session_id, "Shorten row 4000") == "end_turn"

    first = 4000 - CONTEXT_LINES  # 1-based: the window's first line
    window = lines[first - 1 : 4000 + CONTEXT_LINES]
    (end,) = closing(client).values()
    (diff,) = end["content"]
    assert diff["oldText"] == "".join(window)
    assert diff["newText"] == "".join(window).replace("row 4000 = 4000\n", "row 4000\n")
    assert end["locations"] == [{"path": str(real(workspace) / "big.txt"), "line": first}]


async def test_a_loaded_session_shows_the_diffs_of_the_live_run(
    model: ScriptedModelServer, workspace: Path
):
    (workspace / "old.txt").write_text("keep\nold line\n")
    (workspace / "story.txt").write_text(STORY)
    model.load(
        script_of(
            reply(
                tool("write_file", {"path": "notes.md", "content": "# Notes\n"}),
                tool(
                    "edit_file",
                    {"path": "story.txt", "old_text": "line two", "new_text": "line 2"},
                ),
                tool("write_file", {"path": "old.txt", "content": "keep\nnew line\n"}),
                tool("todo", {"items": [{"id": "1", "text": "", "status": "pending"}]}),
                tool("bash", {"command": "echo ran"}),
            ),
            reply(text("Done.")),
        )
    )
    live = EditorClient()
    async with acp_agent(live, workspace, agent_env(model), "--yes") as (conn, _):
        session_id = (await conn.new_session(cwd=str(workspace))).session_id
        assert await prompt(conn, session_id, "Change the files") == "end_turn"

    log = workspace / ".workspace-agent" / "acp" / f"{session_id}.diffs.jsonl"
    with log.open("a") as f:
        f.write('{"toolUseId": "torn')  # a crash mid-write: skipped, the rest replays
    loaded = EditorClient()
    async with acp_agent(loaded, workspace, agent_env(model)) as (conn, _):
        await conn.load_session(cwd=str(workspace), session_id=session_id)

    live_ends, loaded_ends = closing(live), closing(loaded)
    write_new, edit, overwrite, bash = live_ends  # the failed todo call has no update
    assert [d["type"] for u in (write_new, edit, overwrite) for d in live_ends[u]["content"]] == [
        "diff"
    ] * 3
    for call in (write_new, edit, overwrite, bash):
        assert loaded_ends[call] == live_ends[call]
    assert loaded_ends[edit]["content"][0]["oldText"] == STORY
    assert loaded_ends[edit]["locations"] == [
        {"path": str(real(workspace) / "story.txt"), "line": 2}
    ]
    # The rejected plan shows as one failed call, live and loaded alike.
    (failed,) = [c for c in live.of_kind("tool_call") if c["kind"] == "think"]
    assert failed["status"] == "failed"
    assert [c for c in loaded.of_kind("tool_call") if c["kind"] == "think"] == [failed]


def test_shown_diff_bounds():
    # Small: whole texts; the location is the first changed line (or the last line when
    # nothing changed).
    assert shown_diff("a\nb\n", "a\nB\n") == ShownDiff("a\nb\n", "a\nB\n", 2)
    assert shown_diff("a\nb\n", "a\nb\n") == ShownDiff("a\nb\n", "a\nb\n", 2)
    assert shown_diff(None, "new\n") == ShownDiff(None, "new\n", 1)
    # A large new file: its first lines, as many as fit, whole.
    line = "x" * 99 + "\n"
    big = line * (2 * DIFF_TEXT_CHARS // len(line))
    created = shown_diff(None, big)
    assert created.old is None and created.line == 1
    assert created.new == line * (DIFF_TEXT_CHARS // len(line))
    # One line longer than the bound (a minified file): cut.
    huge = "y" * (3 * DIFF_TEXT_CHARS)
    cut = shown_diff(huge, huge + "z")
    assert cut == ShownDiff("y" * DIFF_TEXT_CHARS, "y" * DIFF_TEXT_CHARS, 1)


async def test_the_issues_tree_over_acp(model: ScriptedModelServer, workspace: Path):
    """A Latin-1 name the model sees readably in `ls` and reads and edits by that form
    (on disk: a client cannot be asked about a name JSON cannot carry), its diff under
    the readable name, a file turned into a folder, and `/undo` meeting a file it cannot
    write: said, and the rest taken back."""
    latin1 = workspace / os.fsdecode(LATIN1)
    latin1.write_bytes(b"latin\n")
    (workspace / "becomes-dir").write_text("module\n")
    (workspace / "locked").mkdir()
    read_only = workspace / "locked/ro.txt"
    read_only.write_text("ro\n")
    os.chmod(read_only, 0o444)
    private = workspace / "private.txt"
    private.write_text("p\n")
    os.chmod(private, 0o600)
    step = (
        "rm becomes-dir && mkdir becomes-dir && echo y > becomes-dir/x.py"
        " && chmod 644 locked/ro.txt && echo z >> locked/ro.txt"
        " && chmod 644 private.txt && echo q >> private.txt"
    )
    model.load(
        script_of(
            reply(tool("bash", {"command": "ls"})),
            reply(tool("read_file", {"path": LATIN1_SHOWN})),
            reply(
                tool("edit_file", {"path": LATIN1_SHOWN, "old_text": "latin", "new_text": "LATIN"})
            ),
            reply(tool("bash", {"command": step})),
            reply(text("Done.")),
        )
    )
    client = EditorClient(True)
    async with acp_agent(client, workspace, agent_env(model), "--yes") as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        assert await prompt(conn, session.session_id, "Make it a package") == "end_turn"
        listed, read = (_tool_result(model, n) for n in (1, 2))
        assert LATIN1_SHOWN in listed.splitlines()
        assert "latin" in read
        assert latin1.read_bytes() == b"LATIN\n"
        assert client.writes == []
        edited = [
            u for u in closing(client).values() if u.get("content", [{}])[0].get("type") == "diff"
        ]
        shown = str(real(workspace)) + "/" + LATIN1_SHOWN
        assert edited[0]["content"] == [
            {"type": "diff", "path": shown, "oldText": "latin\n", "newText": "LATIN\n"}
        ]
        with unwritable(read_only):
            assert await prompt(conn, session.session_id, "/undo") == "end_turn"
    said = client.text()
    assert (
        f"Reverted the last run: restored becomes-dir, {LATIN1_SHOWN}, private.txt; "
        "deleted becomes-dir/x.py." in said
    )
    assert "Left as they are: locked/ro.txt (cannot be written: " in said
    assert (workspace / "becomes-dir").read_text() == "module\n"
    assert latin1.read_bytes() == b"latin\n"
    assert read_only.read_text() == "ro\nz\n"
    assert private.read_text() == "p\n"
    assert stat.S_IMODE(private.stat().st_mode) == 0o600  # every bit back, not only x


def _tool_result(model: ScriptedModelServer, request: int) -> str:
    """The text of the tool result the model got in its `request`-th request."""
    (block,) = [
        b
        for b in model.requests[request].body["messages"][-1]["content"]
        if b["type"] == "tool_result"
    ]
    content = block["content"]
    return content if isinstance(content, str) else "".join(c.get("text", "") for c in content)

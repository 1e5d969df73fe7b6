"""A workspace that is not a git repository, with many files: the checkpoint store's
first scan stores them all in the background while the run goes on, tells the editor how
far it is (event `preparing`), and the first write waits for it, visibly; what the write
changed is still recorded and revertible, and the files went into a pack. The scan is
held at its first report until the write waits (HOLD_ENV): what is checked does not hang
on how fast this machine scans 12,000 files."""

from __future__ import annotations

import shutil
from pathlib import Path

from workspace_agent import protocol as p
from workspace_agent.checkpoints.preparing import HOLD_ENV
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.client import RecordingClient, session_fixture
from tests.support.lsp import changes, command, request, run
from tests.support.many_files import FILES, many_files
from tests.support.server import TEST_KEY, server_env

held = session_fixture("held", env=server_env(ANTHROPIC_API_KEY=TEST_KEY, **{HOLD_ENV: "1"}))


async def test_a_big_first_scan_says_how_far_it_is_and_the_first_write_waits_for_it(
    held: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    client = held
    many_files(workspace)
    model.load(
        script_of(
            reply(tool("write_file", {"path": "src/pkg000/mod00.py", "content": "value = -1\n"})),
            reply(text("Done.")),
        )
    )
    result = await run(client, "Change the first module")
    assert result["stopReason"] == "end_turn"

    preparing = client.events_of(p.EVENT_PREPARING)
    assert preparing, client.arrivals
    *going, last = preparing
    assert last["ready"] and last["stored"] == last["total"] >= FILES  # and what else is there
    total = last["total"]
    assert last["message"].startswith(f"Checkpoints ready: {total:,} files stored in ")
    # The first word is the wait (the scan is held until then), with how much there is.
    first = going[0]
    assert first["waiting"] == "write_file" and not first["ready"]
    assert (
        first["message"] == f"Preparing checkpoints: 0 of {total:,} files (write_file waits for it)"
    )
    assert all(e["waiting"] == "write_file" and not e["ready"] for e in going)
    assert all(e["total"] == total and e["stored"] <= total for e in going)
    # The write ran only once the store was ready: its result comes after the end.
    order = client.arrivals
    ready_at = len(order) - 1 - order[::-1].index(p.EVENT_PREPARING)
    write_result = order.index(p.EVENT_TOOL_RESULT)
    assert order.index(p.EVENT_TOOL_CALL) < order.index(p.EVENT_PREPARING) < ready_at
    assert ready_at < write_result

    # Recorded and revertible like any change; the first scan's files went into a pack.
    session_id = result["sessionId"]
    found = await changes(client, session_id)
    files = [f for item in found["items"] for f in item["files"]]
    assert [(f["path"], f["change"]) for f in files] == [("src/pkg000/mod00.py", "modified")]
    await command(client, p.REVERT_COMMAND, {"sessionId": session_id, "lastRun": True})
    assert (workspace / "src/pkg000/mod00.py").read_text().startswith("value = 0\n")
    objects = workspace / ".workspace-agent" / "checkpoints" / "repo" / "objects"
    loose = len(list(objects.glob("??/*")))
    assert loose < FILES // 40, loose  # the trees (one a folder) and a few more, not the files
    assert list((objects / "pack").glob("*.pack"))
    history = await request(client, p.HISTORY_REQUEST, {"sessionId": session_id})
    assert p.EVENT_PREPARING not in {entry["kind"] for entry in history["entries"]}


async def test_a_write_that_comes_before_the_store_is_open_is_told_it_waits_too(
    held: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    """The second run of a warm server answers at once: its write came while the new store
    was still being made, and waited without a word (and, held, for a minute)."""
    (workspace / "first.txt").write_text("one\n")
    model.load(
        script_of(
            reply(text("Warm.")),
            reply(tool("write_file", {"path": "src/pkg000/mod00.py", "content": "value = -1\n"})),
            reply(text("Done.")),
        )
    )
    warm = await run(held, "Warm up")
    assert warm["stopReason"] == "end_turn"
    # The run's checkpoint is finished after its answer, off its path: a changes request
    # waits its turn with the store, so the store is at rest when it is taken away.
    await changes(held, warm["sessionId"])
    shutil.rmtree(workspace / ".workspace-agent" / "checkpoints")
    many_files(workspace)
    result = await run(held, "Change the first module")
    assert result["stopReason"] == "end_turn"
    first, *_, last = held.events_of(p.EVENT_PREPARING)
    assert first["waiting"] == "write_file" and last["ready"]
    assert (workspace / "src/pkg000/mod00.py").read_text() == "value = -1\n"

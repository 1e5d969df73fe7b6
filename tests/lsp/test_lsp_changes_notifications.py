"""When workspaceAgent/changes notifications are sent, through the real server: at once
for a change after a quiet spell, coalesced for a burst of calls, and the final state
always before the run's answer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workspace_agent import protocol as p
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.client import RecordingClient
from tests.support.lsp import request, run

CALLS = 30


def paths_in(notification: dict[str, Any]) -> set[str]:
    return {f["path"] for item in notification["items"] for f in item["files"]}


async def test_a_burst_of_calls_is_coalesced_and_the_final_state_comes_before_the_answer(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    # One reply with many workspace-changing calls: they run back to back, within
    # milliseconds, far faster than a real model answers.
    writes = [
        tool("write_file", {"path": f"f{n:02}.txt", "content": f"{n}\n"}) for n in range(CALLS)
    ]
    edit = tool("edit_file", {"path": "f00.txt", "old_text": "0", "new_text": "zero"})
    shell = tool("bash", {"command": "printf 'x\\n' > made_by_bash.txt && rm f01.txt"})
    model.load(script_of(reply(*writes, edit, shell), reply(text("Done."))))

    result = await run(client, "Write many files")
    notified = list(client.changes)  # what the client had when the run's answer came
    arrivals = list(client.arrivals)

    assert result["stopReason"] == "end_turn"
    got = await request(client, p.CHANGES_REQUEST, {"sessionId": result["sessionId"]})
    calls = CALLS + 2
    assert 2 <= len(notified) < calls
    # The first call, after a quiet spell, is told at once, on its own.
    assert paths_in(notified[0]) == {"f00.txt"}
    # The last notification is the final state, and it came before the run ended.
    assert notified[-1] == got
    # f01.txt was made and removed within the item: nothing to show for it.
    final_paths = {f"f{n:02}.txt" for n in range(CALLS)} - {"f01.txt"} | {"made_by_bash.txt"}
    assert paths_in(got) == final_paths
    (item,) = got["items"]
    assert item["commands"] == [
        {
            "command": "printf 'x\\n' > made_by_bash.txt && rm f01.txt",
            "exitCode": 0,
            "toolUseId": "toolu_scripted_0032",
        }
    ]
    last_changes = len(arrivals) - 1 - arrivals[::-1].index("changes")
    assert last_changes < arrivals.index(p.EVENT_RUN_END)
    assert client.changes == notified  # nothing came after the answer


async def test_a_single_change_is_notified_at_once(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    model.load(
        script_of(
            reply(tool("write_file", {"path": "a.txt", "content": "a\n"})),
            reply(text("Done.")),
        )
    )

    result = await run(client, "Write a file")

    assert result["stopReason"] == "end_turn"
    (notified,) = client.changes
    assert paths_in(notified) == {"a.txt"}
    # Sent as soon as the call's changes were recorded, not at the end of a window: the
    # client has it before the call's result (and so before the next model request).
    assert client.arrivals.index("changes") < client.arrivals.index(p.EVENT_TOOL_RESULT)

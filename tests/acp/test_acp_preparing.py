"""A big first checkpoint scan over ACP: the session gets a note when it starts to be
reported, one when the first write waits for it, and one when it is ready; not one for
each report in between."""

from __future__ import annotations

import re
from pathlib import Path

from workspace_agent.checkpoints.preparing import HOLD_ENV
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.acp import EditorClient, acp_agent, agent_env, prompt
from tests.support.many_files import FILES, many_files


async def test_a_big_first_scan_is_a_note_when_told_when_a_write_waits_and_when_ready(
    model: ScriptedModelServer, workspace: Path
):
    many_files(workspace)
    model.load(
        script_of(
            reply(tool("write_file", {"path": "src/pkg000/mod00.py", "content": "value = -1\n"})),
            reply(text("Done.")),
        )
    )
    client = EditorClient()
    async with acp_agent(client, workspace, agent_env(model, **{HOLD_ENV: "1"})) as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        stop = await prompt(conn, session.session_id, "Change the first module")

    assert stop == "end_turn"
    said = [
        u["content"]["text"].strip() if u["sessionUpdate"] == "agent_message_chunk" else "call"
        for _, u in client.updates
    ]
    notes = [line[2:] for line in said if line.startswith("> ") and "heckpoints" in line]
    assert len(notes) == 2, said  # the wait (the scan is held until then), and the end
    assert notes[0].startswith("Preparing checkpoints: ")
    assert notes[0].endswith("(write_file waits for it)")
    assert re.fullmatch(rf"Checkpoints ready: {FILES:,} files stored in \d+ s", notes[-1])
    assert said.index("call") < said.index(f"> {notes[0]}")
    assert client.text().endswith("Done.")
    assert (workspace / "src/pkg000/mod00.py").read_text() == "value = -1\n"

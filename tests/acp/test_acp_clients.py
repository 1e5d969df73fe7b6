"""`workspace-agent acp` with clients that answer the way real ACP clients do (issue 19):
a client that ends the agent between `session/new` and the first prompt, one that lists
sessions without `cwd`, ones that answer a read of a missing file with `-32002` or with
empty text, and one that refuses writes with `-32603` and the reason in `data.details`.

Over real stdio with the ACP package's client side, the model scripted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from acp import RequestError
from acp.schema import ReadTextFileResponse

from workspace_agent.acp.documents import ERROR_DETAIL_CHARS
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.acp import EditorClient, acp_agent, agent_env, prompt, real
from tests.support.lsp import assert_valid_history, tool_results


async def test_a_new_session_is_loadable_before_its_first_prompt(
    model: ScriptedModelServer, workspace: Path
):
    model.load(script_of(reply(text("Hello from the loaded session."))))
    first = EditorClient()
    async with acp_agent(first, workspace, agent_env(model)) as (conn, _):
        session_id = (await conn.new_session(cwd=str(workspace))).session_id
        # A session that never ran has nothing to show in a listing.
        assert (await conn.list_sessions(cwd=str(workspace))).sessions == []

    second = EditorClient()
    async with acp_agent(second, workspace, agent_env(model)) as (conn, _):
        await conn.load_session(cwd=str(workspace), session_id=session_id)
        # Nothing to replay: only the command list (test_acp_commands.py).
        assert [u["sessionUpdate"] for _, u in second.updates] == ["available_commands_update"]
        assert await prompt(conn, session_id, "Say hello") == "end_turn"
        listed = await conn.list_sessions(cwd=str(workspace))

    assert [(s.session_id, s.title) for s in listed.sessions] == [(session_id, "Say hello")]
    assert second.text() == "Hello from the loaded session."
    assert {sid for sid, _ in second.updates} == {session_id}
    messages = model.requests[0].body["messages"]
    assert_valid_history(messages)
    assert messages[0]["content"][-1]["text"] == "Say hello"


async def test_session_list_without_cwd_lists_the_agents_own_folder(
    model: ScriptedModelServer, workspace: Path, tmp_path: Path
):
    other = tmp_path / "other"
    other.mkdir()
    model.load(script_of(reply(text("One.")), reply(text("Two."))))
    first = EditorClient()
    async with acp_agent(first, workspace, agent_env(model)) as (conn, _):
        here = (await conn.new_session(cwd=str(workspace))).session_id
        assert await prompt(conn, here, "In the agent's folder") == "end_turn"
        there = (await conn.new_session(cwd=str(other))).session_id
        assert await prompt(conn, there, "In another folder") == "end_turn"

    second = EditorClient()  # started in `workspace`, as editors start agents
    async with acp_agent(second, workspace, agent_env(model)) as (conn, _):
        fresh = await conn.list_sessions()
        await conn.load_session(cwd=str(other), session_id=there)
        both = await conn.list_sessions()

    assert [(s.session_id, s.cwd, s.title) for s in fresh.sessions] == [
        (here, str(real(workspace)), "In the agent's folder")
    ]
    # With a session of another folder open, that folder's sessions are listed too,
    # newest first.
    assert [(s.session_id, s.cwd) for s in both.sessions] == [
        (there, str(real(other))),
        (here, str(real(workspace))),
    ]


class EmptyForMissingFiles(EditorClient):
    """A client that answers a read of a file that does not exist with empty text."""

    async def read_text_file(
        self, session_id: str, path: str, line: int | None = None, limit: int | None = None, **kw
    ) -> ReadTextFileResponse:
        if path not in self.buffers and _missing(path):
            self.reads.append(path)
            return ReadTextFileResponse(content="")
        return await super().read_text_file(session_id, path, line, limit, **kw)


def _missing(path: str) -> bool:
    return not Path(path).exists()


@pytest.mark.parametrize("client_class", [EditorClient, EmptyForMissingFiles])
async def test_creating_a_file_never_reads_it_from_the_client(
    model: ScriptedModelServer, workspace: Path, client_class: type[EditorClient]
):
    model.load(
        script_of(
            reply(tool("write_file", {"path": "notes.md", "content": "# Notes\n"})),
            reply(text("Created.")),
        )
    )
    client = client_class(fs=True)  # EditorClient answers -32002 for a missing file
    async with acp_agent(client, workspace, agent_env(model), "--yes") as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        assert await prompt(conn, session.session_id, "Write notes") == "end_turn"

    notes = str(real(workspace) / "notes.md")
    assert client.reads == []
    assert client.writes == [(notes, "# Notes\n")]
    (created,) = tool_results(model.requests[1].body)
    assert created["content"] == "Created notes.md in the editor (1 lines)"
    (end,) = [u for u in client.of_kind("tool_call_update") if u["status"] == "completed"]
    assert end["content"] == [{"type": "diff", "path": notes, "newText": "# Notes\n"}]


class RefusingWrites(EditorClient):
    """A client whose user denied file writes: `-32603` with the reason in data.details."""

    def __init__(self, *details: Any) -> None:
        super().__init__(True)
        self.details = list(details)

    async def write_text_file(self, session_id: str, path: str, content: str, **kw: Any) -> None:
        raise RequestError(-32603, "Internal error", {"details": self.details.pop(0)})


async def test_a_refused_write_tells_the_model_why(model: ScriptedModelServer, workspace: Path):
    (workspace / "w.txt").write_text("old\n")
    model.load(
        script_of(
            reply(tool("edit_file", {"path": "w.txt", "old_text": "old", "new_text": "new"})),
            reply(tool("write_file", {"path": "n.txt", "content": "x\n"})),
            reply(text("I could not write.")),
        )
    )
    long_reason = "policy says no. " * 100
    client = RefusingWrites("Permission denied for fs/write_text_file", long_reason)
    async with acp_agent(client, workspace, agent_env(model), "--yes") as (conn, _):
        session = await conn.new_session(cwd=str(workspace))
        assert await prompt(conn, session.session_id, "Change w.txt") == "end_turn"

    assert (workspace / "w.txt").read_text() == "old\n" and not (workspace / "n.txt").exists()
    (edit,) = tool_results(model.requests[1].body)
    assert edit["is_error"] is True
    assert edit["content"] == (
        "the editor could not write w.txt: Internal error "
        "(Permission denied for fs/write_text_file)"
    )
    (write,) = tool_results(model.requests[2].body)
    assert write["is_error"] is True
    cut = long_reason[: ERROR_DETAIL_CHARS - 1] + "…"
    assert write["content"] == f"the editor could not write n.txt: Internal error ({cut})"
    failed = [u for u in client.of_kind("tool_call_update") if u["status"] == "failed"]
    assert [u["content"][0]["content"]["text"] for u in failed] == [
        edit["content"],
        write["content"],
    ]

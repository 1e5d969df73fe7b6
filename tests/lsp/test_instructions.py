"""Project instructions (AGENTS.md / CLAUDE.md) over real LSP: the root's, the user's and
nested folders' files, as the model and the user see them (tests/unit/instructions/ has
which files are read, the cap and the block)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from workspace_agent.agent.prompt import system_prompt
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.client import RecordingClient
from tests.support.lsp import events_of, run, tool_results
from tests.support.server import USER_CONFIG


@pytest.fixture
def user_agents_md() -> Iterator[Path]:
    path = USER_CONFIG / "AGENTS.md"
    path.write_text("Always answer in English.\n")
    yield path
    path.unlink()


def _system_text(body: dict) -> str:
    return "".join(block["text"] for block in body["system"])


async def test_root_user_and_nested_instructions_over_lsp(
    client: RecordingClient,
    model: ScriptedModelServer,
    workspace: Path,
    user_agents_md: Path,
):
    (workspace / "AGENTS.md").write_text("Use tabs.\n")
    (workspace / "pkg" / "sub").mkdir(parents=True)
    (workspace / "pkg" / "AGENTS.md").write_text("pkg: run `pytest pkg`.\n")
    (workspace / "pkg" / "sub" / "AGENTS.md").write_text("sub: no prints.\n")
    (workspace / "pkg" / "a.py").write_text("A = 1\n")
    (workspace / "pkg" / "b.py").write_text("B = 2\n")
    (workspace / "pkg" / "sub" / "c.py").write_text("C = 3\n")
    model.load(
        script_of(
            reply(tool("read_file", {"path": "pkg/a.py"})),
            reply(tool("read_file", {"path": "pkg/b.py"})),
            reply(tool("read_file", {"path": "pkg/sub/c.py"})),
            reply(text("Read them.")),
        )
    )

    result = await run(client, "read the package")

    assert result["stopReason"] == "end_turn"
    first = model.requests[0].body
    system = _system_text(first)
    assert system.startswith(system_prompt(workspace))
    assert '<instructions source="AGENTS.md" scope="project">\nUse tabs.\n</instructions>' in system
    assert "Always answer in English." in system
    assert "pkg: run" not in system  # nested files are not in the system prompt
    # pkg/AGENTS.md comes with the first call under pkg/, once; sub/ gets its own (nearest).
    after_a = tool_results(model.requests[1].body)[0]["content"]
    after_b = tool_results(model.requests[2].body)[0]["content"]
    after_c = tool_results(model.requests[3].body)[0]["content"]
    assert '<instructions source="pkg/AGENTS.md" scope="folder" folder="pkg">' in after_a
    assert "pkg: run `pytest pkg`." in after_a
    assert "<instructions" not in after_b
    assert "sub: no prints." in after_c and "pkg: run" not in after_c
    # The system prompt is the same for every request of the run: the cached prefix holds.
    assert all(_system_text(r.body) == system for r in model.requests)
    assert result["usage"]["cacheReadTokens"] > 0
    # The user is told which files were used.
    (notice,) = [e for e in events_of(client, "notice") if e.get("instructions")]
    assert notice["message"] == f"Instructions: {user_agents_md}, AGENTS.md"
    assert [(i["path"], i["scope"]) for i in notice["instructions"]] == [
        (str(user_agents_md), "user"),
        ("AGENTS.md", "project"),
    ]

    # A change is picked up at the next run; the nested file already given is not repeated.
    (workspace / "AGENTS.md").write_text("Use spaces.\n")
    model.load(script_of(reply(tool("read_file", {"path": "pkg/a.py"})), reply(text("ok"))))
    await run(client, "again", session_id=result["sessionId"])
    second_run = model.requests[4].body
    assert "Use spaces." in _system_text(second_run) and "Use tabs." not in _system_text(second_run)
    assert "<instructions" not in tool_results(model.requests[5].body)[0]["content"]

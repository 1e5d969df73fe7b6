"""The diagnostics round trip over LSP with the real server: after the agent changes
files, the editor is asked for their problems and the new ones reach the model with that
tool's result (old ones do not, nor information and hints); the transcript gets the count;
a client without the capability is never asked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from workspace_agent.testing.scripted_model import (
    ScriptedModelServer,
    reply,
    script_of,
    text,
    tool,
)

from tests.support.client import RecordingClient
from tests.support.lsp import events_of, run, tool_results

APP = "def main():\n    x = 1  # LINT: old problem\n    return x\n"
LIB = "def f():\n    pass\n"
SCRIPT = script_of(
    # 1. edit_file on a file the editor does not have open: a new error on line 5.
    reply(
        tool(
            "edit_file",
            {
                "path": "app.py",
                "old_text": "    return x\n",
                "new_text": "    return x\n\ny = 2  # LINT: unterminated string\n",
            },
        )
    ),
    # 2. A command that changes a file: a new warning (and a hint, which is no problem).
    reply(
        tool("bash", {"command": "printf '# LINT-WARN: slow loop  # LINT-HINT: x\\n' >> lib.py"})
    ),
    # 3. An edit of the open buffer that removes the old problem: nothing new.
    reply(
        tool(
            "edit_file",
            {"path": "notes.py", "old_text": "# LINT: old note", "new_text": "# fine now"},
        )
    ),
    reply(text("Done.")),
)


def lint(source: str) -> list[dict[str, Any]]:
    """The double's language server: `# LINT: message` is an error from there to the end
    of its line, `# LINT-WARN:` a warning, `# LINT-HINT:` a hint."""
    found = []
    for number, line in enumerate(source.splitlines()):
        for marker, severity in (("# LINT: ", 1), ("# LINT-WARN: ", 2), ("# LINT-HINT: ", 4)):
            column = line.find(marker)
            if column >= 0:
                message = line[column + len(marker) :].split("  #")[0]
                found.append(
                    {
                        "range": {
                            "start": {"line": number, "character": column},
                            "end": {"line": number, "character": len(line)},
                        },
                        "severity": severity,
                        "source": "double-lint",
                        "message": message,
                    }
                )
    return found


def prepare(client: RecordingClient, workspace: Path) -> str:
    (workspace / "app.py").write_text(APP)
    (workspace / "lib.py").write_text(LIB)
    notes = "# LINT: old note\n"
    (workspace / "notes.py").write_text(notes)
    client.double.lint = lint
    return client.double.open(workspace / "notes.py", notes)


@pytest.mark.parametrize("configured_editor", [{"diagnostics": True}], indirect=True)
async def test_new_problems_reach_the_model_and_old_ones_do_not(
    configured_editor: RecordingClient, workspace: Path, model: ScriptedModelServer
):
    client = configured_editor
    notes = prepare(client, workspace)
    model.load(SCRIPT)

    result = await run(client, "Tidy up")

    assert result["stopReason"] == "end_turn"
    edit, command, fix = (tool_results(r.body)[0]["content"] for r in model.requests[1:4])
    assert edit.splitlines()[1:] == [
        "The editor reports 1 new problem in app.py after this change:",
        "- app.py:5:8 error: unterminated string [double-lint]",
    ]
    assert "old problem" not in edit
    assert command.endswith(
        "The editor reports 1 new problem in lib.py after this change:\n"
        "- lib.py:3:1 warning: slow loop [double-lint]"
    )
    assert "The editor reports" not in fix and "old note" not in fix
    notices = [e["message"] for e in events_of(client, "notice")]
    assert notices == ["1 new problem in app.py", "1 new problem in lib.py"]

    # Before each call what the editor knows now, after it once it settled.
    asked = client.double.diagnostics_asked
    app, lib = (workspace / "app.py").as_uri(), (workspace / "lib.py").as_uri()
    assert asked[0] == {"uris": [app], "wait": False}
    assert asked[1] == {"uris": [app], "wait": True}
    assert asked[2]["wait"] is False and set(asked[2]["uris"]) == {notes, app}
    assert asked[3] == {"uris": [lib], "wait": True}  # what the checkpoints saw change
    assert asked[4:] == [{"uris": [notes], "wait": False}, {"uris": [notes], "wait": True}]


@pytest.mark.parametrize("configured_editor", [{"diagnostics": True}], indirect=True)
async def test_without_checkpoints_a_command_is_checked_against_the_files_watched(
    configured_editor: RecordingClient, workspace: Path, model: ScriptedModelServer
):
    from tests.support.lsp import push_settings

    client = configured_editor
    await push_settings(client, model, {"checkpoints": {"enabled": False}})
    notes = prepare(client, workspace)
    model.load(
        script_of(
            reply(tool("bash", {"command": "printf '# LINT-WARN: slow loop\\n' >> lib.py"})),
            reply(text("Done.")),
        )
    )
    await run(client, "Append")
    # lib.py is neither open nor known for problems: the editor is asked about the open
    # document only, before and after, and nothing is claimed for lib.py.
    assert client.double.diagnostics_asked == [
        {"uris": [notes], "wait": False},
        {"uris": [notes], "wait": True},
    ]
    assert "The editor reports" not in tool_results(model.requests[1].body)[0]["content"]


async def test_a_client_without_the_capability_is_never_asked(
    editor: RecordingClient, workspace: Path, model: ScriptedModelServer
):
    prepare(editor, workspace)
    model.load(SCRIPT)
    result = await run(editor, "Tidy up")
    assert result["stopReason"] == "end_turn"
    assert (workspace / "app.py").read_text().endswith("# LINT: unterminated string\n")
    assert editor.double.diagnostics_asked == []
    for request in model.requests[1:4]:
        assert "The editor reports" not in tool_results(request.body)[0]["content"]
    assert events_of(editor, "notice") == []

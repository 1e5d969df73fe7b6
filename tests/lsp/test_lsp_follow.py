"""followAgent over LSP with the real server: the editor is asked to show each file the
agent edits (window/showDocument), without focus, with the edit selected; only when the
setting is on and the client supports it."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.client import RecordingClient
from tests.support.lsp import push_settings, run, wait_for

GREETING = "def greet():\n    return 'hi'\n"
EDITS = script_of(
    reply(tool("edit_file", {"path": "app.py", "old_text": "'hi'", "new_text": "'hello'"})),
    reply(tool("write_file", {"path": "notes/todo.txt", "content": "one\ntwo\n"})),
    reply(tool("edit_file", {"path": "dos.txt", "old_text": "b", "new_text": "B!"})),
    reply(tool("edit_file", {"path": "app.py", "old_text": "not there", "new_text": "x"})),
    reply(text("Done.")),
)


def span(sl: int, sc: int, el: int, ec: int) -> types.Range:
    return types.Range(start=types.Position(sl, sc), end=types.Position(el, ec))


async def test_the_editor_shows_each_edit_without_focus(
    editor: RecordingClient, workspace: Path, model: ScriptedModelServer
):
    await push_settings(editor, model, {"followAgent": True})
    (workspace / "app.py").write_text(GREETING)
    (workspace / "dos.txt").write_bytes(b"a\r\nb\r\nc\r\n")
    app = editor.double.open(workspace / "app.py", GREETING)
    model.load(EDITS)

    result = await run(editor, "Make the greeting friendlier and take notes")

    assert result["stopReason"] == "end_turn"
    shown = editor.shown_documents  # pytest-lsp's client keeps them
    await wait_for(lambda: len(shown) >= 3, what="three showDocument requests")
    assert [(s.uri, s.take_focus, s.external, s.selection) for s in shown] == [
        # The open buffer, at the changed characters: 'h|ello|' on line 2.
        (app, False, None, span(1, 13, 1, 17)),
        # A new file: all of it.
        ((workspace / "notes" / "todo.txt").as_uri(), False, None, span(0, 0, 2, 0)),
        # A file on disk with CRLF line ends, not open: line 2 as the file has it.
        ((workspace / "dos.txt").as_uri(), False, None, span(1, 0, 1, 2)),
    ]
    # The failed edit (old text not found) showed nothing.
    assert editor.double.texts[app] == "def greet():\n    return 'hello'\n"


async def test_nothing_is_shown_without_the_setting(
    editor: RecordingClient, workspace: Path, model: ScriptedModelServer
):
    (workspace / "app.py").write_text(GREETING)
    (workspace / "dos.txt").write_bytes(b"a\r\nb\r\nc\r\n")
    model.load(EDITS)
    await run(editor, "Make the greeting friendlier")
    assert (workspace / "notes" / "todo.txt").read_text() == "one\ntwo\n"
    assert editor.shown_documents == []


@pytest.mark.parametrize("configured_editor", [{"show_document": False}], indirect=True)
async def test_a_client_without_show_document_is_not_asked(
    configured_editor: RecordingClient, workspace: Path, model: ScriptedModelServer
):
    await push_settings(configured_editor, model, {"followAgent": True})
    (workspace / "app.py").write_text(GREETING)
    (workspace / "dos.txt").write_bytes(b"a\r\nb\r\nc\r\n")
    model.load(EDITS)
    await run(configured_editor, "Make the greeting friendlier")
    assert (workspace / "app.py").read_text() == "def greet():\n    return 'hello'\n"
    assert configured_editor.shown_documents == []

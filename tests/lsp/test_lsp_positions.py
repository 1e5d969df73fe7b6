"""Positions end to end: the editor's incremental changes reach the server's copy of a
buffer exactly, and the server's edits land exactly in the editor's buffer, whatever line
breaks and characters come before them, in every position encoding a client can choose.
The editor double resolves positions by the LSP rules on its own (tests/support/editor_double.py).
"""

from __future__ import annotations

import itertools
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lsprotocol import types

from workspace_agent.lsp.documents import SYNC_WAIT_SECONDS
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.client import RecordingClient
from tests.support.editor_double import EditorDouble, position_of
from tests.support.lsp import events_of, run, tool_results

# Before TARGET: every break str.splitlines knows and LSP does not, a lone "\r", a
# "\r\n", and characters of two UTF-16 units.
BEFORE = "page one\fpage two\u2028still line 1\x85and more\rline 2 😀\r\nline 3 \U0001d11e "
ORIGINAL = BEFORE + "TARGET = 'old'\nlast = 1\n"


def double(client: RecordingClient) -> EditorDouble:
    return client.double


@pytest.mark.parametrize(
    ("configured_editor", "encoding"),
    [
        ({}, "utf-16"),
        ({"encodings": ["utf-8", "utf-16"]}, "utf-8"),
        ({"encodings": ["utf-32"]}, "utf-32"),
        ({"encodings": ["utf-7"]}, "utf-16"),
        ({"document_changes": False}, "utf-16"),
    ],
    indirect=["configured_editor"],
    ids=["utf-16", "utf-8", "utf-32", "unknown-offer", "plain-changes"],
)
async def test_an_edit_after_form_feeds_and_unicode_breaks_lands_exactly(
    configured_editor: RecordingClient,
    model: ScriptedModelServer,
    workspace: Path,
    encoding: str,
):
    editor = double(configured_editor)
    capabilities = editor.server_capabilities
    assert capabilities is not None
    assert capabilities.position_encoding == encoding
    sync = capabilities.text_document_sync
    assert isinstance(sync, types.TextDocumentSyncOptions) and sync.open_close
    assert sync.change == types.TextDocumentSyncKind.Incremental
    source = workspace / "app.py"
    source.write_text(ORIGINAL, newline="")
    uri = editor.open(source, ORIGINAL)
    # The user types on line 2 (after the lone "\r"): an incremental change.
    typed = ORIGINAL.replace("line 2 😀", "line 2 😀 # typed 🎉\u2029")
    editor.type(uri, typed)
    model.load(
        script_of(
            reply(
                tool(
                    "edit_file",
                    {"path": "app.py", "old_text": "TARGET = 'old'", "new_text": "TARGET = 'né𝄞'"},
                )
            ),
            reply(tool("bash", {"command": "cat app.py"})),
            reply(text("Done.")),
        )
    )
    await run(configured_editor, "Change TARGET")

    expected = typed.replace("TARGET = 'old'", "TARGET = 'né𝄞'")
    assert editor.texts[uri] == expected
    assert source.read_bytes() == expected.encode()  # saved before the command ran
    (edit,) = editor.edits
    if editor.document_changes:
        assert edit.edit.changes is None
        ((_, sent),) = [(c.text_document, c.edits) for c in edit.edit.document_changes]
    else:
        assert edit.edit.document_changes is None
        sent = edit.edit.changes[uri]
    start = typed.index("TARGET")
    line, character = position_of(typed, start, encoding)
    assert line == 2  # by LSP; str.splitlines would say 6
    assert sent[0].range.start == types.Position(line, character)
    assert sent[0].range.end == types.Position(line, character + len("TARGET = 'old'"))
    assert tool_results(model.requests[1].body)[0]["content"].startswith(
        "Edited app.py in the editor"
    )


async def test_the_servers_copy_follows_incremental_changes(
    editor_without_save: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    """The server writes its own copy of the buffer to disk (no save support): it must be
    the editor's text after changes around every kind of line break."""
    client = editor_without_save
    editor = double(client)
    source = workspace / "notes.txt"
    source.write_text(ORIGINAL, newline="")
    uri = editor.open(source, ORIGINAL)
    steps = [
        ORIGINAL.replace("\r\n", "\r\n\r\n", 1),  # a new line between "\r\n"s
        ORIGINAL.replace("\r", "\r\n", 1),  # a lone "\r" becomes "\r\n"
        ORIGINAL.replace("\x85", "").replace("\f", "\n"),  # break kinds swapped
        ORIGINAL.replace("\rline 2", "\nline 2"),
        "😀\r" + ORIGINAL + "\r",
    ]
    for step in steps:
        editor.type(uri, step)
    editor.replace_all(uri, steps[-1] + "tail")
    editor.type(uri, steps[-1] + "tail\u2028\r\nend")
    model.load(
        script_of(
            reply(tool("edit_file", {"path": "notes.txt", "old_text": "end", "new_text": "END"})),
            reply(tool("bash", {"command": "true"})),
            reply(text("ok")),
        )
    )
    await run(client, "Edit")

    expected = steps[-1] + "tail\u2028\r\nEND"
    assert editor.texts[uri] == expected
    assert source.read_bytes() == expected.encode()


# -- property: random buffers, random typing, random unique edits ----------------------

PIECES = ["\n", "\r\n", "\r", "\f", "\v", "\x1c", "\x1e", "\x85", "\u2028", "\u2029"]
PIECES += ["a", "b", "c", "=", " ", "é", "€", "中", "😀", "𝄞"]
buffers = st.lists(st.sampled_from(PIECES), min_size=1, max_size=60).map("".join)
# The model writes "\n" and the server turns it into a CRLF file's "\r\n": new texts here
# carry every other break, so the expected text stays simple.
new_texts = st.lists(st.sampled_from([p for p in PIECES if p not in ("\n", "\r\n")]), max_size=6)
_names = itertools.count()


def unique_span(buffer: str, data: st.DataObject) -> tuple[int, int] | None:
    """A span whose text occurs exactly once in `buffer` (what edit_file accepts)."""
    spans = [
        (start, end)
        for start in range(len(buffer))
        for end in range(start + 1, min(len(buffer), start + 8) + 1)
        if buffer.find(buffer[start:end]) == start and buffer.find(buffer[start:end], start + 1) < 0
    ]
    return data.draw(st.sampled_from(spans)) if spans else None


@settings(max_examples=15, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(buffers, st.lists(buffers, max_size=3), st.data())
async def test_random_typing_and_edits_through_the_server(
    editor_without_save: RecordingClient,
    model: ScriptedModelServer,
    workspace: Path,
    original: str,
    typing: list[str],
    data: st.DataObject,
):
    client = editor_without_save
    editor = double(client)
    source = workspace / f"random{next(_names)}.txt"
    source.write_text(original, newline="")
    uri = editor.open(source, original)
    for typed in typing:
        editor.type(uri, typed)
    buffer = typing[-1] if typing else original
    calls: list[dict[str, Any]] = []
    for _ in range(data.draw(st.integers(1, 3))):
        span = unique_span(buffer, data)
        if span is None:
            break
        new = "".join(data.draw(new_texts))
        old = buffer[span[0] : span[1]]
        calls.append(tool("edit_file", {"path": source.name, "old_text": old, "new_text": new}))
        buffer = buffer[: span[0]] + new + buffer[span[1] :]
    model.load(
        script_of(
            *(reply(call) for call in calls),
            reply(tool("bash", {"command": "true"})),
            reply(text("ok")),
        )
    )
    await run(client, "Edit")

    results = [
        r for request in model.requests[-len(calls) - 1 :] for r in tool_results(request.body)
    ]
    assert not any(r.get("is_error") for r in results), results
    assert editor.texts[uri] == buffer
    assert source.read_bytes() == buffer.encode()  # the server's own copy, written out


# -- waiting for the editor's didChange (no polling) ------------------------------------


async def test_an_edit_that_changes_nothing_sends_nothing_and_does_not_wait(
    editor: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    client = editor
    source = workspace / "same.py"
    source.write_text("x = 1\n")
    uri = double(client).open(source, "x = 1\n")
    double(client).type(uri, "x = 1\ny = 2\n")  # unsaved: the no-op edit still saves it
    double(client).sync_delay = None  # an editor reports no change for an edit without one
    model.load(
        script_of(
            reply(tool("edit_file", {"path": "same.py", "old_text": "y = 2", "new_text": "y = 2"})),
            reply(tool("bash", {"command": "cat same.py"})),
            reply(text("ok")),
        )
    )
    await run(client, "Edit nothing")

    assert double(client).edits == []
    assert tool_results(model.requests[1].body)[0]["content"].startswith("Edited same.py")
    assert tool_results(model.requests[2].body)[0]["content"] == "x = 1\ny = 2\n[exit status 0]"
    call, result = events_of(client, "toolCall")[0], events_of(client, "toolResult")[0]
    assert result["_at"] - call["_at"] < SYNC_WAIT_SECONDS  # the old code waited this long


async def test_the_edit_result_waits_for_a_late_did_change(
    editor: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    client = editor
    source = workspace / "late.py"
    source.write_text("value = 1\n")
    uri = double(client).open(source, "value = 1\n")
    double(client).sync_delay = 0.5
    model.load(
        script_of(
            reply(
                tool("edit_file", {"path": "late.py", "old_text": "1", "new_text": "2"}),
                tool(
                    "edit_file", {"path": "late.py", "old_text": "value = 2", "new_text": "v = 3"}
                ),
            ),
            reply(text("ok")),
        )
    )
    await run(client, "Edit twice")

    first, second = tool_results(model.requests[1].body)
    assert "is_error" not in first and "is_error" not in second, (first, second)
    assert double(client).texts[uri] == "v = 3\n"
    assert [c.text_document.version for c in double(client).changes] == [2, 3]
    assert len(double(client).edits) == 2
    # The second edit was made on the text after the first (version 2).
    assert double(client).edits[1].edit.document_changes[0].text_document.version == 2


async def test_an_edit_the_editor_never_reports_times_out_and_blocks_the_next(
    editor: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    client = editor
    source = workspace / "silent.py"
    source.write_text("a = 1\nb = 1\n")
    uri = double(client).open(source, "a = 1\nb = 1\n")
    double(client).sync_delay = None  # applies edits, never sends didChange
    model.load(
        script_of(
            reply(
                tool("edit_file", {"path": "silent.py", "old_text": "a = 1", "new_text": "a = 2"})
            ),
            reply(
                tool("edit_file", {"path": "silent.py", "old_text": "b = 1", "new_text": "b = 2"})
            ),
            reply(text("ok")),
        )
    )
    started = time.monotonic()
    await run(client, "Edit")

    assert time.monotonic() - started >= 2 * SYNC_WAIT_SECONDS
    (first,) = tool_results(model.requests[1].body)
    assert "is_error" not in first
    (second,) = tool_results(model.requests[2].body)
    assert second["is_error"] is True
    assert second["content"] == (
        "the editor has not reported the agent's previous edit of silent.py yet; nothing "
        "was applied. Read the file again and redo the edit."
    )
    assert double(client).texts[uri] == "a = 2\nb = 1\n"
    assert len(double(client).edits) == 1

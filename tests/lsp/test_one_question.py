"""One approval question per file change, saying what will really happen, end to end
through the real server with an editor-like client: with and without
`workspace.applyEdit`, on documents open in the editor and on files only on disk.

Every question the user sees is a `window/showMessageRequest`; the tests count them and
read them, then check the editor's buffers and the bytes on disk.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest_lsp
from lsprotocol import types

from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.client import RecordingClient, server_config, start_session
from tests.support.editor_double import EditorDouble
from tests.support.lsp import run, tool_results

ASKED = "Workspace Agent wants to {}."
CANNOT_EDIT = "it is open in an editor that cannot take edits, so it is written on disk"


@pytest_lsp.fixture(config=server_config())
async def editor_without_apply_edit(
    lsp_client: RecordingClient, workspace: Path, model: ScriptedModelServer
):
    """An editor that syncs its documents but does not announce `workspace.applyEdit`
    (nor saveDocuments), as some LSP clients do."""
    double = EditorDouble(lsp_client, saves=False)
    capabilities = double.capabilities()
    assert capabilities.workspace is not None
    capabilities.workspace.apply_edit = False
    await start_session(lsp_client, workspace, model, capabilities, double)
    yield
    await lsp_client.shutdown_session()


def ask_before_writes(client: RecordingClient, model: ScriptedModelServer) -> None:
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={"workspaceAgent": {"baseUrl": model.url, "approvals": {"write": "ask"}}}
        )
    )


def results(model: ScriptedModelServer) -> list[str]:
    return [r["content"] for req in model.requests[1:] for r in tool_results(req.body)]


def five_changes_and_a_declined_one(workspace: Path, double: EditorDouble) -> dict[str, str]:
    """Files for the scripted run below: three open in the editor, with unsaved changes
    the user typed, and two only on disk. Returns the URIs of the open ones."""
    uris = {}
    for name in ("open_write.txt", "open_edit.txt", "open_declined.txt"):
        (workspace / name).write_text("alpha\nbeta\n")
        uris[name] = double.open(workspace / name, "alpha\nbeta\n")
        double.type(uris[name], "typed, unsaved\nalpha\nbeta\n")
    (workspace / "disk_write.txt").write_text("old\n")
    (workspace / "disk_edit.txt").write_text("alpha\nbeta\n")
    return uris


SCRIPT = script_of(
    reply(tool("write_file", {"path": "open_write.txt", "content": "rewritten\nfully\n"})),
    reply(tool("edit_file", {"path": "open_edit.txt", "old_text": "beta", "new_text": "BETA"})),
    reply(tool("write_file", {"path": "disk_write.txt", "content": "new\n"})),
    reply(tool("edit_file", {"path": "disk_edit.txt", "old_text": "beta", "new_text": "BETA"})),
    reply(tool("write_file", {"path": "fresh.txt", "content": "created\n"})),
    reply(tool("edit_file", {"path": "open_declined.txt", "old_text": "alpha", "new_text": "x"})),
    reply(text("Done.")),
)


async def test_an_editor_that_applies_edits_is_asked_once_per_change(
    editor: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    double = editor.double
    ask_before_writes(editor, model)
    uris = five_changes_and_a_declined_one(workspace, double)
    double.answers = ["Allow"] * 5 + ["Deny"]
    model.load(SCRIPT)
    await run(editor, "Change the files")

    assert len(double.questions) == 6  # one per tool call
    assert double.questions == [
        ASKED.format(question)
        for question in (
            "overwrite open_write.txt in the editor (2 lines)",
            "edit open_edit.txt in the editor: change 1 line",
            "overwrite disk_write.txt (1 lines)",
            "edit disk_edit.txt: change 1 line",
            "create fresh.txt (1 lines)",
            "edit open_declined.txt in the editor: change 1 line",
        )
    ]
    assert results(model) == [
        "Wrote open_write.txt in the editor (2 lines)",
        "Edited open_edit.txt in the editor: replaced 1 occurrence (now lines 3-3)",
        "Overwrote disk_write.txt (1 lines, 4 bytes)",
        "Edited disk_edit.txt: replaced 1 occurrence (now lines 2-2)",
        "Created fresh.txt (1 lines, 8 bytes)",
        "the user declined to let the agent edit open_declined.txt in the editor: change 1 line",
    ]
    # Open documents changed in the editor only (no command ran, so nothing was saved).
    assert double.texts[uris["open_write.txt"]] == "rewritten\nfully\n"
    assert double.texts[uris["open_edit.txt"]] == "typed, unsaved\nalpha\nBETA\n"
    assert double.texts[uris["open_declined.txt"]] == "typed, unsaved\nalpha\nbeta\n"
    for name in ("open_write.txt", "open_edit.txt", "open_declined.txt"):
        assert (workspace / name).read_text() == "alpha\nbeta\n"
    assert (workspace / "disk_write.txt").read_text() == "new\n"
    assert (workspace / "disk_edit.txt").read_text() == "alpha\nBETA\n"
    assert (workspace / "fresh.txt").read_text() == "created\n"
    assert len(double.edits) == 2


async def test_an_editor_without_apply_edit_is_asked_once_and_told_the_disk_is_written(
    editor_without_apply_edit: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    client = editor_without_apply_edit
    double = client.double
    ask_before_writes(client, model)
    uris = five_changes_and_a_declined_one(workspace, double)
    double.answers = ["Allow"] * 5 + ["Deny"]
    model.load(SCRIPT)
    await run(client, "Change the files")

    assert len(double.questions) == 6  # one per tool call, the fallback to disk included
    declined = f"edit open_declined.txt: change 1 line ({CANNOT_EDIT} with its unsaved changes)"
    assert double.questions == [
        ASKED.format(question)
        for question in (
            f"overwrite open_write.txt (2 lines; {CANNOT_EDIT})",
            f"edit open_edit.txt: change 1 line ({CANNOT_EDIT} with its unsaved changes)",
            "overwrite disk_write.txt (1 lines)",
            "edit disk_edit.txt: change 1 line",
            "create fresh.txt (1 lines)",
            declined,
        )
    ]
    assert results(model) == [
        "Overwrote open_write.txt (2 lines, 16 bytes)",
        "Edited open_edit.txt: replaced 1 occurrence (now lines 3-3)",
        "Overwrote disk_write.txt (1 lines, 4 bytes)",
        "Edited disk_edit.txt: replaced 1 occurrence (now lines 2-2)",
        "Created fresh.txt (1 lines, 8 bytes)",
        f"the user declined to let the agent {declined}",
    ]
    assert double.edits == []  # never sent to a client that cannot apply them
    assert (workspace / "open_write.txt").read_text() == "rewritten\nfully\n"
    # The edit applies to the text the user sees, which the question said goes to disk.
    assert (workspace / "open_edit.txt").read_text() == "typed, unsaved\nalpha\nBETA\n"
    assert (workspace / "open_declined.txt").read_text() == "alpha\nbeta\n"
    assert double.texts[uris["open_declined.txt"]] == "typed, unsaved\nalpha\nbeta\n"
    assert (workspace / "disk_write.txt").read_text() == "new\n"
    assert (workspace / "disk_edit.txt").read_text() == "alpha\nBETA\n"
    assert (workspace / "fresh.txt").read_text() == "created\n"


async def test_an_unchanged_open_buffer_is_not_said_to_have_unsaved_changes(
    editor_without_apply_edit: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    client = editor_without_apply_edit
    (workspace / "clean.txt").write_bytes(b"one\r\ntwo\r\n")
    client.double.open(workspace / "clean.txt", "one\r\ntwo\r\n")
    ask_before_writes(client, model)
    client.double.answers = ["Allow"]
    model.load(
        script_of(
            reply(
                tool(
                    "edit_file",
                    {"path": "clean.txt", "old_text": "two", "new_text": "2\nthree"},
                )
            ),
            reply(text("ok")),
        )
    )
    await run(client, "Edit")

    assert client.double.questions == [
        ASKED.format(f"edit clean.txt: replace 1 line with 2 ({CANNOT_EDIT})")
    ]
    assert results(model) == ["Edited clean.txt: replaced 1 occurrence (now lines 2-3)"]
    assert (workspace / "clean.txt").read_bytes() == b"one\r\n2\r\nthree\r\n"


async def test_what_changed_while_the_question_was_open_is_never_overwritten(
    editor_without_apply_edit: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    """The user saves the file, or types in the open buffer, while the approval question
    is open: the change planned on the older text is refused after "Allow", not written."""
    client = editor_without_apply_edit
    double = client.double
    ask_before_writes(client, model)
    (workspace / "saved.txt").write_text("v1\n")
    (workspace / "typed.txt").write_text("v1\n")
    uri = double.open(workspace / "typed.txt", "v1\n")
    model.load(
        script_of(
            reply(tool("edit_file", {"path": "saved.txt", "old_text": "v1", "new_text": "agent"})),
            reply(tool("edit_file", {"path": "typed.txt", "old_text": "v1", "new_text": "agent"})),
            reply(text("ok")),
        )
    )
    loop = asyncio.get_running_loop()
    double.hold = loop.create_future()
    pending = asyncio.ensure_future(run(client, "Edit"))
    await asyncio.wait_for(double.asked.wait(), 30)
    (workspace / "saved.txt").write_text("v2 saved by the user\n")
    double.asked.clear()
    double.answers = ["Allow", "Allow"]
    held, double.hold = double.hold, loop.create_future()
    held.set_result(None)
    await asyncio.wait_for(double.asked.wait(), 30)
    double.type(uri, "v1\nv2 typed by the user\n")
    double.hold.set_result(None)
    await asyncio.wait_for(pending, 30)

    assert len(double.questions) == 2
    assert results(model) == [
        "saved.txt changed on disk while the agent was waiting for approval; nothing was "
        "written. Read the file again and redo the change.",
        "typed.txt changed in the editor while the agent was waiting for approval; nothing "
        "was written. Read the file again and redo the edit.",
    ]
    assert (workspace / "saved.txt").read_text() == "v2 saved by the user\n"
    assert (workspace / "typed.txt").read_text() == "v1\n"
    assert double.texts[uri] == "v1\nv2 typed by the user\n"

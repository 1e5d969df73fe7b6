"""Editor-native file access, approvals and safety, end to end through the real server.

The client here behaves like an editor (tests/support/editor_double.py): it has documents open
with unsaved changes and applies or refuses the server's workspace edits.
"""

from __future__ import annotations

import asyncio
import stat
from pathlib import Path

from lsprotocol import types

from workspace_agent import protocol as p
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.client import RecordingClient
from tests.support.lsp import command, events_of, run, settings, tool_results
from tests.support.server import TEST_KEY


async def test_open_buffers_are_read_and_edited_through_the_editor(
    editor: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    source = workspace / "app.py"
    source.write_text("def main():\n    s = '😀'; return 1\n")
    uri = editor.double.open(source, "def main():\n    s = '😀'; return 1\n")
    editor.double.type(uri, "# my unsaved note\ndef main():\n    s = '😀'; return 1\n")
    model.load(
        script_of(
            reply(tool("read_file", {"path": "app.py"})),
            reply(
                tool(
                    "edit_file",
                    {
                        "path": "app.py",
                        "old_text": "return 1",
                        "new_text": "return 'ünïcode' + str(2)",
                    },
                )
            ),
            reply(tool("bash", {"command": "cat app.py"})),
            reply(text("Done.")),
        )
    )
    await run(editor, "Change the return value")

    read = tool_results(model.requests[1].body)[0]["content"]
    assert read.splitlines()[:2] == [
        "app.py: lines 1-3 of 3 (open in the editor)",
        "     1\t# my unsaved note",
    ]
    (edit,) = editor.double.edits
    (change,) = edit.edit.document_changes
    assert change.text_document.version == 2 and edit.label == "Workspace Agent: app.py"
    # Columns are UTF-16 code units: the emoji counts twice.
    assert change.edits[0].range == types.Range(
        start=types.Position(2, 14), end=types.Position(2, 22)
    )
    assert tool_results(model.requests[2].body)[0]["content"] == (
        "Edited app.py in the editor: replaced 1 occurrence (now lines 3-3)"
    )
    expected = "# my unsaved note\ndef main():\n    s = '😀'; return 'ünïcode' + str(2)\n"
    assert editor.double.texts[uri] == expected  # the user's unsaved line survived
    # Before the command ran, the editor was asked to save, and the command saw the edit.
    assert editor.double.saved == [[uri]]
    assert tool_results(model.requests[3].body)[0]["content"] == expected + "[exit status 0]"
    assert source.read_text() == expected


async def test_without_save_support_the_server_writes_the_buffer_before_commands(
    editor_without_save: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    client = editor_without_save
    source = workspace / "notes.txt"
    source.write_bytes(b"alpha\r\nbeta\r\n")
    source.chmod(0o640)
    uri = client.double.open(source, "alpha\r\nbeta\r\n")
    model.load(
        script_of(
            reply(
                tool(
                    "edit_file",
                    {"path": "notes.txt", "old_text": "beta\n", "new_text": "gamma\ndelta\n"},
                )
            ),
            reply(tool("bash", {"command": "od -c notes.txt | head -n 3"})),
            reply(text("ok")),
        )
    )
    await run(client, "Edit notes")

    assert client.double.texts[uri] == "alpha\r\ngamma\r\ndelta\r\n"
    assert source.read_bytes() == b"alpha\r\ngamma\r\ndelta\r\n"
    assert stat.S_IMODE(source.stat().st_mode) == 0o640
    assert "\\r  \\n" in tool_results(model.requests[2].body)[0]["content"]


async def test_a_buffer_changed_under_the_agent_is_never_clobbered(
    editor: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    source = workspace / "story.md"
    source.write_text("once upon a time\n")
    uri = editor.double.open(source, "once upon a time\n")
    editor.double.refuse_edits = True  # as VS Code does when the version moved on
    model.load(
        script_of(
            reply(tool("edit_file", {"path": "story.md", "old_text": "once", "new_text": "twice"})),
            reply(
                tool("edit_file", {"path": "story.md", "old_text": "a time", "new_text": "the end"})
            ),
            reply(text("ok")),
        )
    )
    await run(editor, "Edit the story")

    (refused,) = tool_results(model.requests[1].body)
    assert refused["is_error"] is True
    assert refused["content"] == (
        "story.md changed in the editor while the agent was editing it (document version changed); "
        "nothing was applied. Read the file again and redo the edit."
    )
    assert editor.double.texts[uri] == "once upon a time\n"
    assert source.read_text() == "once upon a time\n"


async def test_files_on_disk_keep_crlf_mode_and_binary_is_refused(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    script = workspace / "build.sh"
    script.write_bytes(b"#!/bin/sh\r\necho old\r\n")
    script.chmod(0o755)
    (workspace / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    model.load(
        script_of(
            reply(
                tool(
                    "edit_file",
                    {
                        "path": "build.sh",
                        "old_text": "echo old\n",
                        "new_text": "echo new\necho two\n",
                    },
                ),
                tool("write_file", {"path": "logo.png", "content": "not a png"}),
                tool("read_file", {"path": "logo.png"}),
            ),
            reply(text("ok")),
        )
    )
    await run(client, "Edit")

    edited, refused, described = tool_results(model.requests[1].body)
    assert "is_error" not in edited
    assert script.read_bytes() == b"#!/bin/sh\r\necho new\r\necho two\r\n"
    assert stat.S_IMODE(script.stat().st_mode) == 0o755
    assert refused["is_error"] and "logo.png is a binary file" in refused["content"]
    assert (workspace / "logo.png").read_bytes().startswith(b"\x89PNG")
    assert described["content"] == (  # a PNG header and no more: not an image the model can see
        "logo.png looks like a PNG image but is corrupt or cut short (its header has no valid "
        "size); save or export it again. Its contents are not shown."
    )


async def test_approvals_allow_deny_and_allow_for_the_session(
    editor: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    settings(editor, model, bash="ask", write="ask")
    editor.double.answers = ["Allow", "Deny", "Allow for this session", None]
    model.load(
        script_of(
            reply(tool("bash", {"command": "echo first"})),
            reply(tool("bash", {"command": "echo second"})),
            reply(tool("bash", {"command": "echo third"})),
            reply(tool("bash", {"command": "echo fourth"})),
            reply(tool("write_file", {"path": "out.txt", "content": "data\n"})),
            reply(text("ok")),
        )
    )
    await run(editor, "Run some commands")

    results = [tool_results(r.body)[0] for r in model.requests[1:]]
    assert results[0]["content"] == "first\n[exit status 0]"
    del results[1]["cache_control"]  # the prompt-cache breakpoint on the conversation tail
    assert results[1] == {
        "type": "tool_result",
        "tool_use_id": results[1]["tool_use_id"],
        "is_error": True,
        "content": "the user declined to let the agent run `echo second`",
    }
    assert results[2]["content"] == "third\n[exit status 0]"
    assert results[3]["content"] == "fourth\n[exit status 0]"  # not asked again
    assert results[4]["content"] == "the user declined to let the agent create out.txt (1 lines)"
    assert editor.double.questions == [
        "Workspace Agent wants to run `echo first`.",
        "Workspace Agent wants to run `echo second`.",
        "Workspace Agent wants to run `echo third`.",
        "Workspace Agent wants to create out.txt (1 lines).",
    ]
    assert not (workspace / "out.txt").exists()


async def test_deny_policy_and_cancel_while_asking(
    editor: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    settings(editor, model, bash="deny", write="ask")
    model.load(
        script_of(
            reply(tool("bash", {"command": "echo hi"})),
            reply(tool("write_file", {"path": "never.txt", "content": "x"})),
            reply(text("Continuing after the cancel.")),
        )
    )
    editor.double.hold = asyncio.get_running_loop().create_future()
    session_id = (await command(editor, p.NEW_SESSION_COMMAND))["sessionId"]
    pending = asyncio.ensure_future(run(editor, "Try things", session_id))
    await asyncio.wait_for(editor.double.asked.wait(), 10)
    await command(editor, p.CANCEL_COMMAND, {"sessionId": session_id})
    result = await pending
    editor.double.hold.cancel()

    assert result["stopReason"] == "cancelled"
    assert not (workspace / "never.txt").exists()
    assert tool_results(model.requests[1].body)[0]["content"] == (
        "not allowed: the workspaceAgent.approvals setting denies running commands (bash: deny)"
    )
    await run(editor, "Go on", session_id)
    (declined,) = tool_results(model.requests[-1].body)
    assert declined["is_error"] is True
    assert declined["content"] == (
        "the user declined to let the agent create never.txt (1 lines) "
        "(no answer before the run was cancelled)"
    )


async def test_refused_commands_are_never_run_or_asked(
    editor: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    settings(editor, model, bash="ask")
    editor.double.answers = ["Allow for this session"]
    (workspace / "README").write_text("use sudo with care\n")
    model.load(
        script_of(
            reply(
                tool("bash", {"command": "sudo  rm -rf /tmp/x"}),
                tool("bash", {"command": "cd /tmp && rm -rf ~"}),
                tool("bash", {"command": "echo ok | bash -c 'doas reboot'"}),
                tool("bash", {"command": ":(){ :|:& };:"}),
                tool("bash", {"command": "dd if=/dev/zero of=/dev/sda bs=1M"}),
                tool("bash", {"command": "grep sudo README"}),
            ),
            reply(text("ok")),
        )
    )
    await run(editor, "Dangerous things")

    results = [r["content"] for r in tool_results(model.requests[1].body)]
    assert results[:5] == [
        "refused: this command is never run because it escalates privileges (sudo)",
        "refused: this command is never run because it deletes ~ recursively",
        "refused: this command is never run because it escalates privileges (doas)",
        "refused: this command is never run because it is a fork bomb",
        "refused: this command is never run because it writes to a disk device with dd",
    ]
    assert results[5] == "use sudo with care\n[exit status 0]"
    assert editor.double.questions == ["Workspace Agent wants to run `grep sudo README`."]


async def test_the_api_key_never_leaves_the_server(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    (workspace / ".env").write_text(f"ANTHROPIC_API_KEY={TEST_KEY}\n")
    model.load(
        script_of(
            reply(
                tool("bash", {"command": "env"}),
                tool("bash", {"command": "printenv ANTHROPIC_API_KEY"}),
                tool("bash", {"command": "cat .env"}),
                tool("read_file", {"path": ".env"}),
            ),
            reply(text("ok")),
        )
    )
    await run(client, "Show me the environment")

    results = [r["content"] for r in tool_results(model.requests[1].body)]
    assert "PATH=" in results[0] and "ANTHROPIC_API_KEY" not in results[0]
    assert results[1] == "(no output)\n[exit status 1]"
    assert results[2] == "ANTHROPIC_API_KEY=[redacted]\n[exit status 0]"
    assert "ANTHROPIC_API_KEY=[redacted]" in results[3]
    everything = (
        repr(client.events) + repr(client.todos) + repr(client.log_messages) + repr(client.messages)
    )
    everything += "".join(repr(r.body) for r in model.requests)
    assert TEST_KEY not in everything
    assert (
        events_of(client, "toolResult")[2]["output"]
        == "ANTHROPIC_API_KEY=[redacted]\n[exit status 0]"
    )

"""The editor's context in runs, and the code actions that start runs with it, over LSP
with the real server: what reaches the model, what the client is offered, and when not."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from workspace_agent import protocol as p
from workspace_agent.lsp.code_actions import ASK_PROMPT
from workspace_agent.lsp.wire import to_plain
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of
from workspace_agent.testing.scripted_model import text as text_block

from tests.support.client import RecordingClient
from tests.support.lsp import command, events_of, push_settings, raw_request, run, wait_for

APP = "import json\n\n\ndef load(path):\n    with open(path) as f:\n        return json.load(f)\n"


def span(sl: int, sc: int, el: int, ec: int) -> dict[str, Any]:
    return {"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}}


def lsp_range(sl: int, sc: int, el: int, ec: int) -> types.Range:
    return types.Range(start=types.Position(sl, sc), end=types.Position(el, ec))


CONTEXT = {
    "activeFile": "src/app.py",
    "selection": {
        "path": "src/app.py",
        "range": span(3, 0, 5, 30),
        "text": "def load(path):\n    with open(path) as f:\n        return json.load(f)",
    },
    "diagnostics": [
        {
            "path": "src/app.py",
            "range": span(4, 9, 4, 13),
            "severity": 2,
            "message": "Using open without explicitly specifying an encoding",
            "source": "pylint",
            "code": "W1514",
        }
    ],
}


async def run_with(client: RecordingClient, prompt: str, context: Any) -> dict[str, Any]:
    return to_plain(
        await client.protocol.send_request_async(
            p.RUN_REQUEST, {"prompt": prompt, "context": context}
        )
    )


def user_blocks(model: ScriptedModelServer, index: int = 0) -> list[str]:
    """The text blocks of the first user message of the index-th model request."""
    first = model.requests[index].body["messages"][0]
    assert first["role"] == "user"
    return [block["text"] for block in first["content"] if block["type"] == "text"]


async def test_context_goes_ahead_of_the_prompt(
    client: RecordingClient, model: ScriptedModelServer
):
    model.load(script_of(reply(text_block("It loads JSON."))))

    result = await run_with(client, "What does load do?", CONTEXT)

    assert result["stopReason"] == "end_turn"
    block, prompt = user_blocks(model)
    assert prompt == "What does load do?"
    assert block.startswith("<editor-context>\n") and block.endswith("\n</editor-context>")
    assert "Active file: src/app.py" in block
    assert (
        "Selected in src/app.py, line 4, column 1 to line 6, column 31:\n```\n"
        "def load(path):\n    with open(path) as f:\n        return json.load(f)\n```"
    ) in block
    assert (
        "- src/app.py:5:10 warning: Using open without explicitly specifying an encoding "
        "[pylint W1514]"
    ) in block
    (start,) = events_of(client, "runStart")
    assert start["prompt"] == "What does load do?"
    assert start["attached"] == "selection src/app.py:4-6, 1 problem"


async def test_follow_up_without_context_adds_no_block(
    client: RecordingClient, model: ScriptedModelServer
):
    model.load(script_of(reply(text_block("One.")), reply(text_block("Two."))))
    first = await run_with(client, "First", {"activeFile": "a.py"})
    await run(client, "Second", first["sessionId"])

    messages = model.requests[1].body["messages"]
    assert [b["text"] for b in messages[0]["content"]][1] == "First"
    assert "<editor-context>" in messages[0]["content"][0]["text"]
    assert [b["text"] for b in messages[-1]["content"] if b["type"] == "text"] == ["Second"]
    assert "attached" not in events_of(client, "runStart")[1]


async def test_the_run_command_takes_context_too(
    client: RecordingClient, model: ScriptedModelServer
):
    model.load(script_of(reply(text_block("ok"))))
    await command(client, p.RUN_COMMAND, {"prompt": "Look", "context": {"activeFile": "b.txt"}})
    block, prompt = user_blocks(model)
    assert "Active file: b.txt" in block and prompt == "Look"


async def test_a_long_selection_is_cut_with_a_note(
    client: RecordingClient, model: ScriptedModelServer
):
    await push_settings(client, model, {"context": {"maxChars": 40}})
    model.load(script_of(reply(text_block("ok"))))
    selected = "".join(f"line {n:03}\n" for n in range(100))  # 900 characters
    context = {"selection": {"path": "big.txt", "range": span(9, 0, 109, 0), "text": selected}}

    await run_with(client, "Sum up", context)

    block, _ = user_blocks(model)
    assert selected[:40] in block and selected[:41] not in block
    assert (
        "[The selection was cut at 40 characters (setting workspaceAgent.context.maxChars); "
        "it spans lines 10-109 of big.txt: read the file for the rest.]"
    ) in block


async def test_selected_backticks_cannot_close_the_fence(
    client: RecordingClient, model: ScriptedModelServer
):
    model.load(script_of(reply(text_block("ok"))))
    selected = "Example:\n```\ncode\n````\n"
    context = {"selection": {"path": "README.md", "range": span(0, 0, 4, 0), "text": selected}}
    await run_with(client, "Fix", context)
    block, _ = user_blocks(model)
    assert f"`````\n{selected}\n`````" in block


async def test_bad_context_is_refused_and_nothing_runs(
    client: RecordingClient, model: ScriptedModelServer
):
    """Every bad context is refused by its parser (tests/unit/test_protocol.py); over LSP
    the request fails with -32602 and that message, and nothing runs."""
    context = {"selection": {"path": "a.py", "range": span(2, 0, 1, 0), "text": "x"}}
    message = "'context.selection.range' ends before it starts"
    with pytest.raises(JsonRpcInvalidParams, match=re.escape(message)):
        await run_with(client, "Go", context)
    assert model.requests == [] and events_of(client, "runStart") == []


# -- code actions ------------------------------------------------------------------------


def diagnostic(line: int, start: int, end: int, message: str, **extra: Any) -> types.Diagnostic:
    return types.Diagnostic(range=lsp_range(line, start, line, end), message=message, **extra)


UNDEFINED = diagnostic(
    5,
    15,
    19,
    '"json" is possibly unbound because the import was removed in an earlier refactoring step',
    severity=types.DiagnosticSeverity.Error,
    source="Pyright",
    code="reportPossiblyUnbound",
)


async def actions(
    client: RecordingClient,
    uri: str,
    selected: types.Range,
    diagnostics: list[types.Diagnostic] | None = None,
    only: list[str] | None = None,
) -> list[dict[str, Any]] | None:
    """textDocument/codeAction, answered as the JSON an editor gets."""
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=selected,
        context=types.CodeActionContext(diagnostics=diagnostics or [], only=only),
    )
    return await raw_request(client, types.TEXT_DOCUMENT_CODE_ACTION, params)  # type: ignore[no-any-return]


async def execute(client: RecordingClient, action: dict[str, Any]) -> dict[str, Any]:
    """Run an action's command the way an editor does (workspace/executeCommand)."""
    return await command(client, action["command"]["command"], *action["command"]["arguments"])


def open_app(editor: RecordingClient, workspace: Path) -> str:
    (workspace / "src").mkdir(exist_ok=True)
    path = workspace / "src" / "app.py"
    path.write_text(APP)
    return editor.double.open(path, APP)


async def test_quickfix_per_diagnostic_and_ask_for_a_selection(
    editor: RecordingClient, workspace: Path
):
    uri = open_app(editor, workspace)
    other = diagnostic(4, 9, 13, "Using open without explicitly specifying an encoding")

    offered = await actions(editor, uri, lsp_range(3, 0, 5, 30), [UNDEFINED, other])

    assert offered is not None
    fix, fix_other, ask = offered
    assert fix["title"] == (
        'Fix with Workspace Agent: "json" is possibly unbound because the import was removed i…'
    )
    assert fix["kind"] == "quickfix"
    assert fix["diagnostics"] == [
        {
            "range": span(5, 15, 5, 19),
            "message": UNDEFINED.message,
            "severity": 1,
            "code": "reportPossiblyUnbound",
            "source": "Pyright",
        }
    ]
    assert fix["command"]["command"] == p.RUN_COMMAND
    assert fix["command"]["title"] == fix["title"]
    assert fix["command"]["arguments"] == [
        {
            "prompt": "Fix the problem the editor reports in src/app.py at line 6: "
            + UNDEFINED.message,
            "context": {
                "activeFile": "src/app.py",
                "diagnostics": [
                    {
                        "path": "src/app.py",
                        "range": span(5, 15, 5, 19),
                        "message": UNDEFINED.message,
                        "severity": 1,
                        "source": "Pyright",
                        "code": "reportPossiblyUnbound",
                    }
                ],
            },
        }
    ]
    assert fix_other["title"] == (  # short enough to stay whole
        "Fix with Workspace Agent: Using open without explicitly specifying an encoding"
    )
    (problem,) = fix_other["command"]["arguments"][0]["context"]["diagnostics"]
    assert problem == {
        "path": "src/app.py",
        "range": span(4, 9, 4, 13),
        "message": other.message,
    }

    assert ask["title"] == "Ask Workspace Agent about this…" and ask["kind"] == "refactor"
    assert "diagnostics" not in ask
    (arguments,) = ask["command"]["arguments"]
    assert arguments["prompt"] == ASK_PROMPT
    assert "sessionId" not in arguments  # no session yet: the run starts one
    assert arguments["context"]["activeFile"] == "src/app.py"
    assert arguments["context"]["selection"] == {
        "path": "src/app.py",
        "range": span(3, 0, 5, 30),
        "text": "def load(path):\n    with open(path) as f:\n        return json.load(f)",
    }
    assert [d["message"] for d in arguments["context"]["diagnostics"]] == [
        UNDEFINED.message,
        other.message,
    ]


async def test_the_selection_comes_from_the_buffer_as_the_user_has_it(
    editor: RecordingClient, workspace: Path
):
    uri = open_app(editor, workspace)
    # Unsaved typing, with text whose UTF-16 positions differ from code points.
    editor.double.type(uri, APP.replace("def load(path):", "def load(p𝔞th):  # 𝔞 → é"))
    (ask,) = await actions(editor, uri, lsp_range(3, 4, 3, 15)) or []
    assert ask["command"]["arguments"][0]["context"]["selection"]["text"] == "load(p𝔞th)"


async def test_a_huge_selection_is_not_sent_whole(
    editor: RecordingClient, workspace: Path, model: ScriptedModelServer
):
    text = "".join(f"value_{n} = {n}\n" for n in range(5000))
    path = workspace / "big.py"
    path.write_text(text)
    uri = editor.double.open(path, text)
    await push_settings(editor, model, {"context": {"maxChars": 1000}})
    (ask,) = await actions(editor, uri, lsp_range(0, 0, 5000, 0)) or []
    selection = ask["command"]["arguments"][0]["context"]["selection"]
    assert selection["text"] == text[:1001] and selection["range"] == span(0, 0, 5000, 0)

    model.load(script_of(reply(text_block("ok"))))
    await execute(editor, ask)
    block, _ = user_blocks(model)
    assert text[:1000] in block and text[:1001] not in block
    assert "it spans lines 1-5000 of big.py: read the file for the rest" in block


async def test_no_ask_for_an_empty_range_and_the_only_filter(
    editor: RecordingClient, workspace: Path
):
    uri = open_app(editor, workspace)
    cursor = lsp_range(5, 16, 5, 16)
    assert await actions(editor, uri, cursor) is None
    (fix,) = await actions(editor, uri, cursor, [UNDEFINED]) or []
    assert fix["kind"] == "quickfix"
    selection = lsp_range(3, 0, 4, 0)
    assert await actions(editor, uri, selection, [UNDEFINED], only=["source"]) is None
    (ask,) = await actions(editor, uri, selection, [UNDEFINED], only=["refactor"]) or []
    assert ask["kind"] == "refactor"
    # The problem is on line 6, outside the selection: Ask does not carry it.
    assert "diagnostics" not in ask["command"]["arguments"][0]["context"]
    (fix,) = await actions(editor, uri, selection, [UNDEFINED], only=["quickfix"]) or []
    assert fix["kind"] == "quickfix"


async def test_executing_an_action_runs_with_its_context(
    editor: RecordingClient, workspace: Path, model: ScriptedModelServer
):
    model.load(script_of(reply(text_block("Fixed."))))
    uri = open_app(editor, workspace)
    (fix,) = await actions(editor, uri, lsp_range(5, 16, 5, 16), [UNDEFINED]) or []

    result = await execute(editor, fix)

    assert result["stopReason"] == "end_turn" and result["text"] == "Fixed."
    block, prompt = user_blocks(model)
    assert prompt.startswith("Fix the problem the editor reports in src/app.py at line 6")
    assert f"- src/app.py:6:16 error: {UNDEFINED.message} [Pyright reportPossiblyUnbound]" in block
    assert events_of(editor, "runStart")[0]["attached"] == "src/app.py, 1 problem"

    # The next actions continue the session of that run (the client's current session).
    (ask,) = await actions(editor, uri, lsp_range(0, 0, 0, 11)) or []
    assert ask["command"]["arguments"][0]["sessionId"] == result["sessionId"]
    model.load(script_of(reply(text_block("It imports json."))))
    again = await execute(editor, ask)
    assert again["sessionId"] == result["sessionId"]
    last = model.requests[1].body["messages"][-1]
    block, prompt = [b["text"] for b in last["content"] if b["type"] == "text"]
    assert "```\nimport json\n```" in block and prompt == ASK_PROMPT


async def test_new_session_becomes_the_current_one(editor: RecordingClient, workspace: Path):
    uri = open_app(editor, workspace)
    created = await command(editor, p.NEW_SESSION_COMMAND)
    (ask,) = await actions(editor, uri, lsp_range(0, 0, 0, 6)) or []
    assert ask["command"]["arguments"][0]["sessionId"] == created["sessionId"]


async def test_no_actions_while_the_current_session_runs(
    editor: RecordingClient, workspace: Path, model: ScriptedModelServer
):
    model.load(script_of(reply(text_block("slow answer"), delay=1.5)))
    uri = open_app(editor, workspace)
    going = asyncio.ensure_future(run(editor, "Take your time"))
    await wait_for(lambda: events_of(editor, "runStart"), what="the run to start")

    assert await actions(editor, uri, lsp_range(3, 0, 5, 0), [UNDEFINED]) is None

    await going
    assert len(await actions(editor, uri, lsp_range(3, 0, 5, 0), [UNDEFINED]) or []) == 2


async def test_only_file_documents_inside_the_workspace(
    editor: RecordingClient, workspace: Path, tmp_path: Path
):
    outside = tmp_path / "outside.py"
    outside.write_text(APP)
    outside_uri = editor.double.open(outside, APP)
    sneaky = f"{workspace.as_uri()}/../outside.py"
    editor.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=sneaky, language_id="python", version=1, text=APP
            )
        )
    )
    untitled = "untitled:Untitled-1"
    editor.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=untitled, language_id="python", version=1, text=APP
            )
        )
    )
    selected = lsp_range(3, 0, 5, 0)
    for uri in (outside_uri, sneaky, untitled):
        assert await actions(editor, uri, selected, [UNDEFINED]) is None, uri
    # Not open in the editor: nothing is read from disk for it either.
    (workspace / "closed.py").write_text(APP)
    assert await actions(editor, (workspace / "closed.py").as_uri(), selected, [UNDEFINED]) is None


async def test_code_actions_can_be_turned_off(
    editor: RecordingClient, workspace: Path, model: ScriptedModelServer
):
    uri = open_app(editor, workspace)
    await push_settings(editor, model, {"codeActions": {"enabled": False}})
    assert await actions(editor, uri, lsp_range(3, 0, 5, 0), [UNDEFINED]) is None
    await push_settings(editor, model, {"codeActions.enabled": True})
    assert len(await actions(editor, uri, lsp_range(3, 0, 5, 0), [UNDEFINED]) or []) == 2


async def test_malformed_code_action_params_are_refused(editor: RecordingClient, workspace: Path):
    """Each malformed case is a unit test (tests/unit/test_protocol.py); over LSP the
    request fails with -32602 and the parser's message."""
    uri = open_app(editor, workspace)
    diagnostics: Any = [{"message": "no range"}]
    message = "'context.diagnostics[0].range' must be an LSP range"
    params = {
        "textDocument": {"uri": uri},
        "range": span(0, 0, 0, 0),
        "context": {"diagnostics": diagnostics},
    }
    with pytest.raises(JsonRpcInvalidParams, match=re.escape(message)):
        await raw_request(editor, types.TEXT_DOCUMENT_CODE_ACTION, params)
    # A reversed range (as some clients send a selection made upwards) is read the right way.
    params = {
        "textDocument": {"uri": uri},
        "range": span(4, 0, 3, 0),
        "context": {"diagnostics": []},
    }
    (ask,) = await raw_request(editor, types.TEXT_DOCUMENT_CODE_ACTION, params)
    assert ask["command"]["arguments"][0]["context"]["selection"]["range"] == span(3, 0, 4, 0)
    assert ask["command"]["arguments"][0]["context"]["selection"]["text"] == "def load(path):\n"


async def test_the_server_advertises_its_code_action_kinds(editor: RecordingClient):
    caps = editor.double.server_capabilities
    provider = caps.code_action_provider
    assert isinstance(provider, types.CodeActionOptions)
    assert list(provider.code_action_kinds or []) == ["quickfix", "refactor"]
    assert caps.execute_command_provider.commands.count(p.RUN_COMMAND) == 1

"""code_intel and rename_symbol answered by the editor (workspaceAgent/codeIntel), through
the real server: the model's character columns sent as UTF-16, the editor's answer read
back as `path:line:col: text` grouped by file, a rename applied through the write path
(the open document edited in the editor with the user's unsaved line kept, the other file
on disk), an edit reaching outside the workspace refused with nothing changed; and a
client that announces nothing gets neither tool."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.client import RecordingClient
from tests.support.lsp import run, settings, tool_results

A_TEXT = 'const s = "😀"; greet(s);\n'
B_TEXT = "import { greet } from './a';\n\nexport const x = greet('b');\n"
OUTSIDE = "file:///usr/lib/node_modules/typescript/lib/lib.d.ts"


def span(line: int, start: int, end: int) -> dict[str, Any]:
    return {"start": {"line": line, "character": start}, "end": {"line": line, "character": end}}


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


@pytest.mark.parametrize("configured_editor", [{"code_intel": True}], indirect=True)
async def test_the_editor_answers_references_and_renames_through_the_write_path(
    configured_editor: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    double = configured_editor.double
    a, b = workspace / "a.ts", workspace / "b.ts"
    a.write_text(A_TEXT)
    b.write_text(B_TEXT)
    a_uri = double.open(a, A_TEXT)
    double.type(a_uri, "// my unsaved note\n" + A_TEXT)
    b_uri = b.as_uri()
    at = utf16(A_TEXT[: A_TEXT.index("greet")])  # 16: the emoji is two code units
    b_at = B_TEXT.splitlines()[2].index("greet")
    references = [
        {"uri": a_uri, "range": span(1, at, at + 5)},
        {"uri": b_uri, "range": span(2, b_at, b_at + 5)},
        {"uri": OUTSIDE, "range": span(4, 2, 7)},
    ]
    renames = [
        {
            "changes": {
                a_uri: [{"range": span(1, at, at + 5), "newText": "hello"}],
                b_uri: [
                    {"range": span(0, 9, 14), "newText": "hello"},
                    {"range": span(2, b_at, b_at + 5), "newText": "hello"},
                ],
            }
        },
        {
            "changes": {
                b_uri: [{"range": span(0, 9, 14), "newText": "hi"}],
                OUTSIDE: [{"range": span(4, 2, 7), "newText": "hi"}],
            }
        },
    ]

    def answer(params: dict[str, Any]) -> Any:
        return references if params["operation"] == "references" else renames.pop(0)

    double.code_intel = answer
    settings(configured_editor, model, write="ask")
    double.answers = ["Allow"]
    column = A_TEXT.index("greet") + 1  # 16 in characters
    model.load(
        script_of(
            reply(
                tool(
                    "code_intel",
                    {"operation": "references", "path": "a.ts", "line": 2, "column": column},
                )
            ),
            reply(
                tool(
                    "rename_symbol",
                    {"path": "a.ts", "line": 2, "column": column, "new_name": "hello"},
                )
            ),
            reply(
                tool("rename_symbol", {"path": "b.ts", "line": 1, "column": 10, "new_name": "hi"})
            ),
            reply(text("Done.")),
        )
    )
    await run(configured_editor, "Rename greet")

    asked = double.code_intel_asked
    assert asked[0] == {
        "operation": "references",
        "uri": a_uri,
        "position": {"line": 1, "character": at},
    }
    assert asked[1]["operation"] == "rename" and asked[1]["newName"] == "hello"
    assert tool_results(model.requests[1].body)[0]["content"] == (
        "3 references in 3 files:\n"
        f"a.ts:2:{column}: {A_TEXT.strip()}\n"
        "\n"
        "b.ts:3:18: export const x = greet('b');\n"
        "\n"
        "/usr/lib/node_modules/typescript/lib/lib.d.ts:5:3:"
    )
    assert tool_results(model.requests[2].body)[0]["content"] == (
        "Renamed to hello: 3 lines in 2 files\n  a.ts: 1 line\n  b.ts: 2 lines"
    )
    # One question for both files; the refused rename (outside the workspace) asks none.
    assert double.questions == [
        "Workspace Agent wants to rename to hello: 3 lines in 2 files (a.ts, b.ts)."
    ]
    assert double.texts[a_uri] == "// my unsaved note\n" + A_TEXT.replace("greet", "hello")
    assert b.read_text() == B_TEXT.replace("greet", "hello")
    refused = tool_results(model.requests[3].body)[0]
    assert refused["is_error"] is True
    assert refused["content"] == (
        "the rename would change files outside the workspace, so nothing was changed: "
        "/usr/lib/node_modules/typescript/lib/lib.d.ts"
    )
    assert b.read_text() == B_TEXT.replace("greet", "hello")


async def test_without_the_capability_nor_servers_the_tools_cost_nothing(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    model.load(script_of(reply(text("Hello."))))
    await run(client, "Hi")
    names = [t["name"] for t in model.requests[0].body["tools"]]
    assert "code_intel" not in names and "rename_symbol" not in names
    assert "code_intel" not in str(model.requests[0].body)

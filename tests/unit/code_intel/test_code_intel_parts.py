"""The parts of code_intel that read and write the protocol's shapes, in this process:
positions both ways (characters for the model, UTF-16 on the wire), every answer shape the
editor or a server may give, the bound of 100 places, the configured servers' two shapes
and their problems, and a rename's edit taken apart before anything is changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workspace_agent.code_intel import render
from workspace_agent.code_intel.config import configured
from workspace_agent.code_intel.positions import column_of, to_wire
from workspace_agent.code_intel.rename import _applied, _text_edits
from workspace_agent.code_intel.source_text import LineTexts
from workspace_agent.shared.documents import DiskOnly
from workspace_agent.shared.errors import ToolError


def span(line: int, start: int, end: int) -> dict:
    return {"start": {"line": line, "character": start}, "end": {"line": line, "character": end}}


def test_columns_are_characters_for_the_model_and_utf16_on_the_wire():
    text = "a = 1\r\ns = '😀'; f(s)\n"
    assert to_wire(text, 2, 12, "x.py") == {"line": 1, "character": 12}  # f, after the emoji
    assert column_of("s = '😀'; f(s)", 12) == 12
    assert column_of("s = '😀'; f(s)", 99) == len("s = '😀'; f(s)") + 1
    with pytest.raises(ToolError, match=r"line 9 is not in x.py: it has 3 lines"):
        to_wire(text, 9, 1, "x.py")
    with pytest.raises(ToolError, match=r"column 40 is not on line 1 of x.py: the line has 5"):
        to_wire(text, 1, 40, "x.py")


async def test_places_are_grouped_by_file_bounded_and_read_from_the_workspace(tmp_path: Path):
    (tmp_path / "a.py").write_text("".join(f"x{n} = f()\n" for n in range(150)))
    (tmp_path / "b.py").write_text("from a import f\n")
    a, b = (tmp_path / "a.py").as_uri(), (tmp_path / "b.py").as_uri()
    answer = [{"uri": a, "range": span(n, 5, 6)} for n in range(150)]
    answer.append(
        {"targetUri": b, "targetRange": span(0, 0, 15), "targetSelectionRange": span(0, 14, 15)}
    )
    answer.append({"uri": "file:///usr/lib/python3/os.py", "range": span(9, 4, 8)})
    texts = LineTexts(tmp_path, DiskOnly())
    shown = await render.listing(
        render.locations(answer), tmp_path, texts, "references", "narrow it"
    )
    lines = shown.splitlines()
    assert lines[0] == "152 references in 3 files; the first 100 are shown (narrow it):"
    assert lines[1] == "a.py:1:6: x0 = f()"
    assert lines[100] == "a.py:100:6: x99 = f()"
    assert len(lines) == 101  # b.py and os.py left out by the bound


async def test_symbols_hover_and_calls_in_each_shape(tmp_path: Path):
    (tmp_path / "m.py").write_text("class A:\n    def run(self):\n        go()\n")
    uri = (tmp_path / "m.py").as_uri()
    tree = [
        {
            "name": "A",
            "kind": 5,
            "range": span(0, 0, 9),
            "selectionRange": span(0, 6, 7),
            "children": [
                {"name": "run", "kind": 6, "range": span(1, 4, 9), "selectionRange": span(1, 8, 11)}
            ],
        }
    ]
    texts = LineTexts(tmp_path, DiskOnly())
    listed = await render.listing(render.symbols(tree, uri), tmp_path, texts, "symbols", "")
    assert listed.splitlines()[1:] == [
        "m.py:1:7: class A | class A:",
        "  m.py:2:9: method run | def run(self):",
    ]
    outside = [{"name": "path", "kind": 2, "location": {"uri": "file:///usr/lib/os.py"}}]
    assert render.symbols(outside, uri)[0].label == "module path"
    assert render.hover_text({"contents": {"kind": "markdown", "value": "`int`"}}) == "`int`"
    assert render.hover_text({"contents": [{"language": "python", "value": "x: int"}, "doc"]}) == (
        "```python\nx: int\n```\n\ndoc"
    )
    incoming = [
        {
            "from": {"name": "run", "kind": 6, "uri": uri, "selectionRange": span(1, 8, 11)},
            "fromRanges": [span(2, 8, 10)],
        }
    ]
    (place,) = render.calls(incoming, incoming=True)
    assert (place.line, place.character, place.label) == (2, 8, "in method run")


def test_configured_servers_in_both_shapes_and_their_problems(tmp_path: Path):
    (tmp_path / ".lsp.json").write_text(
        json.dumps(
            {"go": {"command": "gopls", "args": ["serve"], "extensionToLanguage": {".go": "go"}}}
        )
    )
    setting = json.dumps(
        {"py": {"command": ["pylsp"], "extensions": ["py", ".PYI"]}, "bad": {"command": []}}
    )
    found = configured(setting, tmp_path)
    assert [(s.name, s.command, s.extensions) for s in found.servers] == [
        ("go", ("gopls", "serve"), (".go",)),
        ("py", ("pylsp",), (".py", ".pyi")),
    ]
    assert found.problems == (
        'lspServers: server \'bad\': "command" must be a program and its arguments: ["pylsp"]; it is not used',
    )
    assert found.servers[1].language_of(Path("x.pyi")) == "python"


def test_a_rename_edit_is_taken_apart_before_anything_changes(tmp_path: Path):
    inside = (tmp_path / "a.py").as_uri()
    with pytest.raises(
        ToolError, match=r"outside the workspace, so nothing was changed: /etc/x.py"
    ):
        _text_edits({"changes": {inside: [], "file:///etc/x.py": []}}, tmp_path)
    with pytest.raises(ToolError, match=r"the rename also renames files"):
        _text_edits(
            {"documentChanges": [{"kind": "rename", "oldUri": inside, "newUri": inside}]}, tmp_path
        )
    text = "greet()\r\ngreet() + '😀' + greet()\n"
    edits = [
        {"range": span(0, 0, 5), "newText": "hi"},
        {"range": span(1, 17, 22), "newText": "hi"},  # after the emoji: UTF-16 units
        {"range": span(1, 0, 5), "newText": "hi"},
    ]
    assert _applied(text, edits, "a.py") == "hi()\r\nhi() + '😀' + hi()\n"
    with pytest.raises(ToolError, match="overlap; nothing was changed"):
        _applied(
            text,
            [{"range": span(0, 0, 5), "newText": "a"}, {"range": span(0, 2, 4), "newText": "b"}],
            "a.py",
        )


async def test_a_server_whose_program_is_not_found_is_not_started_and_says_how_to_fix_it(
    tmp_path: Path,
):
    from workspace_agent.code_intel.config import ServerSpec
    from workspace_agent.code_intel.launching import launcher
    from workspace_agent.config import AgentSettings

    launch = launcher(tmp_path, "s", AgentSettings(), None)  # type: ignore[arg-type]
    spec = ServerSpec("ghost", ("no-such-language-server-here",), (".gh",))
    with pytest.raises(ToolError) as refused:
        await launch(spec)
    assert str(refused.value) == (
        "language server `ghost` was not started: no-such-language-server-here was not found "
        "on PATH (outside the folders sandboxed commands may write); give its full path in "
        "lspServers"
    )

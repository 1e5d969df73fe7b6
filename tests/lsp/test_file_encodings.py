"""read_file, edit_file and write_file on files that are not plain UTF-8, end to end
through the real server: real files on disk, results as the model receives them, bytes on
disk after each change.

All three tools take a file's format from one place (tools/textfile.py): UTF-16 and
UTF-32 with a BOM (both byte orders), UTF-8 with a BOM, latin-1 for bytes that are not
UTF-8, and CRLF line endings in any of them.
"""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.client import RecordingClient
from tests.support.lsp import run, tool_results

TRICKY = "tricky: \u0a05\u0100 \u0100\u0a05 \u0a00\u0100 \U00010000\u0a41 😀"
"""Characters whose UTF-16/32 bytes contain the bytes of "\\n" across two code units, in
every byte order (e.g. U+0A05 U+0100 is `05 0A 00 01` in UTF-16 LE): not line breaks."""

ENCODINGS = [
    # (codec, BOM, how read_file names it in its header)
    ("utf-16-le", codecs.BOM_UTF16_LE, " (UTF-16 LE)"),
    ("utf-16-be", codecs.BOM_UTF16_BE, " (UTF-16 BE)"),
    ("utf-32-le", codecs.BOM_UTF32_LE, " (UTF-32 LE)"),
    ("utf-32-be", codecs.BOM_UTF32_BE, " (UTF-32 BE)"),
    ("utf-8", codecs.BOM_UTF8, ""),
]


def lines_of(count: int) -> list[str]:
    return [f"line {n} ünï" if n != 3 else TRICKY for n in range(1, count + 1)]


def numbered(lines: list[str], first: int = 1) -> list[str]:
    return [f"{n:>6}\t{line}" for n, line in enumerate(lines, start=first)]


def results(model: ScriptedModelServer) -> list[str]:
    """The content of every tool result the model got, in order."""
    return [r["content"] for req in model.requests[1:] for r in tool_results(req.body)]


@pytest.mark.parametrize(("codec", "bom", "label"), ENCODINGS, ids=[e[0] for e in ENCODINGS])
async def test_read_edit_read_round_trip_keeps_encoding_bom_and_crlf(
    client: RecordingClient,
    model: ScriptedModelServer,
    workspace: Path,
    codec: str,
    bom: bytes,
    label: str,
):
    lines = lines_of(12)
    raw = bom + "".join(line + "\r\n" for line in lines).encode(codec)
    if codec != "utf-8":  # the file really has "\n" bytes that are not line breaks
        assert raw.count("\n".encode(codec)) > len(lines)
    path = workspace / "notes.txt"
    path.write_bytes(raw)
    model.load(
        script_of(
            reply(tool("read_file", {"path": "notes.txt"})),
            reply(tool("read_file", {"path": "notes.txt", "offset": -2})),
            reply(tool("read_file", {"path": "notes.txt", "offset": 5, "limit": 3})),
            reply(
                tool(
                    "edit_file",
                    {
                        "path": "notes.txt",
                        "old_text": "line 6 ünï\nline 7",
                        "new_text": "line six 😀\nline 6b\nline 7",
                    },
                )
            ),
            reply(tool("read_file", {"path": "notes.txt", "offset": 3, "limit": 5})),
            reply(text("ok")),
        )
    )
    await run(client, "Read and edit notes.txt")

    whole, tail, window, edited, again = results(model)
    assert whole.splitlines() == [f"notes.txt: lines 1-12 of 12{label}", *numbered(lines)]
    assert tail.splitlines() == [f"notes.txt: lines 11-12 of 12{label}", *numbered(lines[10:], 11)]
    assert window.splitlines() == [
        f"notes.txt: lines 5-7 of 12{label}",
        *numbered(lines[4:7], 5),
        "(more lines follow: read with offset=8 to continue)",
    ]
    assert edited == "Edited notes.txt: replaced 1 occurrence (now lines 6-8)"
    new_lines = [*lines[:5], "line six 😀", "line 6b", *lines[6:]]
    assert again.splitlines() == [
        f"notes.txt: lines 3-7 of 13{label}",
        *numbered(new_lines[2:7], 3),
        "(more lines follow: read with offset=8 to continue)",
    ]
    assert path.read_bytes() == bom + "".join(line + "\r\n" for line in new_lines).encode(codec)


async def test_latin1_reads_as_edit_file_matches_it(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    path = workspace / "menu.txt"
    # Line 1 alone would pass for UTF-8 ("Ã©" is C3 A9, the UTF-8 of "é"); line 3 is not
    # UTF-8, so the file is latin-1 and line 1 is "cafÃ©" for every tool.
    path.write_bytes(
        "cafÃ© au lait\nprix: 3 €\nnaïve crème brûlée\n".replace("€", "EUR").encode("latin-1")
    )
    model.load(
        script_of(
            reply(tool("read_file", {"path": "menu.txt", "limit": 1})),
            reply(tool("read_file", {"path": "menu.txt"})),
            reply(
                tool(
                    "edit_file",
                    {"path": "menu.txt", "old_text": "naïve crème", "new_text": "crème ✓"},
                ),
                tool(
                    "edit_file",
                    {"path": "menu.txt", "old_text": "cafÃ© au", "new_text": "café noir, au"},
                ),
                tool(
                    "edit_file",
                    {"path": "menu.txt", "old_text": "naïve crème", "new_text": "crème"},
                ),
            ),
            reply(tool("read_file", {"path": "menu.txt"})),
            reply(text("ok")),
        )
    )
    await run(client, "Fix the menu")

    first, whole, refused, fixed, fixed_too, again = results(model)
    assert first.splitlines() == [
        "menu.txt: lines 1-1 of 3 (latin-1)",
        "     1\tcafÃ© au lait",
        "(more lines follow: read with offset=2 to continue)",
    ]
    assert whole.splitlines() == [
        "menu.txt: lines 1-3 of 3 (latin-1)",
        "     1\tcafÃ© au lait",
        "     2\tprix: 3 EUR",
        "     3\tnaïve crème brûlée",
    ]
    assert refused == (
        "the new text has characters that the file's encoding (latin-1) cannot store"
    )
    assert fixed == "Edited menu.txt: replaced 1 occurrence (now lines 1-1)"
    assert fixed_too == "Edited menu.txt: replaced 1 occurrence (now lines 3-3)"
    assert again.splitlines() == [
        "menu.txt: lines 1-3 of 3 (latin-1)",
        "     1\tcafé noir, au lait",
        "     2\tprix: 3 EUR",
        "     3\tcrème brûlée",
    ]
    assert path.read_bytes() == "café noir, au lait\nprix: 3 EUR\ncrème brûlée\n".encode("latin-1")


async def test_utf8_crlf_and_bom_line_counts(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    (workspace / "win.txt").write_bytes(b"one\r\ntwo\r\nthree\r\nfour")  # no final newline
    (workspace / "bom.txt").write_bytes(codecs.BOM_UTF8 + "ärger\nzwei\n".encode())
    (workspace / "empty16.txt").write_bytes(codecs.BOM_UTF16_LE)
    model.load(
        script_of(
            reply(
                tool("read_file", {"path": "win.txt", "offset": -2}),
                tool("read_file", {"path": "win.txt", "offset": 2, "limit": 1}),
                tool("read_file", {"path": "win.txt", "offset": 5}),
                tool("read_file", {"path": "bom.txt", "limit": 1}),
                tool("read_file", {"path": "bom.txt", "offset": -2}),
                tool("read_file", {"path": "empty16.txt"}),
            ),
            reply(text("ok")),
        )
    )
    await run(client, "Read")

    tail, second, past, bom_first, bom_tail, empty = results(model)
    assert tail.splitlines() == ["win.txt: lines 3-4 of 4", "     3\tthree", "     4\tfour"]
    assert second.splitlines() == [
        "win.txt: lines 2-2 of 4",
        "     2\ttwo",
        "(more lines follow: read with offset=3 to continue)",
    ]
    assert past == "offset 5 is past the end of win.txt (4 lines)"
    assert bom_first.splitlines()[:2] == ["bom.txt: lines 1-1 of 2", "     1\tärger"]
    assert bom_tail.splitlines() == ["bom.txt: lines 1-2 of 2", "     1\tärger", "     2\tzwei"]
    assert empty == "empty16.txt: empty file (0 lines) (UTF-16 LE)"


async def test_write_keeps_wide_encodings_and_nul_bytes_do_not_make_them_binary(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    wide32 = workspace / "wide32.txt"
    wide32.write_bytes(codecs.BOM_UTF32_LE + "alt\r\n".encode("utf-32-le"))
    be16 = workspace / "be16.txt"
    be16.write_bytes(codecs.BOM_UTF16_BE + "alt\n".encode("utf-16-be"))
    # Not text: a UTF-16 BOM, then a lone surrogate; and UTF-16 text with a NUL character.
    fake = workspace / "fake.bin"
    fake.write_bytes(codecs.BOM_UTF16_LE + b"\x00\xd8A\x00B\x00")
    nul16 = workspace / "nul16.txt"
    nul16.write_bytes(codecs.BOM_UTF16_LE + "a\x00b\n".encode("utf-16-le"))
    model.load(
        script_of(
            reply(
                tool("write_file", {"path": "wide32.txt", "content": "neu 😀\nzwei\n"}),
                tool("write_file", {"path": "be16.txt", "content": "neu 😀\n"}),
                tool("read_file", {"path": "wide32.txt"}),
                tool("read_file", {"path": "fake.bin"}),
                tool("read_file", {"path": "nul16.txt"}),
                tool("edit_file", {"path": "fake.bin", "old_text": "A", "new_text": "C"}),
            ),
            reply(text("ok")),
        )
    )
    await run(client, "Write")

    wrote32, wrote16, read32, fake_read, nul_read, fake_edit = results(model)
    assert wrote32 == "Overwrote wide32.txt (2 lines, 56 bytes)"
    assert wide32.read_bytes() == codecs.BOM_UTF32_LE + "neu 😀\r\nzwei\r\n".encode("utf-32-le")
    assert wrote16 == "Overwrote be16.txt (1 lines, 16 bytes)"
    assert be16.read_bytes() == codecs.BOM_UTF16_BE + "neu 😀\n".encode("utf-16-be")
    assert read32.splitlines() == [
        "wide32.txt: lines 1-2 of 2 (UTF-32 LE)",
        "     1\tneu 😀",
        "     2\tzwei",
    ]
    assert fake_read == "fake.bin is a binary file (8 bytes); its contents are not shown."
    assert nul_read == "nul16.txt is a binary file (10 bytes); its contents are not shown."
    assert fake_edit == (
        "fake.bin is a binary file; write_file and edit_file only change text files"
    )
    assert fake.read_bytes() == codecs.BOM_UTF16_LE + b"\x00\xd8A\x00B\x00"


async def test_windows_of_a_large_utf16_file_across_block_boundaries(
    client: RecordingClient, model: ScriptedModelServer, workspace: Path
):
    count = 60_000  # about 3.8 MB: the scans cross several 1 MiB blocks
    lines = [f"{n:05d} {TRICKY}" for n in range(1, count + 1)]
    raw = codecs.BOM_UTF16_LE + "".join(line + "\r\n" for line in lines).encode("utf-16-le")
    assert len(raw) > 3 << 20
    (workspace / "big16.log").write_bytes(raw)
    middle = (1 << 20) // (len(raw) // count)  # about where the first block ends
    model.load(
        script_of(
            reply(
                tool("read_file", {"path": "big16.log", "offset": -3}),
                tool("read_file", {"path": "big16.log", "offset": middle - 1, "limit": 3}),
                tool("read_file", {"path": "big16.log", "offset": -30_000, "limit": 2}),
            ),
            reply(text("ok")),
        )
    )
    await run(client, "Read the log")

    tail, around, far = results(model)
    assert tail.splitlines() == [
        f"big16.log: lines {count - 2}-{count} of {count} (UTF-16 LE)",
        *numbered(lines[-3:], count - 2),
    ]
    assert around.splitlines()[1:4] == numbered(lines[middle - 2 : middle + 1], middle - 1)
    assert far.splitlines()[:3] == [
        f"big16.log: lines 30001-30002 of {count} (UTF-16 LE)",
        *numbered(lines[30_000:30_002], 30_001),
    ]

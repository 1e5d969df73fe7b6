"""read_file, write_file and edit_file, called directly (the core, no LSP)."""

from __future__ import annotations

import asyncio
import codecs
import os
import stat
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workspace_agent.config import AgentSettings
from workspace_agent.guard.approvals import Approvals
from workspace_agent.shared.todo import TodoList
from workspace_agent.tools import TOOLS, ToolContext, ToolError, line_reader, textfile
from workspace_agent.tools.base import output_text

ALLOW_ALL = {"bash": "allow", "write": "allow"}


def call(root: Path, name: str, **args) -> str:
    tool = TOOLS[name]
    tool.validate(args)
    return output_text(
        asyncio.run(
            tool.handler(ToolContext(root, AgentSettings(), TodoList(), Approvals(ALLOW_ALL)), args)
        )
    )


def numbered(path: Path, count: int, newline: str = "\n", last_newline: bool = True) -> None:
    body = newline.join(f"line {n}" for n in range(1, count + 1))
    path.write_bytes((body + (newline if last_newline else "")).encode())


@pytest.mark.parametrize("last_newline", [True, False])
@pytest.mark.parametrize(
    ("offset", "limit", "first", "last"),
    [
        (None, None, 1, 30),
        (1, 5, 1, 5),
        (28, 10, 28, 30),
        (-3, None, 28, 30),
        (-30, 2, 1, 2),
        (-100, None, 1, 30),
        (0, 1, 1, 1),
    ],
)
def test_read_windows(tmp_path: Path, last_newline: bool, offset, limit, first: int, last: int):
    numbered(tmp_path / "f.txt", 30, last_newline=last_newline)
    args = {k: v for k, v in (("offset", offset), ("limit", limit)) if v is not None}
    lines = call(tmp_path, "read_file", path="f.txt", **args).splitlines()
    assert lines[0] == f"f.txt: lines {first}-{last} of 30"
    assert lines[1 : last - first + 2] == [f"{n:>6}\tline {n}" for n in range(first, last + 1)]


def test_read_crlf_empty_past_end_and_directories(tmp_path: Path):
    numbered(tmp_path / "crlf.txt", 3, newline="\r\n")
    assert call(tmp_path, "read_file", path="crlf.txt", offset=-1).splitlines() == [
        "crlf.txt: lines 3-3 of 3",
        "     3\tline 3",
    ]
    (tmp_path / "empty.txt").write_text("")
    assert call(tmp_path, "read_file", path="empty.txt") == "empty.txt: empty file (0 lines)"
    with pytest.raises(ToolError, match=r"offset 9 is past the end of crlf.txt \(3 lines\)"):
        call(tmp_path, "read_file", path="crlf.txt", offset=9)
    with pytest.raises(ToolError, match="is a directory"):
        call(tmp_path, "read_file", path=".")
    with pytest.raises(ToolError, match=r"nope\.txt does not exist"):
        call(tmp_path, "read_file", path="nope.txt")


def test_binary_files_are_described_not_dumped(tmp_path: Path):
    (tmp_path / "img.bin").write_bytes(b"\x89PNG\x00\x01\x02" * 300)
    assert (
        call(tmp_path, "read_file", path="img.bin")
        == "img.bin is a binary file (2.1 KB); its contents are not shown."
    )


def test_long_lines_are_cut(tmp_path: Path):
    (tmp_path / "min.js").write_text("x" * 100_000 + "\nshort\n")
    lines = call(tmp_path, "read_file", path="min.js").splitlines()
    assert lines[1].endswith(" … [line cut]") and len(lines[1]) < 4100
    assert lines[2] == "     2\tshort"
    assert lines[-1] == "(1 long line(s) were cut)"


def test_tail_of_a_large_file_reads_a_few_blocks_only(tmp_path: Path):
    big = tmp_path / "big.log"
    with big.open("w") as f:
        for n in range(1, 1_000_001):
            f.write(f"this is log line number {n}\n")
    assert big.stat().st_size > 30_000_000
    tracemalloc.start()
    out = call(tmp_path, "read_file", path="big.log", offset=-100)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert out.splitlines()[0] == "big.log: lines 999901-1000000 of 1000000"
    assert out.splitlines()[-1] == "1000000\tthis is log line number 1000000"
    assert peak < 8_000_000, f"peak {peak:,} bytes for a {big.stat().st_size:,}-byte file"


def test_write_creates_folders_and_keeps_mode(tmp_path: Path):
    assert (
        call(tmp_path, "write_file", path="a/b/c.txt", content="one\ntwo")
        == "Created a/b/c.txt (2 lines, 7 bytes)"
    )
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    assert call(tmp_path, "write_file", path="run.sh", content="#!/bin/sh\necho hi\n").startswith(
        "Overwrote run.sh"
    )
    assert stat.S_IMODE(script.stat().st_mode) == 0o755
    assert [
        p.name for p in tmp_path.iterdir() if p.name.startswith(".")
    ] == []  # no temp files left


def test_edit_keeps_crlf_line_endings(tmp_path: Path):
    path = tmp_path / "win.txt"
    path.write_bytes(b"first\r\nsecond\r\nthird\r\n")
    call(tmp_path, "edit_file", path="win.txt", old_text="first\nsecond", new_text="1st\n2nd")
    assert path.read_bytes() == b"1st\r\n2nd\r\nthird\r\n"


def test_edit_keeps_a_legacy_encoding_and_refuses_what_it_cannot_store(tmp_path: Path):
    path = tmp_path / "latin.txt"
    path.write_bytes("café au lait\n".encode("latin-1"))
    call(
        tmp_path,
        "edit_file",
        path="latin.txt",
        old_text="au lait",
        new_text="noir, s'il vous plaît",
    )
    assert path.read_bytes() == "café noir, s'il vous plaît\n".encode("latin-1")
    with pytest.raises(ToolError, match=r"encoding \(latin-1\) cannot store"):
        call(tmp_path, "edit_file", path="latin.txt", old_text="noir", new_text="noir ✓")
    assert path.read_bytes() == "café noir, s'il vous plaît\n".encode("latin-1")
    with pytest.raises(ToolError, match="old_text must not be empty"):
        call(tmp_path, "edit_file", path="latin.txt", old_text="", new_text="x")


def test_bom_and_utf16_survive_edits(tmp_path: Path):
    bom = tmp_path / "bom.txt"
    bom.write_bytes(b"\xef\xbb\xbfhello\r\nworld\r\n")
    call(tmp_path, "edit_file", path="bom.txt", old_text="world\n", new_text="there\nfriend\n")
    assert bom.read_bytes() == b"\xef\xbb\xbfhello\r\nthere\r\nfriend\r\n"
    wide = tmp_path / "wide.txt"
    wide.write_bytes("\ufeffgrüße\n".encode("utf-16-le"))
    call(tmp_path, "edit_file", path="wide.txt", old_text="grüße", new_text="hallo")
    assert wide.read_bytes() == "\ufeffhallo\n".encode("utf-16-le")
    call(tmp_path, "write_file", path="wide.txt", content="neu\n")
    assert wide.read_bytes() == "\ufeffneu\n".encode("utf-16-le")


def test_binary_and_oversized_files_are_refused_for_writes(tmp_path: Path):
    blob = tmp_path / "blob.bin"
    blob.write_bytes(b"\x00\x01binary")
    for name, args in (
        ("edit_file", {"old_text": "binary", "new_text": "text"}),
        ("write_file", {"content": "x"}),
    ):
        with pytest.raises(
            ToolError,
            match=r"blob\.bin is a binary file; write_file and edit_file only change text files",
        ):
            call(tmp_path, name, path="blob.bin", **args)
    assert blob.read_bytes() == b"\x00\x01binary"
    big = tmp_path / "big.txt"
    big.write_text("x" * 2000)
    ctx = ToolContext(
        tmp_path, AgentSettings(max_file_bytes=1000), TodoList(), Approvals(ALLOW_ALL)
    )
    with pytest.raises(
        ToolError,
        match=r"big.txt is too large to write or edit as a whole \(2.0 KB; the limit is 1000 bytes",
    ):
        asyncio.run(
            TOOLS["edit_file"].handler(ctx, {"path": "big.txt", "old_text": "x", "new_text": "y"})
        )
    with pytest.raises(ToolError, match=r"new\.txt is too large"):
        asyncio.run(TOOLS["write_file"].handler(ctx, {"path": "new.txt", "content": "y" * 1001}))
    assert not (tmp_path / "new.txt").exists()


def test_write_to_a_crlf_file_keeps_crlf(tmp_path: Path):
    path = tmp_path / "win.txt"
    path.write_bytes(b"old\r\n")
    call(tmp_path, "write_file", path="win.txt", content="one\ntwo\n")
    assert path.read_bytes() == b"one\r\ntwo\r\n"


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    content=st.text(alphabet="ab\n", max_size=40),
    old=st.text(alphabet="ab\n", min_size=1, max_size=4),
    new=st.text(alphabet="abc\n'\"$", max_size=6),
)
def test_edit_replaces_exactly_one_occurrence_or_changes_nothing(
    tmp_path: Path, content: str, old: str, new: str
):
    path = tmp_path / "prop.txt"
    path.write_text(content)
    count = content.count(old)
    if count == 1:
        call(tmp_path, "edit_file", path="prop.txt", old_text=old, new_text=new)
        assert path.read_text() == content.replace(old, new)
    else:
        with pytest.raises(ToolError, match="not found" if count == 0 else f"occurs {count} times"):
            call(tmp_path, "edit_file", path="prop.txt", old_text=old, new_text=new)
        assert path.read_text() == content


def test_bash_environment_has_no_secrets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-env-secret")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-secret")
    monkeypatch.setenv("DB_PASSWORD", "hunter2")
    monkeypatch.setenv("INNOCENT", "sk-dotenv-secret")  # same value as the key from .env
    monkeypatch.setenv("HARMLESS_SETTING", "visible")
    tool = TOOLS["bash"]
    ctx = ToolContext(
        tmp_path, AgentSettings(api_key="sk-dotenv-secret"), TodoList(), Approvals(ALLOW_ALL)
    )
    out = output_text(
        asyncio.run(tool.handler(ctx, {"command": "env; printenv ANTHROPIC_API_KEY"}))
    )
    for secret in ("sk-env-secret", "ghp-secret", "hunter2", "sk-dotenv-secret"):
        assert secret not in out
    assert "HARMLESS_SETTING=visible" in out
    assert out.endswith("[exit status 1]")  # printenv found nothing
    assert os.environ["ANTHROPIC_API_KEY"] == "sk-env-secret"  # ours is untouched


WIDE_AND_NARROW = [
    "utf-8",
    "utf-8-sig",
    "latin-1",
    "utf-16-le",
    "utf-16-be",
    "utf-32-le",
    "utf-32-be",
]
BOMS = {
    "utf-8-sig": b"",  # the codec writes its own BOM
    "utf-16-le": codecs.BOM_UTF16_LE,
    "utf-16-be": codecs.BOM_UTF16_BE,
    "utf-32-le": codecs.BOM_UTF32_LE,
    "utf-32-be": codecs.BOM_UTF32_BE,
}


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    encoding=st.sampled_from(WIDE_AND_NARROW),
    # Characters whose UTF-16/32 bytes hold the bytes of "\n" across code units, astral
    # characters, CR and LF: line breaks are only real "\n" characters.
    body=st.text(alphabet="ab\n\r\u0a05\u0100\u0a00\U00010000\u0a41é😀", max_size=60),
    block=st.sampled_from([4, 8, 12, 64]),
    offset=st.integers(-25, 25),
    limit=st.integers(1, 6),
)
def test_read_windows_in_every_encoding_and_block_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, encoding, body, block, offset, limit
):
    if encoding == "latin-1":
        body = body.encode("latin-1", "replace").decode("latin-1")
    monkeypatch.setattr(line_reader, "BLOCK", block)  # blocks end inside characters
    (tmp_path / "f.txt").write_bytes(BOMS.get(encoding, b"") + body.encode(encoding))
    lines = body.split("\n") if body else []
    if body.endswith("\n"):
        lines.pop()
    lines = [line.rstrip("\r\n") for line in lines]
    total = len(lines)
    first = max(1, offset or 1) if offset >= 0 else max(1, total + offset + 1)
    try:
        out = call(tmp_path, "read_file", path="f.txt", offset=offset, limit=limit)
    except ToolError as exc:
        assert offset > max(total, 1) and f"past the end of f.txt ({total} lines)" in str(exc)
        return
    if total == 0:
        assert out.startswith("f.txt: empty file (0 lines)")
        return
    shown = lines[first - 1 : first - 1 + limit]
    got = out.split("\n")  # a lone "\r" is not a line break
    assert got[0].startswith(f"f.txt: lines {first}-{first + len(shown) - 1} of {total}")
    assert got[1 : 1 + len(shown)] == [f"{n:>6}\t{t}" for n, t in enumerate(shown, first)]


def test_tail_of_a_wide_file_too_large_to_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(line_reader, "COUNT_LIMIT", 100)
    monkeypatch.setattr(line_reader, "BLOCK", 64)
    lines = [f"{n} \u0a05\u0100 😀" for n in range(1, 201)]
    (tmp_path / "big.txt").write_bytes(
        codecs.BOM_UTF16_LE + "".join(f"{line}\r\n" for line in lines).encode("utf-16-le")
    )
    out = call(tmp_path, "read_file", path="big.txt", offset=-2).splitlines()
    assert out[0].startswith("big.txt: lines -2 to -1 counted from the end")
    assert out[0].endswith("too large to count its lines) (UTF-16 LE)")
    assert out[1:] == [f"    -2\t{lines[-2]}", f"    -1\t{lines[-1]}"]
    # From the start, the numbers are the usual ones, and the header says so.
    out = call(tmp_path, "read_file", path="big.txt", offset=150, limit=2).splitlines()
    assert out == [
        "big.txt: lines 150-151 (a 4.1 KB file is too large to count its lines) (UTF-16 LE)",
        f"   150\t{lines[149]}",
        f"   151\t{lines[150]}",
    ]


def test_past_the_full_scan_limit_the_lines_shown_decide_utf8_or_latin1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(textfile, "FULL_SCAN_LIMIT", 10)
    (tmp_path / "mixed.txt").write_bytes("utf-8: é\n".encode() + "latin-1: é\n".encode("latin-1"))
    assert call(tmp_path, "read_file", path="mixed.txt", limit=1).splitlines()[:2] == [
        "mixed.txt: lines 1-1 of 2",
        "     1\tutf-8: é",
    ]
    assert call(tmp_path, "read_file", path="mixed.txt", offset=2).splitlines() == [
        "mixed.txt: lines 2-2 of 2 (latin-1)",
        "     2\tlatin-1: é",
    ]
    monkeypatch.setattr(textfile, "FULL_SCAN_LIMIT", 1000)  # scanned whole: latin-1 throughout
    assert call(tmp_path, "read_file", path="mixed.txt", limit=1).splitlines()[:2] == [
        "mixed.txt: lines 1-1 of 2 (latin-1)",
        "     1\tutf-8: Ã©",
    ]

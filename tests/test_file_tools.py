"""read_file, write_file and edit_file, called directly (the core, no LSP)."""

from __future__ import annotations

import asyncio
import os
import stat
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workspace_agent.agent.todo import TodoList
from workspace_agent.config import AgentSettings
from workspace_agent.tools import TOOLS, ToolContext, ToolError


def call(root: Path, name: str, **args) -> str:
    tool = TOOLS[name]
    tool.validate(args)
    return asyncio.run(tool.handler(ToolContext(root, AgentSettings(), TodoList()), args))


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


def test_edit_refuses_non_utf8_and_empty_old_text(tmp_path: Path):
    (tmp_path / "latin.txt").write_bytes("caf\xe9".encode("latin-1"))
    with pytest.raises(ToolError, match="not UTF-8 text"):
        call(tmp_path, "edit_file", path="latin.txt", old_text="caf", new_text="tea")
    with pytest.raises(ToolError, match="old_text must not be empty"):
        call(tmp_path, "edit_file", path="latin.txt", old_text="", new_text="x")


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
    ctx = ToolContext(tmp_path, AgentSettings(api_key="sk-dotenv-secret"), TodoList())
    out = asyncio.run(tool.handler(ctx, {"command": "env; printenv ANTHROPIC_API_KEY"}))
    for secret in ("sk-env-secret", "ghp-secret", "hunter2", "sk-dotenv-secret"):
        assert secret not in out
    assert "HARMLESS_SETTING=visible" in out
    assert out.endswith("[exit status 1]")  # printenv found nothing
    assert os.environ["ANTHROPIC_API_KEY"] == "sk-env-secret"  # ours is untouched

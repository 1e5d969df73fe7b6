"""search and find_files called as the loop calls them (TOOLS, validate, handler), in a
git repository and in a plain folder: what the model reads back."""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path

import pytest

from workspace_agent.config import AgentSettings
from workspace_agent.guard.approvals import Approvals
from workspace_agent.shared.todo import TodoList
from workspace_agent.tools import TOOLS, ToolContext, ToolError
from workspace_agent.tools.base import output_text


def call(root: Path, name: str, settings: AgentSettings | None = None, **args) -> str:
    tool = TOOLS[name]
    tool.validate(args)
    ctx = ToolContext(root, settings or AgentSettings(), TodoList(), Approvals())
    return output_text(asyncio.run(tool.handler(ctx, args)))


def git(root: Path, *args: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=env)


def project(root: Path, repository: bool) -> Path:
    """A workspace with a tracked file, an untracked one, an ignored one, a nested ignore
    file with a negation, a symlink to a file outside and one to a folder outside."""
    outside = root.parent / f"{root.name}-outside"
    outside.mkdir()
    root.mkdir()
    (outside / "secret.txt").write_text("needle outside\n")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("def needle():\n    return 1\n\nneedle()\n")
    (root / ".gitignore").write_text("build/\n*.log\n")
    (root / "build").mkdir()
    (root / "build" / "out.py").write_text("needle built\n")
    (root / "debug.log").write_text("needle logged\n")
    (root / "docs").mkdir()
    (root / "docs" / ".gitignore").write_text("*.md\n!keep.md\n")
    (root / "docs" / "drop.md").write_text("needle dropped\n")
    (root / "docs" / "keep.md").write_text("a needle kept\n")
    os.symlink(outside / "secret.txt", root / "link.txt")
    os.symlink(outside, root / "linked_dir")
    if repository:
        git(root, "init", "-q")
        git(root, "add", "src/app.py", ".gitignore")
    (root / "notes.txt").write_text("untracked needle\n")
    return root


@pytest.mark.parametrize("repository", [True, False], ids=["git", "walker"])
def test_search_respects_gitignore_and_never_follows_links(tmp_path: Path, repository: bool):
    root = project(tmp_path / "ws", repository)
    out = call(root, "search", pattern="needle")
    assert out.splitlines()[0] == "4 matches for the pattern `needle` in 3 files:"
    assert "src/app.py:1: def needle():" in out
    assert "src/app.py:4: needle()" in out
    assert "notes.txt:1: untracked needle" in out
    assert "docs/keep.md:1: a needle kept" in out
    for left_out in ("built", "logged", "dropped", "outside"):
        assert left_out not in out
    listed = call(root, "find_files", pattern="**/*")
    assert "build/out.py" not in listed and "debug.log" not in listed
    assert "docs/drop.md" not in listed and "secret.txt" not in listed
    assert "link.txt (symlink, not followed)" in listed
    assert "src/app.py" in listed and "notes.txt" in listed


def test_search_context_glob_case_and_literal(tmp_path: Path):
    root = project(tmp_path / "ws", repository=True)
    out = call(root, "search", pattern="NEEDLE\\(\\)", ignore_case=True, context=1, glob="*.py")
    assert out.splitlines()[2:] == [
        "src/app.py:1: def needle():",
        "src/app.py-2-     return 1",
        "src/app.py-3- ",
        "src/app.py:4: needle()",
    ]
    with pytest.raises(ToolError, match="must not hold a line break"):
        call(root, "search", pattern="needle()\n", literal=True)
    literal = call(root, "search", pattern="(", literal=True, glob="src/**")
    assert literal.startswith("2 matches for the text `(`")


def test_a_bad_regex_is_a_clear_error(tmp_path: Path):
    with pytest.raises(ToolError, match=r"not a valid regular expression.*literal: true"):
        call(tmp_path, "search", pattern="foo(")


@pytest.mark.parametrize("repository", [True, False], ids=["git", "walker"])
def test_a_huge_file_is_skipped_with_a_note(tmp_path: Path, repository: bool):
    root = tmp_path / "ws"
    root.mkdir()
    (root / "small.txt").write_text("needle\n")
    if repository:
        git(root, "init", "-q")
    with (root / "huge.bin").open("wb") as f:  # 2 GB, sparse: nothing written but the end
        f.truncate(2 * 1024**3 - 7)
        f.seek(0, os.SEEK_END)
        f.write(b"needle\n")
    out = call(root, "search", pattern="needle")
    assert out.splitlines()[0] == "1 match for the pattern `needle` in 1 file:"
    assert "Skipped 1 file(s) larger than maxFileBytes: huge.bin" in out


def test_results_are_bounded_with_the_total(tmp_path: Path):
    (tmp_path / "many.txt").write_text("".join(f"hit {n}\n" for n in range(250)))
    out = call(tmp_path, "search", pattern="hit")
    lines = out.splitlines()
    assert lines[0] == "250 matches for the pattern `hit` in 1 file:"
    assert sum(1 for line in lines if line.startswith("many.txt:")) == 200
    assert "Showing the first 200 of 250 matches. Narrow the search" in out
    assert "many.txt:200: hit 199" in out and "hit 200" not in out


def test_binary_files_are_skipped(tmp_path: Path):
    (tmp_path / "blob.dat").write_bytes(b"needle\0\1\2")
    (tmp_path / "text.txt").write_text("needle\n")
    out = call(tmp_path, "search", pattern="needle")
    assert "text.txt:1: needle" in out and "blob.dat" not in out.splitlines()[2]
    assert "Skipped 1 binary file(s)." in out


def test_credentials_in_the_workspace_are_hidden(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))  # the workspace is the home folder
    (tmp_path / ".ssh").mkdir()
    (tmp_path / ".ssh" / "id_ed25519").write_text("needle PRIVATE KEY\n")
    (tmp_path / ".workspace-agent").mkdir()
    (tmp_path / ".workspace-agent" / "state.json").write_text("needle\n")
    (tmp_path / "mine.txt").write_text("needle\n")
    out = call(tmp_path, "search", pattern="needle")
    assert out.splitlines()[0] == "1 match for the pattern `needle` in 1 file:"
    assert "id_ed25519" not in call(tmp_path, "find_files", pattern="**/*")


def test_find_files_newest_first_and_bounded(tmp_path: Path):
    for n in range(205):
        path = tmp_path / "pkg" / f"m{n:03d}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text("")
        os.utime(path, (1_000_000 + n, 1_000_000 + n))
    out = call(tmp_path, "find_files", pattern="*.py", newest_first=True)
    lines = out.splitlines()
    assert lines[0] == "205 files match `*.py`, newest first:"
    assert lines[1:3] == ["pkg/m204.py", "pkg/m203.py"]
    assert lines[-1].startswith("Showing 200 of 205. Narrow the pattern")
    braces = call(tmp_path, "find_files", pattern="pkg/m00{1,2}.py")
    assert braces.splitlines() == ["2 files match `pkg/m00{1,2}.py`:", "pkg/m001.py", "pkg/m002.py"]
    with pytest.raises(ToolError, match="outside the workspace"):
        call(tmp_path, "find_files", pattern="../*")

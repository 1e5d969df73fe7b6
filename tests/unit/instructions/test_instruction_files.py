"""Project instructions (AGENTS.md / CLAUDE.md), in process: which files are read, the
cap, and the system prompt's block. tests/lsp/test_instructions.py has them over LSP."""

from __future__ import annotations

from pathlib import Path

from workspace_agent.agent.prompt import system_prompt
from workspace_agent.instructions import CAP_BYTES, load_instructions

NAMES = ("AGENTS.md", "CLAUDE.md")


def test_agents_md_wins_over_claude_md_and_the_setting_changes_the_list(tmp_path: Path):
    (tmp_path / "AGENTS.md").write_text("Run tests with `make check`.\n")
    (tmp_path / "CLAUDE.md").write_text("Claude rules.\n")
    empty = tmp_path / "user"
    found = load_instructions(tmp_path, NAMES, empty)
    assert [f.shown for f in found.files] == ["AGENTS.md"]
    assert "make check" in found.block() and "Claude rules" not in found.block()
    only_claude = load_instructions(tmp_path, ("CLAUDE.md",), empty)
    assert [f.shown for f in only_claude.files] == ["CLAUDE.md"]
    (tmp_path / "AGENTS.md").unlink()
    assert [f.shown for f in load_instructions(tmp_path, NAMES, empty).files] == ["CLAUDE.md"]
    assert load_instructions(tmp_path, (), empty).files == ()


def test_user_file_comes_first_and_the_block_is_delimited(tmp_path: Path):
    user = tmp_path / "user"
    user.mkdir()
    (user / "AGENTS.md").write_text("User rule.\n")
    root = tmp_path / "ws"
    root.mkdir()
    (root / "AGENTS.md").write_text("Project rule.\n")
    block = load_instructions(root, NAMES, user).block()
    assert block.index("User rule.") < block.index("Project rule.")
    assert (
        '<instructions source="AGENTS.md" scope="project">\nProject rule.\n</instructions>' in block
    )
    assert 'scope="user"' in block
    prompt = system_prompt(root, block)
    assert prompt.startswith(system_prompt(root)) and prompt.endswith("</instructions>")


def test_no_files_leave_the_system_prompt_unchanged(tmp_path: Path):
    found = load_instructions(tmp_path, NAMES, tmp_path / "none")
    assert found.block() == "" and found.notice() is None
    assert system_prompt(tmp_path, found.block()) == system_prompt(tmp_path)


def test_a_big_file_is_cut_with_a_note_saying_what_was_cut(tmp_path: Path):
    (tmp_path / "AGENTS.md").write_text("é" * CAP_BYTES)  # 2 bytes each: 64 KiB
    found = load_instructions(tmp_path, NAMES, tmp_path / "none")
    (file,) = found.files
    assert len(file.text.encode()) <= CAP_BYTES and file.text == "é" * (CAP_BYTES // 2)
    assert file.cut == CAP_BYTES
    block = found.block()
    assert f"AGENTS.md has {2 * CAP_BYTES:,} bytes; only the first {CAP_BYTES:,} are shown" in block
    assert "cut to 32 KiB of 64 KiB" in (found.notice() or "")


def test_a_file_leading_outside_the_workspace_is_not_read(tmp_path: Path):
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    root = tmp_path / "ws"
    root.mkdir()
    (root / "AGENTS.md").symlink_to(secret)
    assert load_instructions(root, NAMES, tmp_path / "none").files == ()

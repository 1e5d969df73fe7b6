"""`.workspace-agent/` ignores itself for git from the moment any of its folders is made."""

from __future__ import annotations

from pathlib import Path

from workspace_agent.shared.local_state import make_folder


def test_the_state_folder_gets_its_gitignore_with_its_first_folder(tmp_path: Path):
    make_folder(tmp_path / ".workspace-agent" / "sessions")
    ignore = tmp_path / ".workspace-agent" / ".gitignore"
    assert ignore.read_text().splitlines()[-1] == "*"
    assert (tmp_path / ".workspace-agent" / "sessions").is_dir()


def test_a_users_own_gitignore_is_left_alone(tmp_path: Path):
    (tmp_path / ".workspace-agent").mkdir()
    (tmp_path / ".workspace-agent" / ".gitignore").write_text("sessions/\n")
    make_folder(tmp_path / ".workspace-agent" / "checkpoints" / "nested")
    assert (tmp_path / ".workspace-agent" / ".gitignore").read_text() == "sessions/\n"


def test_folders_elsewhere_get_no_ignore_file(tmp_path: Path):
    make_folder(tmp_path / "build" / "out")
    assert not (tmp_path / "build" / ".gitignore").exists()

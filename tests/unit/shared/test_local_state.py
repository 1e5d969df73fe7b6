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


def test_a_folder_made_before_is_made_again_when_it_or_its_ignore_file_went(tmp_path: Path):
    """The second call is a quick check, not a no-op: what went is made again."""
    import shutil

    sessions = tmp_path / ".workspace-agent" / "sessions"
    ignore = tmp_path / ".workspace-agent" / ".gitignore"
    make_folder(sessions)
    ignore.unlink()
    make_folder(sessions)
    assert ignore.read_text().splitlines()[-1] == "*"
    shutil.rmtree(tmp_path / ".workspace-agent")
    make_folder(sessions)
    assert sessions.is_dir() and ignore.is_file()

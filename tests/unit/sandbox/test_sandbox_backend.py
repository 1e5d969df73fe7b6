"""One place chooses the sandbox backend; bubblewrap and Seatbelt are peers behind it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from workspace_agent.sandbox.backend import (
    Bubblewrap,
    LaunchRequest,
    Seatbelt,
    Unsupported,
    backend,
    confinement,
)
from workspace_agent.shared.errors import ToolError


def test_each_system_gets_its_backend():
    assert isinstance(backend("Linux"), Bubblewrap)
    assert isinstance(backend("Darwin"), Seatbelt)
    windows = backend("Windows")
    assert isinstance(windows, Unsupported) and windows.name == "none"


def test_a_system_without_a_backend_says_why_and_refuses_a_launch(tmp_path: Path):
    none = backend("Windows")
    state = asyncio.run(none.availability(tmp_path))
    assert not state.ok
    assert state.describe() == (
        "Windows: commands cannot be sandboxed here; to fix: none; commands are asked about as before"
    )
    with pytest.raises(ToolError, match="not run: Windows has no sandbox"):
        asyncio.run(none.launch(LaunchRequest(tmp_path, "s1", ["true"], {})))


def test_macos_reports_seatbelt_unavailable_so_commands_are_asked_about(tmp_path: Path):
    state = asyncio.run(backend("Darwin").availability(tmp_path))
    assert not state.ok
    assert "Seatbelt sandbox is not in yet" in state.reason


def test_the_seatbelt_launch_runs_sandbox_exec_with_the_sessions_profile(tmp_path: Path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    home = tmp_path / "home"
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin"}
    request = LaunchRequest(workspace, "s1", ["/bin/bash", "-c", "make"], env)
    launch = asyncio.run(Seatbelt().launch(request))
    assert launch.argv[:2] == ["/usr/bin/sandbox-exec", "-p"]
    assert launch.argv[3:] == ["/bin/bash", "-c", "make"]
    assert launch.policy is not None
    temp = str(launch.policy.temp_dir)
    profile = launch.argv[2]
    assert f'(subpath "{workspace.resolve()}")' in profile.split("(allow file-write*")[1]
    assert "(deny network*)" in profile
    # No mount namespace: the session's temp dir is TMPDIR under its own path.
    assert launch.env["TMPDIR"] == temp
    assert launch.env["PIP_CACHE_DIR"].startswith(f"{temp}/")
    assert launch.env["HOME"] == str(home)


def test_the_seatbelt_launch_in_plan_mode_writes_nothing_in_the_workspace(tmp_path: Path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    extra = tmp_path / "cache"
    extra.mkdir()
    request = LaunchRequest(
        workspace, "s2", ["true"], {"HOME": str(tmp_path)}, writable=(extra,), read_only=True
    )
    launch = asyncio.run(Seatbelt().launch(request))
    writes = launch.argv[2].split("(allow file-write*")[1].split("\n")[0]
    assert str(workspace.resolve()) not in writes
    assert str(extra) not in writes  # plan mode drops the widening too


def test_confinement_follows_the_mode(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr("workspace_agent.sandbox.backend.platform.system", lambda: "Windows")
    off = asyncio.run(confinement("off", tmp_path))
    assert not off.sandboxed and off.refusal is None and off.reason is None
    auto = asyncio.run(confinement("auto", tmp_path))
    assert not auto.sandboxed and auto.refusal is None
    assert auto.reason is not None and auto.reason.startswith(
        "Windows: commands cannot be sandboxed"
    )
    required = asyncio.run(confinement("required", tmp_path))
    assert not required.sandboxed
    assert required.refusal is not None
    assert required.refusal.startswith("not run: sandbox.mode is `required` and the sandbox cannot")

"""Checkpoints learn what changed from the editor's file watcher when the client offers
dynamic `workspace/didChangeWatchedFiles` registration: the server registers `**/*` once a
store opens, and its scans use the client's events (no inotify watch of its own on the
workspace). A client that does not offer it leaves the server on inotify.

The client here is a watcher double that follows the protocol: on the registration it
watches the workspace (inotify, in the test process) and sends every event as
`workspace/didChangeWatchedFiles`, as VS Code's native watcher does."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest_lsp
from lsprotocol import types

from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.client import RecordingClient, start_server, start_session
from tests.support.file_watcher import WatcherDouble
from tests.support.lsp import changes, events_of, run

COMMANDS = script_of(
    reply(
        tool("bash", {"command": "echo two >> pkg/mod.py && mkdir -p gen/x && echo g > gen/x/g"})
    ),
    reply(tool("bash", {"command": "rm -rf gen && echo three >> pkg/mod.py"})),
    reply(text("Done.")),
)


def inotify_watchers(folder: Path) -> set[int]:
    """The processes (other than this one) holding an inotify watch on `folder`, from
    /proc/PID/fdinfo: each watch names the inode it watches and its file system's device
    (the kernel's encoding: major << 20 | minor), so a folder of another file system with
    the same inode number is not taken for this one."""
    stat = os.stat(folder)
    device = (os.major(stat.st_dev) << 20) | os.minor(stat.st_dev)
    inode = f"ino:{stat.st_ino:x} sdev:{device:x} "
    found = set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        if int(pid) == os.getpid():
            continue
        try:
            fds = os.listdir(f"/proc/{pid}/fdinfo")
        except OSError:
            continue
        for fd in fds:
            try:
                info = Path(f"/proc/{pid}/fdinfo/{fd}").read_text()
            except OSError:
                continue
            if "inotify wd:" in info and inode in info:
                found.add(int(pid))
    return found


def workspace_with_module(workspace: Path) -> None:
    (workspace / "pkg").mkdir()
    (workspace / "pkg" / "mod.py").write_text("one\n")


async def session(
    workspace: Path, model: ScriptedModelServer, double: bool
) -> tuple[RecordingClient, WatcherDouble | None]:
    client = await start_server()
    watcher = WatcherDouble(client, workspace) if double else None
    if watcher is not None:
        client.on_register = watcher.register
    caps = watcher.capabilities() if watcher else without_watching()
    await start_session(client, workspace, model, capabilities=caps)
    return client, watcher


def without_watching() -> types.ClientCapabilities:
    caps = pytest_lsp.client_capabilities("visual-studio-code")
    assert caps.workspace
    caps.workspace.did_change_watched_files = None
    return caps


def changed_files(got: dict[str, Any]) -> dict[str, str]:
    return {f["path"]: f["change"] for item in got["items"] for f in item["files"]}


async def test_a_client_that_watches_gets_the_registration_and_its_events_are_used(
    workspace: Path, model: ScriptedModelServer
):
    workspace_with_module(workspace)
    model.load(COMMANDS)
    client, watcher = await session(workspace, model, double=True)
    assert watcher is not None
    try:
        result = await run(client, "Change the module")
        assert result["stopReason"] == "end_turn"
        assert [r.method for r in client.registrations] == [
            types.WORKSPACE_DID_CHANGE_WATCHED_FILES
        ]
        options: Any = client.registrations[0].register_options
        assert options["watchers"] == [{"globPattern": "**/*"}]
        # the server waited for its cookies to come back through the client's events
        assert any(p.startswith(".workspace-agent/checkpoints/cookies/") for p in watcher.sent)
        assert inotify_watchers(workspace) == set()  # no watcher of the server's own
        # each cookie came back in time: no scan fell back to looking at everything
        assert events_of(client, "notice") == []
        got = changed_files(await changes(client, result["sessionId"]))
        assert got == {"pkg/mod.py": "modified"}
        assert (workspace / "pkg" / "mod.py").read_text() == "one\ntwo\nthree\n"
    finally:
        watcher.close()
        await client.shutdown_session()


async def test_a_client_that_does_not_watch_leaves_the_server_on_inotify(
    workspace: Path, model: ScriptedModelServer
):
    workspace_with_module(workspace)
    model.load(COMMANDS)
    client, _ = await session(workspace, model, double=False)
    try:
        assert inotify_watchers(workspace) == set()  # nothing watched before a store opens
        result = await run(client, "Change the module")
        assert result["stopReason"] == "end_turn"
        watchers = inotify_watchers(workspace)
        assert len(watchers) == 1, watchers  # the server's own
        got = changed_files(await changes(client, result["sessionId"]))
        assert got == {"pkg/mod.py": "modified"}
    finally:
        await client.shutdown_session()

"""The editor's side of a `workspace/didChangeWatchedFiles` registration, as VS Code plays
it: on the registration the client watches the workspace (inotify, in the test process)
and sends every event on to the server."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import TYPE_CHECKING

import pytest_lsp
from lsprotocol import types

if TYPE_CHECKING:
    from pytest_lsp import LanguageClient


class WatcherDouble:
    """The editor's side of a didChangeWatchedFiles registration: inotify on every folder
    of the workspace, each event sent on to the server."""

    def __init__(self, client: LanguageClient, root: Path) -> None:
        from inotify_simple import INotify, flags

        self.client, self.root = client, root
        self.sent: list[str] = []
        self._flags = flags
        self._inotify = INotify(nonblocking=True)
        self._mask = flags.CREATE | flags.DELETE | flags.MODIFY | flags.ATTRIB
        self._mask |= flags.MOVED_FROM | flags.MOVED_TO
        self._folders: dict[int, Path] = {}

    def capabilities(self) -> types.ClientCapabilities:
        caps = pytest_lsp.client_capabilities("visual-studio-code")
        assert caps.workspace and caps.workspace.did_change_watched_files
        assert caps.workspace.did_change_watched_files.dynamic_registration
        return caps

    def register(self, params: types.RegistrationParams) -> None:
        self._watch(self.root)
        asyncio.get_running_loop().add_reader(self._inotify.fileno(), self._read)

    def _watch(self, folder: Path) -> None:
        for top, dirs, _files in os.walk(folder):
            dirs[:] = [d for d in dirs if d != ".git"]
            self._folders[self._inotify.add_watch(top, self._mask)] = Path(top)

    def _read(self) -> None:
        found = []
        for event in self._inotify.read(timeout=0):
            folder = self._folders.get(event.wd)
            if folder is None or not event.name:
                continue
            path = folder / event.name
            if event.mask & self._flags.ISDIR and event.mask & (
                self._flags.CREATE | self._flags.MOVED_TO
            ):
                self._watch(path)
            kind = (
                types.FileChangeType.Deleted
                if event.mask & (self._flags.DELETE | self._flags.MOVED_FROM)
                else types.FileChangeType.Created
                if event.mask & (self._flags.CREATE | self._flags.MOVED_TO)
                else types.FileChangeType.Changed
            )
            found.append(types.FileEvent(uri=path.as_uri(), type=kind))
            self.sent.append(str(path.relative_to(self.root)))
        if found:
            self.client.workspace_did_change_watched_files(
                types.DidChangeWatchedFilesParams(changes=found)
            )

    def close(self) -> None:
        asyncio.get_running_loop().remove_reader(self._inotify.fileno())
        self._inotify.close()

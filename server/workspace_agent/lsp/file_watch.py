"""The editor's file watcher as the checkpoints' change feed: when the client can register
`workspace/didChangeWatchedFiles` dynamically, the store's first opening registers `**/*`
and the events go to the store (checkpoints/client_feed.py); no inotify watcher starts.
A client that cannot (or refuses the registration) leaves the checkpoints on inotify.

Nothing is registered before a store opens: a session that never changes the workspace
watches nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.uris import to_fs_path

from .features import LanguageFeature

if TYPE_CHECKING:
    from ..checkpoints.changefeed import ChangeFeed
    from ..checkpoints.client_feed import ClientFeed
    from ..checkpoints.service import Checkpoints

log = logging.getLogger(__name__)

REGISTRATION_ID = "workspaceAgent.checkpoints.files"


class EditorFileWatch(LanguageFeature):
    def __init__(
        self,
        capabilities: Callable[[], types.ClientCapabilities],
        register: Callable[[types.RegistrationParams], Awaitable[Any]],
        service: Callable[[], Checkpoints],
    ) -> None:
        self._capabilities = capabilities
        self._register = register
        self._service = service
        self._feeds: list[ClientFeed] = []
        self._registered = False

    def initialized(self) -> None:
        workspace = self._capabilities().workspace
        watched = workspace.did_change_watched_files if workspace else None
        if watched is not None and watched.dynamic_registration:
            self._service().feeds = self.feed_for

    async def feed_for(self, root: Path) -> ChangeFeed | None:
        from ..checkpoints.client_feed import ClientFeed
        from ..checkpoints.service import inotify_feed

        if not self._registered:
            try:
                await self._register(_registration())
            except Exception as exc:  # refused: this process watches for itself
                log.warning("the editor did not take the file watch (%s): using inotify", exc)
                self._service().feeds = inotify_feed
                return await inotify_feed(root)
            self._registered = True
        feed = ClientFeed(root)
        self._feeds.append(feed)
        return feed

    def changed(self, params: types.DidChangeWatchedFilesParams) -> None:
        """`workspace/didChangeWatchedFiles`: each store's share of the events."""
        if not self._feeds:
            return
        events = []
        for change in params.changes:
            path = to_fs_path(change.uri)
            if path:
                events.append((Path(path), change.type == types.FileChangeType.Deleted))
        for feed in self._feeds:
            mine = []
            for changed, deleted in events:
                try:
                    relative = changed.relative_to(feed.root)
                except ValueError:
                    continue
                if relative.parts:
                    mine.append((relative.as_posix(), deleted))
            if mine:
                feed.events(mine)

    async def shutdown(self) -> None:
        for feed in self._feeds:
            feed.close()


def _registration() -> types.RegistrationParams:
    options = types.DidChangeWatchedFilesRegistrationOptions(
        watchers=[types.FileSystemWatcher(glob_pattern="**/*")]
    )
    return types.RegistrationParams(
        registrations=[
            types.Registration(
                id=REGISTRATION_ID,
                method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=options,
            )
        ]
    )

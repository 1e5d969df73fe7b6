"""MCP servers the user turned off (the editor's Disable), kept in the user config folder
(`mcp-disabled.json`), never in the repository, keyed like trust by the fingerprint of
the exact config: that config stays off in every workspace and across restarts until the
user enables it again; a server whose config changed is another server and starts (or,
from a workspace file, asks for trust) as any new one does. A disabled server is listed
with the state `disabled` and never started, nor asked about.
"""

from __future__ import annotations

from pathlib import Path

from ..shared.fingerprints import FingerprintRecords
from .config import ServerConfig

DISABLED_FILE = "mcp-disabled.json"


class DisabledStore:
    def __init__(self, user_dir: Path) -> None:
        self._records = FingerprintRecords(user_dir / DISABLED_FILE, "disabled", "disabledAt")
        self.path = self._records.path

    def disabled(self, server: ServerConfig) -> bool:
        return self._records.has(server)

    def disable(self, server: ServerConfig) -> None:
        self._records.add(server)

    def enable(self, server: ServerConfig) -> None:
        self._records.remove(server)

"""Trust in a workspace's MCP server: the user approved the sha256 of its exact config.

Stored in the user config folder (`mcp-trust.json`), never in the repository, keyed by
fingerprint, not by name: a later change of command, argument, env, cwd, url or header
is another fingerprint, so it is asked about again (Cursor's CVE-2025-54136 trusted a
name). Headless runs never record trust; `--mcp NAME` starts a candidate for one run.
"""

from __future__ import annotations

from pathlib import Path

from ..shared.fingerprints import FingerprintRecords
from .config import ServerConfig

TRUST_FILE = "mcp-trust.json"


class TrustStore:
    def __init__(self, user_dir: Path) -> None:
        self._records = FingerprintRecords(user_dir / TRUST_FILE, "approved", "approvedAt")
        self.path = self._records.path

    def trusted(self, server: ServerConfig) -> bool:
        return self._records.has(server)

    def approve(self, server: ServerConfig) -> None:
        self._records.add(server)

    def revoke(self, server: ServerConfig) -> None:
        self._records.remove(server)

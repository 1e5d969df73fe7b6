"""Trust in a workspace's MCP server: the user approved the sha256 of its exact config.

Stored in the user config folder (`mcp-trust.json`), never in the repository, keyed by
fingerprint, not by name: a later change of command, argument, env, cwd, url or header
is another fingerprint, so it is asked about again (Cursor's CVE-2025-54136 trusted a
name). Headless runs never record trust; `--mcp NAME` starts a candidate for one run.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import time
from pathlib import Path

from .config import ServerConfig

log = logging.getLogger(__name__)

TRUST_FILE = "mcp-trust.json"


class TrustStore:
    def __init__(self, user_dir: Path) -> None:
        self.path = user_dir / TRUST_FILE

    def trusted(self, server: ServerConfig) -> bool:
        return server.fingerprint() in self._load()

    def approve(self, server: ServerConfig) -> None:
        records = self._load()
        records[server.fingerprint()] = {
            "name": server.name,
            "origin": server.origin,
            "approvedAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        self._save(records)

    def revoke(self, server: ServerConfig) -> None:
        records = self._load()
        if records.pop(server.fingerprint(), None) is not None:
            self._save(records)

    def _load(self) -> dict[str, dict[str, str]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            log.warning("ignoring %s: %s", self.path, exc)
            return {}
        approved = data.get("approved") if isinstance(data, dict) else None
        return dict(approved) if isinstance(approved, dict) else {}

    def _save(self, records: dict[str, dict[str, str]]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".mcp-trust-")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump({"approved": records}, handle, indent=2, sort_keys=True)
        os.replace(tmp, self.path)

"""Servers recorded by the fingerprint of their exact config, in a JSON file of the user
config folder (never the repository): the trust records (trust.py) and the servers the
user disabled (disabled.py) are both kept this way. A record names the server and where
it was configured, for a human reading the file; the fingerprint alone decides.
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


class FingerprintRecords:
    def __init__(self, path: Path, section: str, stamp: str) -> None:
        self.path = path
        self._section = section
        self._stamp = stamp

    def has(self, server: ServerConfig) -> bool:
        return server.fingerprint() in self._load()

    def add(self, server: ServerConfig) -> None:
        records = self._load()
        records[server.fingerprint()] = {
            "name": server.name,
            "origin": server.origin,
            self._stamp: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        self._save(records)

    def remove(self, server: ServerConfig) -> None:
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
        records = data.get(self._section) if isinstance(data, dict) else None
        return dict(records) if isinstance(records, dict) else {}

    def _save(self, records: dict[str, dict[str, str]]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=f".{self.path.stem}-")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump({self._section: records}, handle, indent=2, sort_keys=True)
        os.replace(tmp, self.path)

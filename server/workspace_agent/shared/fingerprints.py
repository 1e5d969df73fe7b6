"""Things recorded by the fingerprint of their exact config, in a JSON file of the user
config folder (never the repository): the MCP servers the user trusted (mcp/trust.py) or
disabled (mcp/disabled.py), the workspace hooks the user trusted (hooks/trust.py). A
record names the thing and where it was configured, for a human reading the file; the
fingerprint alone decides.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import time
from pathlib import Path
from typing import Protocol

log = logging.getLogger(__name__)


class Fingerprinted(Protocol):
    """What is recorded: its fingerprint decides, its name and origin are for people."""

    @property
    def name(self) -> str: ...

    @property
    def origin(self) -> str: ...

    def fingerprint(self) -> str: ...


class FingerprintRecords:
    def __init__(self, path: Path, section: str, stamp: str) -> None:
        self.path = path
        self._section = section
        self._stamp = stamp

    def has(self, thing: Fingerprinted) -> bool:
        return thing.fingerprint() in self._load()

    def add(self, thing: Fingerprinted) -> None:
        records = self._load()
        records[thing.fingerprint()] = {
            "name": thing.name,
            "origin": thing.origin,
            self._stamp: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        self._save(records)

    def remove(self, thing: Fingerprinted) -> None:
        records = self._load()
        if records.pop(thing.fingerprint(), None) is not None:
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

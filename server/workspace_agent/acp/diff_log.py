"""The diffs an ACP session's tool calls ended with, kept so `session/load` replays them.

The session file holds the conversation, not what the client was shown: an edit's result
there is the line the model read ("Edited notes.md: ..."), and a command's does not say
whether it ran in the sandbox. So the `diff` content and locations each edit or write
ended with, and the `_meta` a call ended with, are appended, as sent, to
`<workspace>/.workspace-agent/acp/<sessionId>.diffs.jsonl` (one JSON line per tool call,
`{toolUseId, content, locations, meta?}`; each diff is bounded by diffs.py). Only the ACP adapter
writes it. A line that does not parse (a crash mid-write) is skipped: that call replays
as text, as it would without the file.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from ..shared.local_state import make_folder

log = logging.getLogger(__name__)

FOLDER = Path(".workspace-agent") / "acp"


class DiffLog:
    def __init__(self, root: Path, session_id: str) -> None:
        self.path = root / FOLDER / f"{session_id}.diffs.jsonl"

    def append(
        self,
        tool_use_id: str,
        content: list[Any],
        locations: list[Any],
        meta: dict[str, Any] | None = None,
    ) -> None:
        """One small append (flushed, not synced), like the session file's per turn."""
        record: dict[str, Any] = {
            "toolUseId": tool_use_id,
            "content": content,
            "locations": locations,
        }
        if meta:
            record["meta"] = meta
        try:
            make_folder(self.path.parent)
            with self.path.open("a", encoding="utf-8") as f:
                f.write(json.dumps(record, ensure_ascii=False) + "\n")
        except OSError as exc:  # the run goes on; a load shows this call as text
            log.warning("could not keep the diff of %s: %s", tool_use_id, exc)

    def read(self) -> dict[str, dict[str, Any]]:
        """The records by tool_use id (blocking: meant for a worker thread)."""
        try:
            lines = self.path.read_bytes().splitlines()
        except FileNotFoundError:
            return {}
        except OSError as exc:
            log.warning("could not read %s: %s", self.path, exc)
            return {}
        found: dict[str, dict[str, Any]] = {}
        for line in lines:
            try:
                record = json.loads(line)
                found[str(record["toolUseId"])] = record
            except (ValueError, KeyError, TypeError):
                continue
        return found

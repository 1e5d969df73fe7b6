"""Files as the ACP client has them: `fs/read_text_file` (unsaved editor text included)
and `fs/write_text_file`, when the client offers them; otherwise the disk, as always.

An edit is checked against what the client holds just before it is written: if the user
typed into the file after the agent read it, the edit is refused and nothing is lost.
Files larger than CLIENT_READ_LIMIT are read from disk (the client would send the whole
text, where the read_file tool reads only the lines it needs). A path with no file on disk
is not asked about: clients answer that with an error (shown to the user) or with empty
text (which would make a new file look like an existing empty one). The client writes
what it is sent to disk, so there is nothing to flush before a command runs.

When the client refuses a write, its reason (the error's `data`: `details` or `message`,
cut to ERROR_DETAIL_CHARS) is part of the error the model reads.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

from acp import RequestError
from acp.interfaces import Client

from .. import names
from ..shared.documents import Buffer, UserEdit
from ..shared.errors import ToolError

log = logging.getLogger(__name__)

CLIENT_READ_LIMIT = 10 * 1024 * 1024
ERROR_DETAIL_CHARS = 500


class AcpDocuments:
    def __init__(self, client: Client, can_read: bool, can_write: bool) -> None:
        self._client = client
        self._can_read = can_read
        self._can_write = can_write
        self.session_id = ""
        """Set once the session exists (the core creates it after its documents)."""
        self.last_writes: dict[Path, tuple[str | None, str]] = {}
        """The text each file had (None: a new file) and was given by the last write the
        client took (edit_texts.py shows it whole in the edit's diff)."""

    async def buffer(self, path: Path) -> Buffer | None:
        size = _disk_size(path)
        if not self._can_read or size is None or size > CLIENT_READ_LIMIT or _odd(path):
            return None
        try:
            answer = await self._client.read_text_file(session_id=self.session_id, path=str(path))
        except Exception as exc:  # not a file the client can read as text: use the disk
            log.info("the client did not read %s (%s); reading the disk", path, exc)
            return None
        return Buffer(answer.content, None)

    def takes_edits(self) -> bool:
        return self._can_write

    def is_open(self, path: Path) -> bool:
        """The client writes what the agent sends straight to disk: the disk is current
        for every file the agent changed (and asking would cost a round trip per file)."""
        return False

    def user_mark(self) -> int:
        return 0

    def user_edits_since(self, mark: int) -> dict[Path, UserEdit]:
        """ACP does not tell the agent what the user edits or saves."""
        return {}

    async def replace(
        self, path: Path, buffer: Buffer, start: int, end: int, new_text: str
    ) -> bool:
        if not self._can_write or _odd(path):
            return False
        now = await self.buffer(path)
        if now is not None and now.text != buffer.text:
            raise ToolError(
                f"{path.name} changed in the editor while the agent was editing it; nothing was "
                "applied. Read the file again and redo the edit."
            )
        text = buffer.text[:start] + new_text + buffer.text[end:]
        await self._write(path, text)
        self.last_writes[path] = (buffer.text, text)
        return True

    async def create(self, path: Path, text: str) -> bool:
        if not self._can_write or _odd(path):
            return False
        path.parent.mkdir(parents=True, exist_ok=True)  # inside the workspace (safe_path)
        await self._write(path, text)
        self.last_writes[path] = (None, text)
        return True

    async def flush(self) -> None:
        return None

    async def _write(self, path: Path, text: str) -> None:
        try:
            await self._client.write_text_file(
                session_id=self.session_id, path=str(path), content=text
            )
        except Exception as exc:
            raise ToolError(f"the editor could not write {path.name}: {_reason(exc)}") from None


def _disk_size(path: Path) -> int | None:
    """The size of the file at `path` on disk; None when there is no file."""
    try:
        return os.stat(path).st_size
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError:
        return 0  # there is something; let the client say what


def _reason(exc: Exception) -> str:
    """A client's error as the model should read it: the message, and what its `data`
    says (JSON-RPC puts the details there), bounded."""
    message = str(exc)
    data: Any = exc.data if isinstance(exc, RequestError) else None
    if isinstance(data, dict):
        data = data.get("details") or data.get("message") or data
    if data is None or data == message:
        return message
    detail = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    if len(detail) > ERROR_DETAIL_CHARS:
        detail = detail[: ERROR_DETAIL_CHARS - 1] + "…"
    return f"{message} ({detail})"


def _odd(path: Path) -> bool:
    """A name that is not UTF-8: ACP's paths are JSON text, so the client cannot be asked
    about that file; it is read and written on disk (names.py)."""
    return not names.is_plain(str(path))

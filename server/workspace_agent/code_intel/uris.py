"""File URIs and paths, both ways, for any file name (a name that is not UTF-8 keeps its
bytes: Python's surrogateescape text on our side, percent-escaped bytes on the wire)."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import quote, unquote_to_bytes, urlparse


def to_uri(path: Path) -> str:
    return "file://" + quote(os.fsencode(str(path)), safe="/")


def to_path(uri: str) -> Path | None:
    """The local path of a `file:` URI; None for another scheme (an editor's virtual file)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file" or parsed.netloc not in ("", "localhost"):
        return None
    return Path(os.fsdecode(unquote_to_bytes(parsed.path)))

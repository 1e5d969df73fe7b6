"""A file name's three forms: its bytes (what the file system holds), Python's text for
them (`os.fsdecode`: a byte that is not UTF-8 becomes a lone surrogate, U+DC80-U+DCFF,
"surrogateescape"), and its form on the wire and for the model.

Inside the server every path is Python's text: it round-trips any POSIX name through
`os.fsencode`, git's `-z` output and the journal. Text with a lone surrogate cannot be
written as UTF-8 (JSON, the Messages API), so where a name leaves the server it takes its
wire form (docs/protocol.md, *File names*):

- a name that is valid UTF-8 (nearly all) is itself;
- any other name is its *readable form*: its valid parts as text, each byte that is not
  UTF-8 as `\\xhh` and a backslash as `\\\\` (as bash writes it in `$'...'`), e.g.
  `caf\\xe9.txt` for the Latin-1 `café.txt`; the structures that carry a path add its
  bytes beside it (`pathBytes`, base64), and every request that takes a path back takes
  them, or the readable form alone (`from_readable`: one name has one readable form).

Stdlib only, below every other module: the protocol's parsers, the tools and the
checkpoints all use it.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

ENCODING = "utf-8"
ESCAPE = "surrogateescape"
_SURROGATES = re.compile("[\ud800-\udfff]")
_ESCAPED = re.compile(r"\\(\\|x[0-9a-fA-F]{2})")


class BadName(ValueError):
    """A `pathBytes` that is not a name (not base64, empty, a NUL, absolute)."""


def is_plain(name: str) -> bool:
    """Whether `name` is valid UTF-8 text (no byte of it needed an escape)."""
    return name.isascii() or _SURROGATES.search(name) is None


def to_bytes(name: str) -> bytes:
    """The name's bytes (any lone surrogate that is not an escaped byte kept as UTF-8's
    encoding of it, so this never fails)."""
    try:
        return name.encode(ENCODING, ESCAPE)
    except UnicodeEncodeError:
        return name.encode(ENCODING, "surrogatepass")


def from_bytes(data: bytes) -> str:
    """Python's text for a name's bytes (os.fsdecode on a UTF-8 system)."""
    return data.decode(ENCODING, ESCAPE)


def readable(name: str) -> str:
    """The name as text any UTF-8 reader takes: itself when it is valid UTF-8, else its
    readable form (`\\xhh` for each byte that is not UTF-8, `\\\\` for a backslash)."""
    if is_plain(name):
        return name
    out: list[str] = []
    for char in from_bytes(to_bytes(name)):
        if "\udc80" <= char <= "\udcff":
            out.append(f"\\x{ord(char) - 0xDC00:02x}")
        elif char == "\\":
            out.append("\\\\")
        else:
            out.append(char)
    return "".join(out)


def from_readable(text: str) -> str | None:
    """The name whose readable form `text` is, or None when `text` is not the readable
    form of a name that is not UTF-8 (then it names itself)."""
    if "\\x" not in text and "\\X" not in text:
        return None
    data = bytearray()
    at = 0
    for match in _ESCAPED.finditer(text):
        data += text[at : match.start()].encode(ENCODING, "surrogatepass")
        escape = match.group(1)
        data += b"\\" if escape == "\\" else bytes([int(escape[1:], 16)])
        at = match.end()
    data += text[at:].encode(ENCODING, "surrogatepass")
    name = from_bytes(bytes(data))
    if is_plain(name) or readable(name).lower() != text.lower():
        return None  # not what `readable` writes for any name
    return name


def encoded(name: str) -> str | None:
    """`pathBytes` for a name: its bytes in base64, None when it is valid UTF-8."""
    if is_plain(name):
        return None
    return base64.b64encode(to_bytes(name)).decode("ascii")


def decoded(path_bytes: str) -> str:
    """The name a `pathBytes` carries (BadName when it is not one)."""
    try:
        data = base64.b64decode(path_bytes, validate=True)
    except (binascii.Error, ValueError):
        raise BadName("'pathBytes' must be base64 (the name's bytes)") from None
    if not data or b"\0" in data:
        raise BadName("'pathBytes' must be a name's bytes: not empty, no NUL byte")
    return from_bytes(data)


def path_fields(name: str, key: str = "path") -> dict[str, str]:
    """`{path}` on the wire, plus `{key}Bytes` when the name is not UTF-8."""
    fields = {key: readable(name)}
    raw = encoded(name)
    if raw is not None:
        fields[f"{key}Bytes"] = raw
    return fields


def non_utf8(names: Any) -> list[dict[str, str]]:
    """`nonUtf8Names` for lists of names shown as text: `{path, pathBytes}` of each name
    that is not valid UTF-8 (the lists carry its readable form)."""
    found: dict[str, str] = {}
    for name in names:
        raw = encoded(name)
        if raw is not None:
            found[readable(name)] = raw
    return [{"path": path, "pathBytes": raw} for path, raw in found.items()]


def scrubbed(value: Any) -> Any:
    """`value` (JSON-like) with every string that cannot be written as UTF-8 in its
    readable form: for writers that must never fail on a name that slipped through."""
    if isinstance(value, str):
        return value if is_plain(value) else readable(value)
    if isinstance(value, dict):
        return {scrubbed(k): scrubbed(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [scrubbed(v) for v in value]
    return value

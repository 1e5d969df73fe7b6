"""How a text file is stored on disk (encoding, BOM, line endings), so a rewrite keeps it.

The model always works with plain str and "\\n"; what goes back to disk has the file's
own encoding, BOM and line endings. Files that are not text are recognised and refused.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from pathlib import Path

SNIFF_BYTES = 8192
BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


class NotText(ValueError):
    """The bytes are not a text file this tool can round-trip."""


@dataclass(frozen=True)
class TextFormat:
    encoding: str = "utf-8"
    bom: bytes = b""
    newline: str = "\n"
    """"\\r\\n" only when every line break of the file is CRLF."""


NEW_FILE = TextFormat()


def is_binary(head: bytes) -> bool:
    """A NUL byte in the first block, outside a UTF-16 file, means binary."""
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return False
    return b"\x00" in head[:SNIFF_BYTES]


def decode(data: bytes) -> tuple[str, TextFormat]:
    """The file's text and how it is stored; raises NotText for binary data."""
    if is_binary(data[:SNIFF_BYTES]):
        raise NotText("binary file")
    for bom, encoding in BOMS:
        if data.startswith(bom):
            text = data[len(bom) :].decode(encoding)
            return text, TextFormat(encoding, bom, newline_of(text))
    try:
        text = data.decode("utf-8")
        encoding = "utf-8"
    except UnicodeDecodeError:
        # Not UTF-8: a single-byte legacy encoding. latin-1 maps every byte to one
        # character and back, so the parts the agent does not touch stay byte for byte.
        text = data.decode("latin-1")
        encoding = "latin-1"
    return text, TextFormat(encoding, b"", newline_of(text))


BLOCK = 1 << 20


def sniff_format(path: Path) -> TextFormat:
    """How a file on disk is stored, read in blocks (no copy of the whole file is kept)."""
    with path.open("rb") as f:
        head = f.read(SNIFF_BYTES)
        scan = _FormatScan(head)
        if scan.utf16:
            return decode(head + f.read())[1]
        f.seek(len(scan.bom))
        while chunk := f.read(BLOCK):
            scan.feed(chunk)
    return scan.result()


def format_of(data: bytes) -> TextFormat:
    """How `data`, a whole file read from disk, is stored (for an edit of its bytes)."""
    scan = _FormatScan(data[:SNIFF_BYTES])
    if scan.utf16:
        return decode(data)[1]
    scan.count_newlines = b"\r" in data  # without any "\r" the file cannot be CRLF
    for start in range(len(scan.bom), len(data), BLOCK):
        scan.feed(data[start : start + BLOCK])
    return scan.result()


class _FormatScan:
    """Encoding and line endings of a file fed block by block. The common case (ASCII, no
    "\r") costs two C-speed scans per block and no decoding."""

    def __init__(self, head: bytes) -> None:
        if is_binary(head):
            raise NotText("binary file")
        self.utf16 = head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))
        self.bom = codecs.BOM_UTF8 if head.startswith(codecs.BOM_UTF8) else b""
        self._utf8 = codecs.getincrementaldecoder("utf-8")()
        self._is_utf8 = True
        self._newlines = self._crlf = 0
        self._previous = b""
        self.count_newlines = True
        """False when the caller knows there is no "\\r": then the file is "\\n"."""

    def feed(self, chunk: bytes) -> None:
        if self._is_utf8 and not chunk.isascii():
            try:
                self._utf8.decode(chunk)
            except UnicodeDecodeError:
                self._is_utf8 = False
        if not self.count_newlines:
            return
        self._newlines += chunk.count(b"\n")
        if b"\r" in chunk or self._previous == b"\r":
            self._crlf += chunk.count(b"\r\n") + (self._previous == b"\r" and chunk[:1] == b"\n")
        self._previous = chunk[-1:]

    def result(self) -> TextFormat:
        if self._is_utf8:
            try:
                self._utf8.decode(b"", final=True)
            except UnicodeDecodeError:
                self._is_utf8 = False
        newline = "\r\n" if self._crlf and self._crlf == self._newlines else "\n"
        return TextFormat("utf-8" if self._is_utf8 else "latin-1", self.bom, newline)


def encode(text: str, fmt: TextFormat) -> bytes:
    """Bytes for `text` in the given format; raises NotText when a character does not fit."""
    try:
        return fmt.bom + text.encode(fmt.encoding)
    except UnicodeEncodeError as exc:
        raise NotText(
            f"the new text has characters ({exc.object[exc.start : exc.end]!r}) that the file's "
            f"encoding ({fmt.encoding}) cannot store"
        ) from None


def to_file_newlines(text: str, fmt: TextFormat) -> str:
    """Turn the model's "\\n" into the file's line endings."""
    if fmt.newline == "\r\n":
        return text.replace("\r\n", "\n").replace("\n", "\r\n")
    return text


def newline_of(text: str) -> str:
    """ "\r\n" when every line break of `text` is CRLF, else "\n"."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf == text.count("\n") else "\n"

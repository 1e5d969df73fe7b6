"""How a text file is stored on disk (encoding, BOM, line endings), so a read shows what is
really there and a rewrite keeps it.

This module is the one place that decides a file's format: read_file, write_file, edit_file
and the editor's save fallback all ask it, so they agree on what a file's characters are.
The model always works with plain str and "\\n"; what goes back to disk has the file's
own encoding, BOM and line endings. Files that are not text are recognised and refused.

Understood: UTF-8 (with or without BOM), UTF-16 and UTF-32 with a BOM (LE and BE), and,
for bytes that are not UTF-8, latin-1 (which maps every byte to one character and back).
"""

from __future__ import annotations

import codecs
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import BinaryIO

SNIFF_BYTES = 8192
BOMS = (
    # UTF-32-LE's BOM (FF FE 00 00) starts with UTF-16-LE's (FF FE): it is tried first.
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
UNITS = {"utf-16-le": 2, "utf-16-be": 2, "utf-32-le": 4, "utf-32-be": 4}
"""Bytes per code unit of the wide encodings; every other encoding here has 1."""
FULL_SCAN_LIMIT = 256 << 20
"""Up to this size, read_file scans a whole file without BOM to tell UTF-8 from latin-1."""


class NotText(ValueError):
    """The bytes are not a text file this tool can round-trip."""


@dataclass(frozen=True)
class TextFormat:
    encoding: str = "utf-8"
    bom: bytes = b""
    newline: str = "\n"
    """"\\r\\n" only when every line break of the file is CRLF."""

    @cached_property
    def unit(self) -> int:
        """Bytes per code unit: 1 (UTF-8, latin-1), 2 (UTF-16) or 4 (UTF-32). Characters
        and line breaks start only at multiples of it, counted from the end of the BOM."""
        return UNITS.get(self.encoding, 1)

    @cached_property
    def line_feed(self) -> bytes:
        """ "\\n" as stored in this encoding."""
        return "\n".encode(self.encoding)


NEW_FILE = TextFormat()


def bom_of(head: bytes) -> tuple[bytes, str]:
    """The BOM `head` starts with and its encoding; (b"", "utf-8") when there is none."""
    for bom, encoding in BOMS:
        if head.startswith(bom):
            return bom, encoding
    return b"", "utf-8"


def is_binary(head: bytes) -> bool:
    """A NUL character in the first block means binary. UTF-16/32 text is full of NUL
    bytes, so after their BOM the block is decoded first (and is binary if it does not)."""
    bom, encoding = bom_of(head)
    if encoding not in UNITS:
        return b"\x00" in head[:SNIFF_BYTES]
    try:
        # Incremental: a character cut at the end of the block is not an error.
        text = codecs.getincrementaldecoder(encoding)().decode(head[len(bom) : SNIFF_BYTES])
    except UnicodeDecodeError:
        return True
    return "\x00" in text


def head_format(head: bytes) -> TextFormat:
    """What the first block of a file tells: its BOM's encoding, else UTF-8 (which bytes
    further on may turn into latin-1, see `shown_encoding`). The line endings are not
    looked at. Raises NotText for a binary file."""
    if is_binary(head):
        raise NotText("binary file")
    bom, encoding = bom_of(head)
    return TextFormat(encoding, bom)


def decode(data: bytes) -> tuple[str, TextFormat]:
    """The file's text and how it is stored; raises NotText for binary data."""
    fmt = head_format(data[:SNIFF_BYTES])
    body = data[len(fmt.bom) :]
    if fmt.unit > 1:
        try:
            text = body.decode(fmt.encoding)
        except UnicodeDecodeError as exc:
            raise NotText(f"not valid {fmt.encoding} text ({exc.reason})") from None
        return text, TextFormat(fmt.encoding, fmt.bom, newline_of(text))
    try:
        text, encoding = body.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        # Not UTF-8: a single-byte legacy encoding. latin-1 maps every byte to one
        # character and back, so the parts the agent does not touch stay byte for byte.
        text, encoding = body.decode("latin-1"), "latin-1"
    return text, TextFormat(encoding, fmt.bom, newline_of(text))


BLOCK = 1 << 20


def sniff_format(path: Path) -> TextFormat:
    """How a file on disk is stored, read in blocks (no copy of the whole file is kept)."""
    with path.open("rb") as f:
        head = f.read(SNIFF_BYTES)
        fmt = head_format(head)
        if fmt.unit > 1:
            return decode(head + f.read())[1]
        scan = _FormatScan(fmt.bom)
        f.seek(len(fmt.bom))
        while chunk := f.read(BLOCK):
            scan.feed(chunk)
    return scan.result()


def format_of(data: bytes) -> TextFormat:
    """How `data`, a whole file read from disk, is stored (for an edit of its bytes)."""
    fmt = head_format(data[:SNIFF_BYTES])
    if fmt.unit > 1:
        return decode(data)[1]
    scan = _FormatScan(fmt.bom, count_newlines=b"\r" in data)
    for start in range(len(fmt.bom), len(data), BLOCK):
        scan.feed(data[start : start + BLOCK])
    return scan.result()


def shown_encoding(f: BinaryIO, size: int, fmt: TextFormat, lines: Iterable[bytes]) -> str:
    """The encoding to show `lines`, read from the open file `f` of head format `fmt`, in.

    A UTF-16/32 BOM decides, and so do ASCII lines (the same in UTF-8 and latin-1), which
    keeps the common read to the lines themselves. Otherwise the file is scanned whole as
    for an edit, so that read_file shows the characters edit_file will match; past
    FULL_SCAN_LIMIT only the lines shown decide (UTF-8 if they are UTF-8, else latin-1).
    """
    lines = list(lines)
    if fmt.unit > 1 or b"".join(lines).isascii():
        return fmt.encoding
    scan = _FormatScan(fmt.bom, count_newlines=False)
    if size <= FULL_SCAN_LIMIT:
        f.seek(len(fmt.bom))
        while chunk := f.read(BLOCK):
            scan.feed(chunk)
    else:
        for line in lines:
            scan.feed(line, cut=True)  # a line cut for length may end inside a character
    return scan.result().encoding


class _FormatScan:
    """Encoding and line endings of a file fed block by block. The common case (ASCII, no
    "\r") costs two C-speed scans per block and no decoding."""

    def __init__(self, bom: bytes, count_newlines: bool = True) -> None:
        self.bom = bom
        self._utf8 = codecs.getincrementaldecoder("utf-8")()
        self._is_utf8 = True
        self._newlines = self._crlf = 0
        self._previous = b""
        self._count_newlines = count_newlines
        """False when the caller knows there is no "\\r" or does not need the line endings."""

    def feed(self, chunk: bytes, cut: bool = False) -> None:
        """One block of the file, in order; `cut`: a piece on its own, which may end inside
        a character (then it is checked alone, not as a continuation)."""
        if self._is_utf8 and not chunk.isascii():
            try:
                if cut:
                    codecs.getincrementaldecoder("utf-8")().decode(chunk)
                else:
                    self._utf8.decode(chunk)
            except UnicodeDecodeError:
                self._is_utf8 = False
        if not self._count_newlines:
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

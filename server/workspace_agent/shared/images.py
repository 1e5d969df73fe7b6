"""Images for the model: what a file or a prompt's bytes are, and the image block they become.

The Messages API takes PNG, JPEG, GIF and WebP, at most 5 MB per image as sent (base64),
at most 8000 pixels a side. The type is decided by the bytes' magic numbers, never by a
file name or a client's word; the size in pixels is read from the header, which also
tells a corrupt or truncated image from one the API can take, before anything is sent.
Every refusal is an ImageError whose message names the image, says what is wrong (with
the size when it is too large) and what to do instead.
"""

from __future__ import annotations

import base64
import binascii
import struct
from dataclasses import dataclass
from typing import Any

MAX_BASE64_BYTES = 5 * 1024 * 1024
"""The Messages API's limit per image, counted on the base64 text it is sent as."""
MAX_SIDE = 8000
MEDIA_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
NAMES = {"image/png": "PNG", "image/jpeg": "JPEG", "image/gif": "GIF", "image/webp": "WebP"}


class ImageError(ValueError):
    """An image the model cannot be given; the message says why and what to do."""


@dataclass(frozen=True)
class Image:
    """A checked image: its bytes' type, its size in pixels and bytes, its base64 text."""

    media_type: str
    width: int
    height: int
    size: int
    data: str

    def block(self) -> dict[str, Any]:
        """The Messages API image block."""
        return {
            "type": "image",
            "source": {"type": "base64", "media_type": self.media_type, "data": self.data},
        }

    def record(self) -> dict[str, Any]:
        """What a transcript keeps of it (the bytes stay in the conversation only)."""
        return {
            "mediaType": self.media_type,
            "width": self.width,
            "height": self.height,
            "bytes": self.size,
        }

    def describe(self) -> str:
        """`PNG, 800x600, 12.3 KB`."""
        return f"{NAMES[self.media_type]}, {self.width}x{self.height}, {human_size(self.size)}"


def sniff(head: bytes) -> str | None:
    """The media type the first bytes announce (12 are enough), or None for none of ours."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def checked(raw: bytes, name: str) -> Image:
    """`raw` (the image's bytes) as an Image; ImageError when it is not one the API takes."""
    media_type = sniff(raw[:12])
    if media_type is None:
        raise ImageError(f"{name} is not a PNG, JPEG, GIF or WebP image (judged by its bytes)")
    check_size(len(raw), name)
    try:
        width, height = _dimensions(media_type, raw)
    except (struct.error, IndexError, ValueError):
        width = height = 0
    if width <= 0 or height <= 0 or not _complete(media_type, raw):
        raise ImageError(
            f"{name} looks like a {NAMES[media_type]} image but is corrupt or cut short "
            "(its header has no valid size); save or export it again"
        )
    if max(width, height) > MAX_SIDE:
        raise ImageError(
            f"{name} is {width}x{height} pixels: the Messages API takes at most {MAX_SIDE} "
            "pixels a side; scale it down and try again"
        )
    return Image(media_type, width, height, len(raw), base64.b64encode(raw).decode("ascii"))


def check_size(size: int, name: str) -> None:
    """ImageError when an image of `size` bytes is over the API's limit (as base64)."""
    encoded_size = 4 * ((size + 2) // 3)
    if encoded_size > MAX_BASE64_BYTES:
        raise ImageError(
            f"{name} is too large for the model: {human_size(size)} "
            f"({human_size(encoded_size)} as base64), the Messages API takes at most "
            f"{human_size(MAX_BASE64_BYTES)} per image; scale it down or crop it and try again"
        )


def from_base64(data: str, media_type: str, name: str) -> Image:
    """A client's base64 image, checked; its stated `media_type` must be what the bytes are."""
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise ImageError(f"{name}: its data is not valid base64") from None
    image = checked(raw, name)
    if media_type != image.media_type:
        raise ImageError(
            f"{name} is said to be {media_type} but its bytes are {image.media_type}: "
            "send it with the right mediaType"
        )
    return image


def human_size(n: int) -> str:
    if n < 1024:
        return f"{n} bytes"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KB"
    return f"{n / (1024 * 1024):.1f} MB"


def _complete(media_type: str, raw: bytes) -> bool:
    """Whether the image ends as its format ends (a cut-short download does not)."""
    if media_type == "image/png":
        return raw.endswith(b"IEND\xaeB`\x82")
    if media_type == "image/jpeg":
        return b"\xff\xd9" in raw[-4096:]  # end of image, maybe with trailing bytes
    if media_type == "image/gif":
        return raw.rstrip(b"\x00").endswith(b"\x3b")
    return int.from_bytes(raw[4:8], "little") + 8 <= len(raw)  # the RIFF size


def _dimensions(media_type: str, raw: bytes) -> tuple[int, int]:
    if media_type == "image/png":
        if raw[12:16] != b"IHDR":
            return 0, 0
        width, height = struct.unpack(">II", raw[16:24])
        return width, height
    if media_type == "image/gif":
        width, height = struct.unpack("<HH", raw[6:10])
        return width, height
    if media_type == "image/webp":
        return _webp(raw)
    return _jpeg(raw)


def _webp(raw: bytes) -> tuple[int, int]:
    chunk = raw[12:16]
    if chunk == b"VP8 " and raw[23:26] == b"\x9d\x01\x2a":
        width, height = struct.unpack("<HH", raw[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L" and raw[20] == 0x2F:
        bits = int.from_bytes(raw[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X":
        return int.from_bytes(raw[24:27], "little") + 1, int.from_bytes(raw[27:30], "little") + 1
    return 0, 0


def _jpeg(raw: bytes) -> tuple[int, int]:
    """The frame header (SOFn) after the segments before it."""
    at = 2
    while at + 4 <= len(raw):
        if raw[at] != 0xFF:
            return 0, 0
        marker = raw[at + 1]
        if marker == 0xFF:  # padding
            at += 1
            continue
        length = struct.unpack(">H", raw[at + 2 : at + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", raw[at + 5 : at + 9])
            return width, height
        at += 2 + length
    return 0, 0

"""AWS event-stream framing (`application/vnd.amazon.eventstream`), as Bedrock's
InvokeModelWithResponseStream answers, for the scripted server's Bedrock route.

One message on the wire (the AWS SDKs' event-stream specification):

    total length (4 bytes, big-endian) | headers length (4) | prelude CRC32 (4)
    headers: name length (1) | name | value type (1; 7 = string) | value length (2) | value
    payload | message CRC32 (4, over everything before it)

Bedrock sends each Messages API stream event as an `event` message of type `chunk` whose
JSON payload is `{"bytes": <the event's JSON, base64>, "p": <padding>}`, and an error
mid-stream as an `exception` message (`:exception-type`, payload `{"message": ...}`).
The real clients (botocore's EventStreamBuffer, so the anthropic SDK's Bedrock client)
check both CRCs, so a frame built wrong here fails the test that reads it.
"""

from __future__ import annotations

import base64
import json
import struct
import zlib
from typing import Any

STRING = 7
"""The header value type of a UTF-8 string."""
CONTENT_TYPE = "application/vnd.amazon.eventstream"
PADDING = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def message(headers: dict[str, str], payload: bytes) -> bytes:
    """One event-stream message."""
    encoded = b"".join(_header(name, value) for name, value in headers.items())
    total = 12 + len(encoded) + len(payload) + 4
    prelude = struct.pack(">II", total, len(encoded))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    body = prelude + encoded + payload
    return body + struct.pack(">I", zlib.crc32(body))


def _header(name: str, value: str) -> bytes:
    raw_name, raw_value = name.encode(), value.encode()
    return (
        struct.pack(">B", len(raw_name))
        + raw_name
        + struct.pack(">BH", STRING, len(raw_value))
        + raw_value
    )


def chunk(event: dict[str, Any], number: int = 0) -> bytes:
    """A Messages API stream event as Bedrock's `chunk` message (padding varies in length,
    as Bedrock's does, so no frame size is fixed)."""
    raw = json.dumps(event, separators=(",", ":")).encode()
    payload = {"bytes": base64.b64encode(raw).decode(), "p": PADDING[: 1 + number % 40]}
    return message(
        {
            ":event-type": "chunk",
            ":content-type": "application/json",
            ":message-type": "event",
        },
        json.dumps(payload, separators=(",", ":")).encode(),
    )


def exception(kind: str, text: str) -> bytes:
    """An error mid-stream, like `throttlingException` or `modelStreamErrorException`."""
    return message(
        {
            ":exception-type": kind,
            ":content-type": "application/json",
            ":message-type": "exception",
        },
        json.dumps({"message": text}).encode(),
    )

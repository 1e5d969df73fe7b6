"""A Messages API request to Anthropic's own API, sent as the JSON bytes we encode once.

The SDK's `messages.create` prepares a body before it encodes it: it copies every dict and
list of it (`anthropic._utils._prepare.copy_tree`, so that files and iterators can be read
once and sent again on a retry). A turn's request holds the whole conversation, so the
copy grows with it: in a 40-turn read-only run it was a quarter of the SDK's time a turn,
as much as encoding the JSON. Our bodies are plain JSON we built ourselves: nothing in
them needs that preparation. So the body is encoded here, with the SDK's encoder settings,
and handed to the SDK's own `post` as `content`: the same client, headers, auth, base URL
and errors, the same streamed raw response (`X-Stainless-Raw-Response: stream`, what
`with_streaming_response` asks for). Bedrock and Vertex move fields of the body into the
URL and add their own: their requests still go through `create`.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Mapping
from typing import Any

RAW_RESPONSE = {"X-Stainless-Raw-Response": "stream"}
"""The header the SDK reads as "return the raw response, unread" (its streaming wrapper's)."""


def encoded(body: Mapping[str, Any]) -> bytes:
    """The body as the SDK encodes it (compact, UTF-8 as is, no NaN)."""
    text = json.dumps(
        body, ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=_plain
    )
    return text.encode("utf-8")


@contextlib.asynccontextmanager
async def streamed(client: Any, body: dict[str, Any]) -> AsyncIterator[Any]:
    """POST /v1/messages with `body` (stream: true) through the SDK client; the SDK's raw
    response (iter_bytes, http_response), closed on the way out."""
    response = await client.post(
        "/v1/messages",
        cast_to=object,
        content=encoded(body),
        options={"headers": RAW_RESPONSE},
        stream=True,
    )
    try:
        yield response
    finally:
        await response.close()


def _plain(value: Any) -> Any:
    """What the SDK's encoder also turns into JSON: other mappings and sequences."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, (tuple, set, frozenset)):
        return list(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")

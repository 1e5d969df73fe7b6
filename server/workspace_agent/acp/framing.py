"""JSON-RPC 2.0 messages, one per line, on the agent's stdin and stdout.

A `Transport` for the SDK's AgentSideConnection, stricter than the SDK's own framing: a
line that is not JSON gets a Parse error (-32700) and a message that is not JSON-RPC 2.0
an Invalid Request error (-32600), where the SDK would drop the first without a word and
end the connection on some of the second (a JSON array, an unhashable id). Either way
the agent stays up and the client learns what was wrong.

Messages are written in the order they are sent: `post` writes at once (the core's
events are synchronous callbacks) and `send` writes at once too, then waits for the pipe
to drain. `$/cancel_request` naming a pending `session/prompt` cancels that prompt's run.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import Any

from .. import names

log = logging.getLogger(__name__)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
CANCEL_REQUEST = "$/cancel_request"
PROMPT_METHOD = "session/prompt"
TOO_LARGE = b"\x00too large"
"""What _read_line returns for a line over MAX_MESSAGE_BYTES (compared by identity)."""
TOO_LARGE_NOTE = f"a message over {MAX_MESSAGE_BYTES // (1024 * 1024)} MiB was dropped"


class JsonRpcLines:
    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        cancel_prompt: Callable[[str], None] = lambda session_id: None,
    ) -> None:
        self._reader = reader
        self._writer = writer
        self._cancel_prompt = cancel_prompt
        self._drain = asyncio.Lock()
        self._prompts: dict[Any, str] = {}
        """Request ids of the session/prompt requests not answered yet, with their session."""

    async def receive(self) -> dict[str, Any] | None:
        """The next well-formed message for the SDK; None at the end of input."""
        while True:
            line = await self._read_line()
            if line is None:
                return None
            if line is TOO_LARGE:
                self._reply_error(None, PARSE_ERROR, f"Parse error: {TOO_LARGE_NOTE}")
                continue
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except ValueError as exc:
                self._reply_error(None, PARSE_ERROR, f"Parse error: {exc}")
                continue
            problem = _problem(message)
            if problem is not None:
                if isinstance(message, dict) and "method" not in message:
                    log.warning("dropped a malformed response from the client: %s", problem)
                    continue
                self._reply_error(_id_of(message), INVALID_REQUEST, f"Invalid Request: {problem}")
                continue
            if self._intercepted(message):
                continue
            return message

    async def send(self, message: dict[str, Any]) -> None:
        self.post(message)
        async with self._drain:
            await self._writer.drain()

    def post(self, message: dict[str, Any]) -> None:
        """Write `message` now, without waiting for the pipe (a synchronous caller)."""
        if "method" not in message and "id" in message:
            self._prompts.pop(message["id"], None)  # the prompt is answered
        if self._writer.is_closing():
            return
        self._writer.write(json_line(message))

    async def close(self) -> None:
        if not self._writer.is_closing():
            self._writer.close()

    def _intercepted(self, message: dict[str, Any]) -> bool:
        """Note prompts as they come in; act on $/cancel_request (the SDK does not)."""
        method = message.get("method")
        if method == PROMPT_METHOD and "id" in message:
            params = message.get("params")
            session_id = params.get("sessionId") if isinstance(params, dict) else None
            if isinstance(session_id, str):
                self._prompts[message["id"]] = session_id
        if method != CANCEL_REQUEST:
            return False
        params = message.get("params")
        request_id = params.get("requestId") if isinstance(params, dict) else None
        session_id = self._prompts.get(request_id) if _valid_id(request_id) else None
        if session_id is not None:
            self._cancel_prompt(session_id)
        return "id" not in message  # a request (which it should not be) is answered by the SDK

    def _reply_error(self, request_id: Any, code: int, message: str) -> None:
        log.warning("answered a bad message with %d: %s", code, message)
        self.post({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}})

    async def _read_line(self) -> bytes | None:
        """One line (without its newline), however long; None at the end of input."""
        chunks: list[bytes] = []
        size = 0
        while True:
            try:
                chunk = await self._reader.readuntil(b"\n")
            except asyncio.LimitOverrunError as exc:
                chunk = await self._reader.readexactly(exc.consumed)
                size += len(chunk)
                if size <= MAX_MESSAGE_BYTES:
                    chunks.append(chunk)
                continue
            except asyncio.IncompleteReadError as exc:
                if not exc.partial and not chunks:
                    return None
                chunk = exc.partial
            size += len(chunk)
            if size > MAX_MESSAGE_BYTES:
                return TOO_LARGE
            chunks.append(chunk)
            return b"".join(chunks)


def _problem(message: Any) -> str | None:
    """Why `message` is not a JSON-RPC 2.0 request, notification or response; None if it is."""
    if isinstance(message, list):
        return "batches are not supported; send one message per line"
    if not isinstance(message, dict):
        return "a message must be a JSON object"
    if message.get("jsonrpc") != "2.0":
        return 'the "jsonrpc" member must be "2.0"'
    if "id" in message and not _valid_id(message["id"]):
        return 'the "id" member must be a string, a number or null'
    if "method" in message:
        if not isinstance(message["method"], str) or not message["method"]:
            return 'the "method" member must be a non-empty string'
        if "params" in message and not isinstance(message["params"], (dict, list)):
            return 'the "params" member must be an object or an array'
        return None
    if "id" not in message:
        return 'a message needs a "method" (request, notification) or an "id" (response)'
    if ("result" in message) == ("error" in message):
        return 'a response has exactly one of "result" and "error"'
    return None


def _valid_id(value: Any) -> bool:
    return (
        value is None
        or isinstance(value, str)
        or (isinstance(value, (int, float)) and not isinstance(value, bool))
    )


def _id_of(message: Any) -> Any:
    if isinstance(message, dict) and _valid_id(message.get("id")):
        return message.get("id")
    return None


def json_line(message: dict[str, Any]) -> bytes:
    """One frame: `message` as a line of UTF-8 JSON (a file name that is not UTF-8 and
    slipped through in Python's form goes in its readable form, names.py)."""
    data = json.dumps(message, separators=(",", ":"), ensure_ascii=False, default=str)
    try:
        return data.encode("utf-8") + b"\n"
    except UnicodeEncodeError:
        return json_line(names.scrubbed(message))

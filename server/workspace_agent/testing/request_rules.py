"""The request rules the Messages API enforces, checked by the scripted server.

A test double that accepts whatever the agent sends proves nothing about the real API.
The scripted server runs every `POST /v1/messages` body through `problem()` and answers a
400 `invalid_request_error` with the API's own wording when a rule is broken, so every
test that talks to it also proves its requests are ones the API takes:

- the first message is `user`, and roles alternate;
- each `tool_use` is answered by a `tool_result` with its id in the next user message,
  before any other block, and every `tool_result` answers a `tool_use` of the message before;
- no empty text blocks (in the system prompt or the messages);
- image blocks only in user messages (and their tool results);
- at most 4 `cache_control` breakpoints;
- tool names match ^[a-zA-Z0-9_-]{1,64}$, unique, each with an `input_schema` that is a
  valid JSON Schema (draft 2020-12, checked against its metaschema) of type "object";
- images: a base64 source has a media_type of image/jpeg, image/png, image/gif or
  image/webp, valid base64 data whose bytes are of that type (their magic number), and
  at most 5 MB of base64 text (the API measures the encoded string); a url source has a
  url; at most 100 images and documents in a request (tool results' images count too);
- `thinking` / `redacted_thinking` blocks come first in their assistant turn and come
  back exactly as the server sent them (`Signatures` remembers what it sent);
- a `server_tool_use` (the web search server tool's call) is answered by its
  `web_search_tool_result` in the same assistant message, never by a `tool_result`; those
  blocks, and the `citations` of text blocks, come back exactly as the server sent them
  (their `encrypted_content` / `encrypted_index` are opaque to clients);
- a `thinking` setting of a known form (`adaptive`, `enabled` with 1024 <= budget_tokens
  < max_tokens, `disabled`) and an `output_config.effort` the API knows.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import json
import re
import threading
from typing import Any

TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
MAX_BREAKPOINTS = 4
MAX_IMAGE_BYTES = 5 * 1024 * 1024
MAX_IMAGES = 100
IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
EFFORTS = ("low", "medium", "high", "xhigh", "max")
THINKING_DOCS = "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"


class Signatures:
    """The thinking blocks the server has sent, so it can tell an echo from an edit.

    A signature the server makes is a digest of the thinking it signs, so any scripted
    server can check it (as the API checks its own after a restart); a script's own
    signatures and redacted data are remembered as sent."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._thinking: dict[str, str] = {}  # signature -> the thinking text it signs
        self._redacted: set[str] = set()
        self._served: dict[str, str] = {}  # a server tool block's or citation's key -> JSON

    def remember_served(self, block: dict[str, Any]) -> None:
        """A server tool block or a text block's citations, as sent."""
        with self._lock:
            for key, value in _served_parts(block):
                self._served[key] = value

    def served_unchanged(self, block: dict[str, Any]) -> str | None:
        """None when every server part of `block` is as sent, else the part that is not."""
        with self._lock:
            for key, value in _served_parts(block):
                if self._served.get(key) != value:
                    return key.split(":", 1)[0]
        return None

    def sign(self, thinking: str) -> str:
        """A signature for a thinking text (stable, like the API's opaque ones)."""
        digest = hashlib.sha256(thinking.encode()).hexdigest()
        return f"sig_scripted_{digest[:48]}"

    def remember(self, block: dict[str, Any]) -> None:
        with self._lock:
            if block.get("type") == "thinking":
                self._thinking[block["signature"]] = block.get("thinking", "")
            elif block.get("type") == "redacted_thinking":
                self._redacted.add(block["data"])

    def unchanged(self, block: dict[str, Any]) -> bool:
        with self._lock:
            if block.get("type") == "redacted_thinking":
                return block.get("data") in self._redacted
            signature, thinking = block.get("signature"), block.get("thinking")
            if not isinstance(signature, str) or not isinstance(thinking, str):
                return False
            return self._thinking.get(signature, None) == thinking or signature == self.sign(
                thinking
            )


def problem(body: dict[str, Any], signatures: Signatures | None = None) -> str | None:
    """The API's error message for the first rule `body` breaks, or None when it is valid."""
    for check in (_tools, _thinking_setting, _system, _messages, _images, _breakpoints):
        found = check(body)
        if found:
            return found
    if signatures is not None:
        return _thinking_unchanged(body, signatures) or _served_unchanged(body, signatures)
    return None


def _served_parts(block: dict[str, Any]) -> list[tuple[str, str]]:
    """The parts of a block the server made, keyed, as canonical JSON; a `cache_control`
    the client adds (a prompt-cache breakpoint) is no change."""
    block = {k: v for k, v in block.items() if k != "cache_control"}
    kind = block.get("type")
    if kind == "server_tool_use":
        return [(f"server_tool_use:{block.get('id')}", _canonical(block))]
    if kind == "web_search_tool_result":
        return [(f"web_search_tool_result:{block.get('tool_use_id')}", _canonical(block))]
    if kind == "text":
        return [
            (f"citations:{c.get('encrypted_index')}", _canonical(c))
            for c in block.get("citations") or []
            if isinstance(c, dict)
        ]
    return []


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _served_unchanged(body: dict[str, Any], signatures: Signatures) -> str | None:
    for number, message in enumerate(body.get("messages") or []):
        if message.get("role") != "assistant" or not isinstance(message.get("content"), list):
            continue
        for index, block in enumerate(message["content"]):
            changed = signatures.served_unchanged(block) if isinstance(block, dict) else None
            if changed == "citations":
                return (
                    f"messages.{number}.content.{index}.text.citations: Invalid "
                    "`encrypted_index` in citation (citations must be passed back unchanged)"
                )
            if changed:
                return (
                    f"messages.{number}.content.{index}: `{changed}` block does not match what "
                    "the server sent; server tool blocks must be passed back unchanged"
                )
    return None


def _server_results(content: list[dict[str, Any]], number: int) -> str | None:
    """Each server_tool_use of an assistant message is answered by its result there."""
    answered = {
        str(b.get("tool_use_id")) for b in content if b.get("type") == "web_search_tool_result"
    }
    for index, block in enumerate(content):
        if block.get("type") == "server_tool_use" and str(block.get("id")) not in answered:
            return (
                f"messages.{number}.content.{index}: `server_tool_use` id {block.get('id')} was "
                "found without a corresponding `web_search_tool_result` block in the same message"
            )
    return None


def _tools(body: dict[str, Any]) -> str | None:
    seen: set[str] = set()
    for index, tool in enumerate(body.get("tools") or []):
        if not isinstance(tool, dict):
            return f"tools.{index}: Input should be a valid dictionary"
        if "type" in tool and tool["type"] != "custom":
            continue  # a server tool (web_search, ...): its own schema
        name = tool.get("name")
        if not isinstance(name, str) or not TOOL_NAME.match(name):
            return f"tools.{index}.custom.name: String should match pattern '{TOOL_NAME.pattern}'"
        if name in seen:
            return f"tools: Tool names must be unique. Found duplicate: {name}"
        seen.add(name)
        schema = tool.get("input_schema")
        if not isinstance(schema, dict):
            return f"tools.{index}.custom.input_schema: Input should be a valid dictionary"
        if schema.get("type") != "object":
            return f"tools.{index}.custom.input_schema.type: Input should be 'object'"
        if not _valid_schema(json.dumps(schema, sort_keys=True)):
            return (
                f"tools.{index}.custom.input_schema: JSON schema is invalid. It must match "
                "JSON Schema draft 2020-12 (https://json-schema.org/draft/2020-12). Learn more "
                "about tool use at https://docs.claude.com/en/docs/tool-use."
            )
    return None


@functools.lru_cache(maxsize=256)
def _valid_schema(schema: str) -> bool:
    """Whether a schema (as JSON) is valid draft 2020-12: the agent sends the same tools on
    every request, so each is checked once. jsonschema is a dependency of the agent (it
    checks tool inputs); it is imported here on the first check only."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(json.loads(schema))
    except SchemaError:
        return False
    return True


def _thinking_setting(body: dict[str, Any]) -> str | None:
    thinking = body.get("thinking")
    if thinking is not None:
        kind = thinking.get("type") if isinstance(thinking, dict) else None
        if kind == "enabled":
            budget = thinking.get("budget_tokens")
            if not isinstance(budget, int) or budget < 1024:
                return (
                    "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
                )
            if budget >= int(body.get("max_tokens") or 0):
                return (
                    "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult "
                    f"our documentation at {THINKING_DOCS}#max-tokens-and-context-window-size"
                )
        elif kind not in ("adaptive", "disabled"):
            return (
                f"thinking: Input tag '{kind}' found using 'type' does not match any of the "
                "expected tags: 'adaptive', 'disabled', 'enabled'"
            )
    output_config = body.get("output_config")
    if output_config is not None:
        effort = output_config.get("effort") if isinstance(output_config, dict) else "?"
        if effort is not None and effort not in EFFORTS:
            expected = ", ".join(f"'{e}'" for e in EFFORTS)
            return f"output_config.effort: Input should be {expected}"
    return None


def _system(body: dict[str, Any]) -> str | None:
    system = body.get("system")
    if isinstance(system, list):
        for index, block in enumerate(system):
            if block.get("type") == "text" and not block.get("text"):
                return f"system.{index}.text: text content blocks must be non-empty"
    return None


def _messages(body: dict[str, Any]) -> str | None:
    messages = body.get("messages") or []
    if not messages:
        return "messages: at least one message is required"
    if messages[0].get("role") != "user":
        return 'messages: first message must use the "user" role'
    previous_tool_ids: list[str] = []
    for number, message in enumerate(messages):
        role = message.get("role")
        if role not in ("user", "assistant"):
            return f"messages.{number}.role: Input should be 'user' or 'assistant'"
        if number and role == messages[number - 1].get("role"):
            return (
                'messages: roles must alternate between "user" and "assistant", but found '
                f'multiple "{role}" roles in a row'
            )
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}] if content else []
        if not isinstance(content, list):
            return f"messages.{number}.content: Input should be a valid list"
        if not content and not (role == "assistant" and number == len(messages) - 1):
            return (
                f"messages.{number}: all messages must have non-empty content except for the "
                "optional final assistant message"
            )
        found = (
            _empty_text(content, f"messages.{number}")
            or _image_roles(content, f"messages.{number}", role)
            or (
                _tool_results(content, previous_tool_ids, number)
                if role == "user"
                else _thinking_first(content, number) or _server_results(content, number)
            )
        )
        if found:
            return found
        previous_tool_ids = (
            [b["id"] for b in content if b.get("type") == "tool_use"] if role == "assistant" else []
        )
    return None  # ending on an assistant message (tool calls or text) is a prefill: allowed


def _empty_text(content: list[dict[str, Any]], where: str) -> str | None:
    for index, block in enumerate(content):
        if block.get("type") == "text" and not block.get("text"):
            return f"{where}.content.{index}.text: text content blocks must be non-empty"
        if block.get("type") == "text" and not str(block["text"]).strip():
            return (
                f"{where}.content.{index}.text: text content blocks must contain "
                "non-whitespace text"
            )
        if block.get("type") == "tool_result" and isinstance(block.get("content"), list):
            found = _empty_text(block["content"], f"{where}.content.{index}")
            if found:
                return found
    return None


def _image_roles(content: list[dict[str, Any]], where: str, role: Any) -> str | None:
    """Images only in user messages (their tool results included); what an image holds is
    checked by `_images`."""
    for index, block in enumerate(content):
        at = f"{where}.content.{index}"
        if block.get("type") == "tool_result" and isinstance(block.get("content"), list):
            found = _image_roles(block["content"], at, role)
            if found:
                return found
        if block.get("type") == "image" and role != "user":
            return f"{at}: image content blocks are only allowed in user messages"
    return None


def _tool_results(content: list[dict[str, Any]], tool_ids: list[str], number: int) -> str | None:
    """The tool_results of a user message: one for each tool_use of the assistant message
    before, all of them before any other block, none for a tool_use that is not there."""
    leading: list[str] = []
    for block in content:
        if block.get("type") != "tool_result":
            break
        leading.append(str(block.get("tool_use_id")))
    later = [
        index
        for index, block in enumerate(content)
        if index >= len(leading) and block.get("type") == "tool_result"
    ]
    missing = [tool_id for tool_id in tool_ids if tool_id not in leading]
    if missing:
        return (
            f"messages.{number - 1}: `tool_use` ids were found without `tool_result` blocks "
            f"immediately after: {', '.join(missing)}. Each `tool_use` block must have a "
            "corresponding `tool_result` block in the next message."
        )
    for index, tool_id in enumerate(leading):
        if tool_id not in tool_ids:
            return (
                f"messages.{number}.content.{index}: unexpected `tool_use_id` found in "
                f"`tool_result` blocks: {tool_id}. Each `tool_result` block must have a "
                "corresponding `tool_use` block in the previous message."
            )
    if len(set(leading)) != len(leading):
        return f"messages.{number}: each `tool_use` id may be answered by only one `tool_result`"
    if later:
        index = later[0]
        return (
            f"messages.{number}.content.{index}: `tool_result` blocks must come first in the "
            f"user message content, before any other block (found after a "
            f"`{content[index - 1].get('type')}` block)"
        )
    return None


def _thinking_first(content: list[dict[str, Any]], number: int) -> str | None:
    other = False
    for index, block in enumerate(content):
        kind = block.get("type")
        if kind in ("thinking", "redacted_thinking"):
            if other:
                return (
                    f"messages.{number}.content.{index}: `thinking` and `redacted_thinking` "
                    "blocks must come first in an assistant message, before any other block"
                )
            if kind == "thinking" and not isinstance(block.get("signature"), str):
                return f"messages.{number}.content.{index}.thinking.signature: Field required"
            if kind == "redacted_thinking" and not isinstance(block.get("data"), str):
                return f"messages.{number}.content.{index}.redacted_thinking.data: Field required"
        else:
            other = True
    return None


def _breakpoints(body: dict[str, Any]) -> str | None:
    count = sum(1 for tool in body.get("tools") or [] if "cache_control" in tool)
    system = body.get("system")
    if isinstance(system, list):
        count += sum(1 for block in system if "cache_control" in block)
    for message in body.get("messages") or []:
        if isinstance(message.get("content"), list):
            count += sum(1 for block in message["content"] if "cache_control" in block)
    if count > MAX_BREAKPOINTS:
        return (
            f"A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be provided. "
            f"Found {count}."
        )
    return None


def _thinking_unchanged(body: dict[str, Any], signatures: Signatures) -> str | None:
    for number, message in enumerate(body.get("messages") or []):
        if message.get("role") != "assistant" or not isinstance(message.get("content"), list):
            continue
        for index, block in enumerate(message["content"]):
            if block.get("type") not in ("thinking", "redacted_thinking"):
                continue
            if not signatures.unchanged(block):
                if block["type"] == "thinking":
                    return (
                        f"messages.{number}.content.{index}: Invalid `signature` in "
                        "`thinking` block"
                    )
                return (
                    f"messages.{number}.content.{index}: Invalid `data` in `redacted_thinking` "
                    "block"
                )
    return None


def _images(body: dict[str, Any]) -> str | None:
    """Each image block's source, then the count of images and documents."""
    images = documents = 0
    for number, message in enumerate(body.get("messages") or []):
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for index, block in enumerate(content):
            nested = block.get("content") if block.get("type") == "tool_result" else None
            inner = [
                (f"messages.{number}.content.{index}.tool_result.content.{i}", b)
                for i, b in enumerate(nested if isinstance(nested, list) else [])
            ]
            for where, item in [(f"messages.{number}.content.{index}", block), *inner]:
                if item.get("type") == "document":
                    documents += 1
                elif item.get("type") == "image":
                    images += 1
                    found = _image_source(item.get("source"), f"{where}.image.source")
                    if found:
                        return found
    if images + documents > MAX_IMAGES:
        return f"too many images and documents: {images} + {documents} > {MAX_IMAGES}"
    return None


def _image_source(source: Any, where: str) -> str | None:
    kind = source.get("type") if isinstance(source, dict) else None
    if kind == "url":
        if not isinstance(source.get("url"), str):  # type: ignore[union-attr]
            return f"{where}.url.url: Field required"
        return None
    if kind == "file":
        if not isinstance(source.get("file_id"), str):  # type: ignore[union-attr]
            return f"{where}.file.file_id: Field required"
        return None
    if kind != "base64":
        return (
            f"{where}: Input tag '{kind}' found using 'type' does not match any of the "
            "expected tags: 'base64', 'file', 'url'"
        )
    assert isinstance(source, dict)
    media_type, data = source.get("media_type"), source.get("data")
    if media_type not in IMAGE_TYPES:
        return (
            f"{where}.base64.media_type: Input should be 'image/jpeg', 'image/png', "
            "'image/gif' or 'image/webp'"
        )
    if not isinstance(data, str):
        return f"{where}.base64.data: Field required"
    if len(data) > MAX_IMAGE_BYTES:
        return (
            f"{where}.base64: image exceeds 5 MB maximum: {len(data)} bytes > "
            f"{MAX_IMAGE_BYTES} bytes"
        )
    try:
        decoded = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return f"{where}.base64: invalid base64 data"
    if _image_type(decoded) != media_type:
        return f"{where}.base64.data: Image does not match the provided media type {media_type}"
    return None


def _image_type(data: bytes) -> str | None:
    """The image type the bytes' magic number says, None for anything else."""
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None

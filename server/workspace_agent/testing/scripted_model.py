"""A scripted stand-in for the Anthropic Messages API, for tests and the offline demo.

It is a test double of the remote API, not a model: it serves `POST /v1/messages` over
real HTTP (a JSON body, or SSE when the request asks for `stream: true`) and replays
replies from a script, recording every request it receives. The real anthropic SDK talks
to it through `base_url` / `ANTHROPIC_BASE_URL`, exactly as it would to the real API.

A script is a dict (or a JSON file):

    {"conversations": [
        {"match": "fix the bug",          # optional: picked when the session's first
                                          # prompt contains this text
         "match_system": "subagent",      # optional: ... and its system prompt this one
         "replies": [
            {"content": [{"type": "text", "text": "Let me plan."},
                         {"type": "tool_use", "name": "todo", "input": {...}}]},
            {"error": {"status": 429, "message": "slow down", "headers": {"retry-after": "1"}}},
            {"content": [{"type": "text", "text": "Done."}], "delay": 0.2}
         ]}
     ],
     "on_exhausted": "error"}             # or "text": answer with a closing text reply

Each request takes the next reply of its conversation (the first whose `match` and
`match_system` both hold, else the first that has neither). Reply keys: `content` (text,
tool_use, thinking and redacted_thinking blocks; tool_use ids and thinking signatures are
generated when absent; the web search server tool's `server_tool_use` and
`web_search_tool_result` blocks and text `citations`, see `web_search()` and `cited()`,
with their ids and opaque encrypted fields filled in and the answer's usage counting the
searches), `stop_reason` (default: "tool_use" when there is a tool_use
block, else "end_turn"), `stop_sequence` (the one it stopped at, with stop_reason
"stop_sequence"), `delay` (seconds before the answer starts), `event_delay`
(seconds between SSE events), `error` (an HTTP error answer instead of a message),
`unknown_event` (stream an event of a type clients must ignore), `byte_cuts` (byte
offsets: the answer's SSE text goes out as raw UTF-8, written in pieces cut there, even
inside a multi-byte character), `rendezvous` (`{"name": ..., "parties": n, "timeout": s}`:
the answer waits until n requests whose replies name that rendezvous are all in flight,
so a test proves requests overlap without timing them; one that waits longer than
`timeout` seconds, 10 by default, is answered with a 500 saying so). A tool_use block
may carry `partial_json` (the JSON text to stream instead of its `input`'s) and
`json_cuts` (character offsets where that text is
cut into input_json_delta pieces, even inside a string or an escape like \\u00e9; the
real API cuts it wherever it likes).

Strict by default: every request is checked against the API's documented rules
(request_rules.py) and a broken one gets the API's 400 `invalid_request_error`, without
taking a reply; `"strict": false` in the script turns that off. The rule a request broke
is recorded with it (`rejected`).

The same replies are served on Amazon Bedrock's and Google Vertex AI's routes, in their
wire formats, to the SDK's Bedrock and Vertex clients (cloud.py: `/model/{id}/invoke` and
`/invoke-with-response-stream` in AWS event-stream frames, SigV4-checked;
`/v1/projects/.../models/{id}:rawPredict` and `:streamRawPredict`; `POST /token`, the OAuth
endpoint a service-account key file's `token_uri` names).

Run standalone: `python -m workspace_agent.testing.scripted_model --script s.json`.
`GET /_scripted/requests` returns the recorded requests as JSON (each with the body's size
in bytes and `time.monotonic_ns()` when it was read). `POST /v1/messages/count_tokens`
answers `{"input_tokens": n}` from the same estimate as the usage, without taking a reply
(clients such as Claude Code call it; it is recorded too).

Measurement hook (off by default; for bench/): with `"record_timestamps": true` in the
script, or WORKSPACE_AGENT_SCRIPTED_TIMESTAMPS=1 in the environment, the server notes
`time.monotonic_ns()` right after each SSE event has been written and flushed to the
socket; `GET /_scripted/timestamps` returns them as
`[{"message": id, "event": n, "name": ..., "index": ..., "delta": ..., "t": ns}]`.
CLOCK_MONOTONIC is shared by all processes of the machine, so a client in another
process can compare its own `time.monotonic_ns()` with these. Answers go out with
TCP_NODELAY (`"tcp_nodelay": false` or WORKSPACE_AGENT_SCRIPTED_NODELAY=0 turns it off):
without it, Nagle's algorithm holds each small SSE write until the client's delayed ACK,
which adds about 40 ms to every streamed answer on loopback.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import socket
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from . import cloud, eventstream
from .prompt_cache import PromptCache
from .request_rules import Signatures, problem

MODEL_NAME = "scripted-model"
TIMESTAMPS_ENV = "WORKSPACE_AGENT_SCRIPTED_TIMESTAMPS"
NODELAY_ENV = "WORKSPACE_AGENT_SCRIPTED_NODELAY"
ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


def text(value: str) -> dict[str, Any]:
    """A text block for a script."""
    return {"type": "text", "text": value}


def thinking(value: str, signature: str | None = None) -> dict[str, Any]:
    """A thinking block for a script (the server signs it when no signature is given)."""
    block = {"type": "thinking", "thinking": value}
    if signature:
        block["signature"] = signature
    return block


def redacted_thinking(data: str) -> dict[str, Any]:
    """A redacted_thinking block for a script: `data` is what must come back."""
    return {"type": "redacted_thinking", "data": data}


def web_search(query: str, results: list[dict[str, Any]] | str) -> list[dict[str, Any]]:
    """A web search server tool call and its result, as the API puts them in an answer:
    `results` are `{title, url, page_age?}` (the server adds each `encrypted_content`), or
    an error code (`max_uses_exceeded`, `too_many_requests`, ...)."""
    found: Any
    if isinstance(results, str):
        found = {"type": "web_search_tool_result_error", "error_code": results}
    else:
        found = [{"type": "web_search_result", "page_age": None, **r} for r in results]
    return [
        {"type": "server_tool_use", "name": "web_search", "input": {"query": query}},
        {"type": "web_search_tool_result", "content": found},
    ]


def cited(value: str, url: str, title: str, cited_text: str) -> dict[str, Any]:
    """A text block citing a web search result (the server adds its `encrypted_index`)."""
    citation = {
        "type": "web_search_result_location",
        "url": url,
        "title": title,
        "cited_text": cited_text,
    }
    return {"type": "text", "text": value, "citations": [citation]}


def tool(name: str, tool_input: dict[str, Any], tool_id: str | None = None) -> dict[str, Any]:
    """A tool_use block for a script."""
    block: dict[str, Any] = {"type": "tool_use", "name": name, "input": tool_input}
    if tool_id:
        block["id"] = tool_id
    return block


def reply(*blocks: dict[str, Any], **options: Any) -> dict[str, Any]:
    """One scripted assistant answer made of the given blocks."""
    return {"content": list(blocks), **options}


def script_of(*replies: dict[str, Any], **options: Any) -> dict[str, Any]:
    """A script of one conversation made of the given replies."""
    return {"conversations": [{"replies": list(replies)}], **options}


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]
    """Lower-cased header names."""
    body: dict[str, Any]
    size: int = 0
    """Bytes of the request body as sent."""
    received_ns: int = 0
    """time.monotonic_ns() once the body was read (CLOCK_MONOTONIC: comparable across
    processes of the machine)."""
    rejected: str | None = None
    """The API rule the request broke (answered with a 400), None when it was valid."""

    @property
    def api_key(self) -> str | None:
        """The key the client sent (x-api-key, or a bearer token: SDKs use either)."""
        if "x-api-key" in self.headers:
            return self.headers["x-api-key"]
        auth = self.headers.get("authorization", "")
        return auth[len("Bearer ") :] if auth.startswith("Bearer ") else None


@dataclass
class _Conversation:
    match: str | None
    replies: list[dict[str, Any]]
    position: int = 0
    match_system: str | None = None

    def fits(self, prompt: str, system: str) -> bool | None:
        """True when its conditions hold, False when one does not, None without any."""
        if self.match is None and self.match_system is None:
            return None
        return (self.match is None or self.match in prompt) and (
            self.match_system is None or self.match_system in system
        )


@dataclass
class ScriptPlayer:
    """Picks the reply for each request; thread-safe."""

    script: dict[str, Any]
    requests: list[RecordedRequest] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.cache = PromptCache()
        self.cloud = cloud.Cloud()
        self.signatures = Signatures()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self.load(self.script)

    def load(self, script: dict[str, Any]) -> None:
        """Replace the script (recorded requests are kept)."""
        with self._lock:
            self.script = script
            self.cloud.script = script
            self.strict = bool(script.get("strict", True))
            wanted = bool(script.get("record_timestamps")) or _env_flag(TIMESTAMPS_ENV)
            if not wanted:
                self.timestamps: list[tuple[Any, ...]] | None = None
            elif getattr(self, "timestamps", None) is None:
                self.timestamps = []
            self.nodelay = bool(script.get("tcp_nodelay", True)) and os.environ.get(
                NODELAY_ENV, "1"
            ) not in ("0", "false", "no")
            self._conversations = [
                _Conversation(c.get("match"), list(c.get("replies", [])), 0, c.get("match_system"))
                for c in script.get("conversations", [])
            ]
            self._rendezvous: dict[str, threading.Barrier] = {}

    def record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def next_reply(self, body: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            conversation = self._pick(_first_prompt(body), _system_text(body))
            if conversation is None or conversation.position >= len(conversation.replies):
                return self._exhausted()
            answer = conversation.replies[conversation.position]
            conversation.position += 1
            return answer

    def new_tool_id(self) -> str:
        with self._lock:
            return f"toolu_scripted_{next(self._ids):04d}"

    def meet(self, rendezvous: dict[str, Any]) -> str | None:
        """Wait at the reply's rendezvous until all its parties are in flight; None once
        they are, else why not (the answer is then an error)."""
        name, parties = str(rendezvous["name"]), int(rendezvous["parties"])
        timeout = float(rendezvous.get("timeout", 10))
        with self._lock:
            barrier = self._rendezvous.setdefault(name, threading.Barrier(parties))
        try:
            barrier.wait(timeout)
        except threading.BrokenBarrierError:
            return (
                f"scripted model: rendezvous {name!r} wanted {parties} requests in flight at "
                f"once; {barrier.n_waiting} came within {timeout:g} s"
            )
        return None

    def _pick(self, prompt: str, system: str) -> _Conversation | None:
        fallback = None
        for conversation in self._conversations:
            fits = conversation.fits(prompt, system)
            if fits is None:
                fallback = fallback or conversation
            elif fits:
                return conversation
        return fallback

    def _exhausted(self) -> dict[str, Any]:
        if self.script.get("on_exhausted") == "text":
            return reply(text("(The scripted model has no more replies in its script.)"))
        return {"error": {"status": 500, "message": "scripted model: the script has no reply left"}}


def _served(
    block: dict[str, Any], before: list[dict[str, Any]], player: ScriptPlayer
) -> dict[str, Any]:
    """A server tool block (or a text block's citations) made whole as the API sends it:
    ids, the result's tool_use_id (the server_tool_use before it), opaque encrypted fields;
    remembered, so the strict rules can tell an echo from an edit."""
    kind = block["type"]
    if kind == "text" and not block.get("citations"):
        return block
    if kind == "server_tool_use":
        block.setdefault("id", player.new_tool_id().replace("toolu_", "srvtoolu_"))
        block.setdefault("input", {})
    elif kind == "web_search_tool_result":
        if "tool_use_id" not in block:
            calls = [b["id"] for b in before if b.get("type") == "server_tool_use"]
            block["tool_use_id"] = calls[-1] if calls else "srvtoolu_missing"
        if isinstance(block.get("content"), list):
            block["content"] = [
                {**r, "encrypted_content": r.get("encrypted_content") or _opaque(r)}
                for r in block["content"]
            ]
    else:
        block["citations"] = [
            {**c, "encrypted_index": c.get("encrypted_index") or _opaque(c)}
            for c in block["citations"]
        ]
    player.signatures.remember_served(block)
    return block


def _opaque(value: dict[str, Any]) -> str:
    """An opaque field the API fills (encrypted_content, encrypted_index): stable per value."""
    import base64
    import hashlib

    digest = hashlib.sha256(json.dumps(value, sort_keys=True).encode()).digest()
    return base64.b64encode(b"scripted:" + digest).decode()


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "") not in ("", "0")


def _system_text(body: dict[str, Any]) -> str:
    system = body.get("system") or ""
    if isinstance(system, str):
        return system
    return "".join(b.get("text", "") for b in system if isinstance(b, dict))


def _first_prompt(body: dict[str, Any]) -> str:
    for message in body.get("messages", []):
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            return content
        return "".join(b.get("text", "") for b in content if b.get("type") == "text")
    return ""


def estimate_tokens(value: Any) -> int:
    """A stable stand-in for a tokenizer: about four characters per token."""
    as_text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
    return max(1, len(as_text) // 4)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server
    _where: cloud.Route | None = None
    """The cloud provider's route of the request being answered (None: the Messages API)."""

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        pass

    @property  # read by StreamRequestHandler.setup() for each connection
    def disable_nagle_algorithm(self) -> bool:  # type: ignore[override]
        return self.server.player.nodelay

    def do_GET(self) -> None:
        self._where = None
        if self.path.rstrip("/") == "/_scripted/requests":
            self._send_json(200, [r.__dict__ for r in self.server.player.requests])
        elif self.path.rstrip("/") == "/_scripted/timestamps":
            fields = ("message", "event", "name", "index", "delta", "t")
            stamps = list(self.server.player.timestamps or [])
            self._send_json(200, [dict(zip(fields, stamp, strict=True)) for stamp in stamps])
        else:
            self._send_error(404, f"no route {self.path}")

    def handle(self) -> None:
        try:
            super().handle()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client went away mid-answer (a cancelled run): nothing to tell it

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        received = time.monotonic_ns()
        path = self.path.split("?", 1)[0].rstrip("/")
        player = self.server.player
        headers = {k.lower(): v for k, v in self.headers.items()}
        self._where = None
        if path == cloud.TOKEN_PATH:
            self._token(raw, headers, received)
            return
        where = self._where = cloud.route(path)
        if where is None and path not in ("/v1/messages", "/v1/messages/count_tokens"):
            self._send_error(404, f"no route {self.path}")
            return
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            self._send_error(400, "request body is not JSON")
            return
        recorded = RecordedRequest(path, headers, body, len(raw), received)
        player.record(recorded)
        if where is not None:
            refused = player.cloud.refusal(where, self.path, headers, raw, body)
            if refused is not None:
                recorded.rejected = json.dumps(refused.body)
                self._send_json(refused.status, refused.body, refused.headers)
                return
            # What the API behind the provider takes: the model and stream from the URL.
            body = {**body, "model": where.model, "stream": where.stream}
        if player.strict:
            recorded.rejected = problem(body, player.signatures)
            if recorded.rejected:
                self._send_error(400, recorded.rejected)
                return
        if path.endswith("/count_tokens"):
            prompt = {k: body.get(k) for k in ("system", "tools", "messages") if k in body}
            self._send_json(200, {"input_tokens": estimate_tokens(prompt)})
            return
        answer = player.next_reply(body)
        if "rendezvous" in answer:
            missed = player.meet(answer["rendezvous"])
            if missed is not None:
                recorded.rejected = missed
                self._send_error(500, missed)
                return
        time.sleep(float(answer.get("delay", 0)))
        if "error" in answer:
            error = answer["error"]
            self._send_error(
                int(error["status"]),
                error.get("message", "scripted error"),
                error.get("headers", {}),
            )
            return
        message = self._message(answer, body)
        if body.get("stream"):
            self._stream(
                message,
                float(answer.get("event_delay", 0)),
                answer.get("cut_after_events"),
                answer.get("error_after_events"),
                bool(answer.get("unknown_event")),
                answer.get("byte_cuts"),
            )
        else:  # a JSON answer: the streaming-only keys are not part of a block
            for block in message["content"]:
                block.pop("partial_json", None)
                block.pop("json_cuts", None)
            self._send_json(200, message)

    def _token(self, raw: bytes, headers: dict[str, str], received: int) -> None:
        """Google's OAuth token endpoint (cloud.py): recorded with the grant's type only."""
        status, answer = self.server.player.cloud.token(raw)
        grant = {"grant_type": parse_qs(raw.decode("utf-8", "replace")).get("grant_type", [""])[0]}
        rejected = None if status == 200 else answer["error_description"]
        recorded = RecordedRequest(cloud.TOKEN_PATH, headers, grant, len(raw), received, rejected)
        self.server.player.record(recorded)
        self._send_json(status, answer)

    def _message(self, answer: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        player = self.server.player
        content: list[dict[str, Any]] = []
        for block in answer.get("content", []):
            block = dict(block)
            if block.get("type") == "tool_use":
                block.setdefault("id", player.new_tool_id())
                block.setdefault("input", {})
            elif block.get("type") == "thinking":
                block.setdefault("signature", player.signatures.sign(block["thinking"]))
                player.signatures.remember(block)
            elif block.get("type") == "redacted_thinking":
                player.signatures.remember(block)
            elif block.get("type") in ("server_tool_use", "web_search_tool_result", "text"):
                block = _served(block, content, player)
            content.append(block)
        has_tool = any(b.get("type") == "tool_use" for b in content)
        searches = sum(  # the searches made: one whose result is an error is not billed
            1
            for b in content
            if b.get("type") == "web_search_tool_result" and isinstance(b.get("content"), list)
        )
        cache = self.server.player.cache.account(body, estimate_tokens)
        return {
            "id": f"msg_scripted_{len(player.requests):05d}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", MODEL_NAME),
            "content": content,
            "stop_reason": answer.get("stop_reason", "tool_use" if has_tool else "end_turn"),
            "stop_sequence": answer.get("stop_sequence"),
            "usage": {
                **cache.to_usage(),
                "output_tokens": estimate_tokens(content),
                **({"server_tool_use": {"web_search_requests": searches}} if searches else {}),
            },
        }

    def _stream(
        self,
        message: dict[str, Any],
        event_delay: float,
        cut_after: int | None = None,
        error_after: int | None = None,
        unknown_event: bool = False,
        byte_cuts: list[int] | None = None,
    ) -> None:
        bedrock = self._where is not None and self._where.provider == "bedrock"
        self.send_response(200)
        if bedrock:  # InvokeModelWithResponseStream: AWS event-stream frames
            self.send_header("content-type", eventstream.CONTENT_TYPE)
            self.send_header("x-amzn-bedrock-content-type", "application/json")
        else:
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        stamps = self.server.player.timestamps  # None unless the measurement hook is on
        held = b""  # with byte_cuts: the whole answer, written in pieces at the end
        events = sse_events(message, unknown_event)
        if bedrock:
            events[-1][1]["amazon-bedrock-invocationMetrics"] = {
                "inputTokenCount": message["usage"]["input_tokens"],
                "outputTokenCount": message["usage"]["output_tokens"],
                "invocationLatency": 1,
                "firstByteLatency": 1,
            }
        for number, (name, data) in enumerate(events):
            if number == cut_after:  # the connection drops mid-message
                self.close_connection = True
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            if number == error_after:
                name, data = (
                    "error",
                    {
                        "type": "error",
                        "error": {"type": "overloaded_error", "message": "Overloaded"},
                    },
                )
            if not bedrock:
                as_json = json.dumps(data, ensure_ascii=byte_cuts is None)
                payload = f"event: {name}\ndata: {as_json}\n\n".encode()
            elif name == "error":
                payload = eventstream.exception("serviceUnavailableException", "Overloaded")
            else:
                payload = eventstream.chunk(data, number)
            if byte_cuts is not None:
                held += payload
                continue
            self._write_chunk(payload)
            if stamps is not None:
                delta = data.get("delta")
                stamps.append(
                    (
                        message["id"],
                        number,
                        name,
                        data.get("index"),
                        delta.get("type") if isinstance(delta, dict) else None,
                        time.monotonic_ns(),
                    )
                )
            if event_delay:
                time.sleep(event_delay)
        if byte_cuts is not None:
            for start, end in _spans(len(held), byte_cuts):
                self._write_chunk(held[start:end])
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _write_chunk(self, payload: bytes) -> None:
        """One HTTP chunk, flushed: with TCP_NODELAY the client reads it on its own."""
        self.wfile.write(b"%x\r\n%s\r\n" % (len(payload), payload))
        self.wfile.flush()

    def _send_json(self, status: int, value: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for key, val in (headers or {}).items():
            self.send_header(key, str(val))
        self.end_headers()
        self.wfile.write(data)

    def _send_error(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        if self._where is not None and self._where.provider == "bedrock":
            refused = cloud.aws_error(status, message)
            self._send_json(status, refused.body, {**refused.headers, **(headers or {})})
            return
        error_type = ERROR_TYPES.get(status, "api_error")
        self._send_json(
            status,
            {"type": "error", "error": {"type": error_type, "message": message}},
            headers,
        )


def sse_events(
    message: dict[str, Any], unknown_event: bool = False
) -> list[tuple[str, dict[str, Any]]]:
    """The Messages API event sequence for one complete message: a `ping` after the
    start (as the API sends), thinking as thinking_delta pieces then one signature_delta,
    and with `unknown_event` an event of a type clients must ignore (the API may add some)."""
    start = {
        **message,
        "content": [],
        "stop_reason": None,
        "usage": {
            **{k: v for k, v in message["usage"].items() if k != "server_tool_use"},
            "output_tokens": 1,
        },
    }
    events: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": start}),
        ("ping", {"type": "ping"}),
    ]
    if unknown_event:
        events.append(("content_block_hint", {"type": "content_block_hint", "index": 0}))
    for index, block in enumerate(message["content"]):
        if block["type"] == "thinking":
            events.append(
                (
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": index,
                        "content_block": {"type": "thinking", "thinking": "", "signature": ""},
                    },
                )
            )
            for piece in _pieces(block["thinking"], 24):
                events.append(_delta(index, {"type": "thinking_delta", "thinking": piece}))
            events.append(
                _delta(index, {"type": "signature_delta", "signature": block["signature"]})
            )
        elif block["type"] == "text":
            events.append(
                (
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": index,
                        "content_block": {"type": "text", "text": ""},
                    },
                )
            )
            for citation in block.get("citations") or []:
                events.append(_delta(index, {"type": "citations_delta", "citation": citation}))
            for piece in _pieces(block["text"], 24):
                events.append(
                    (
                        "content_block_delta",
                        {
                            "type": "content_block_delta",
                            "index": index,
                            "delta": {"type": "text_delta", "text": piece},
                        },
                    )
                )
        else:
            streamed = block["type"] in ("tool_use", "server_tool_use")
            partial = block.pop("partial_json", None) if streamed else None
            cuts = block.pop("json_cuts", None) if streamed else None
            start_block = {**block, "input": {}} if streamed else block
            events.append(
                (
                    "content_block_start",
                    {"type": "content_block_start", "index": index, "content_block": start_block},
                )
            )
            if streamed:
                as_json = partial if partial is not None else json.dumps(block["input"])
                pieces = (
                    [as_json[a:b] for a, b in _spans(len(as_json), cuts)]
                    if cuts is not None
                    else _pieces(as_json, 64)
                )
                for piece in pieces:
                    events.append(
                        (
                            "content_block_delta",
                            {
                                "type": "content_block_delta",
                                "index": index,
                                "delta": {"type": "input_json_delta", "partial_json": piece},
                            },
                        )
                    )
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {
                    "stop_reason": message["stop_reason"],
                    "stop_sequence": message.get("stop_sequence"),
                },
                "usage": {
                    "output_tokens": message["usage"]["output_tokens"],
                    **{k: v for k, v in message["usage"].items() if k == "server_tool_use"},
                },
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def _delta(index: int, delta: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return (
        "content_block_delta",
        {"type": "content_block_delta", "index": index, "delta": delta},
    )


def _spans(length: int, cuts: list[int]) -> list[tuple[int, int]]:
    """The [start, end) spans of a text of `length` cut at `cuts` (kept inside it, sorted,
    deduplicated): every piece is non-empty."""
    edges = [0, *sorted({c for c in cuts if 0 < c < length}), length]
    return list(itertools.pairwise(edges)) if length else [(0, 0)]


def _pieces(value: str, size: int) -> list[str]:
    return [value[i : i + size] for i in range(0, len(value), size)] or [""]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    player: ScriptPlayer


class ScriptedModelServer:
    """The scripted API on 127.0.0.1, served from a background thread."""

    def __init__(self, script: dict[str, Any], port: int = 0) -> None:
        self.player = ScriptPlayer(script)
        self._server = _Server(("127.0.0.1", port), _Handler)
        self._server.player = self.player
        self._thread = threading.Thread(
            target=self._server.serve_forever, daemon=True, name="scripted-model"
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}"

    @property
    def requests(self) -> list[RecordedRequest]:
        return list(self.player.requests)

    def load(self, script: dict[str, Any]) -> None:
        self.player.load(script)

    def start(self) -> ScriptedModelServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> ScriptedModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m workspace_agent.testing.scripted_model",
        description="Serve a scripted stand-in for the Anthropic Messages API (a test double).",
    )
    parser.add_argument("--script", type=Path, required=True, help="script JSON file")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: any free port)")
    args = parser.parse_args(argv)
    script = json.loads(args.script.read_text(encoding="utf-8"))
    server = ScriptedModelServer(script, args.port)
    print(f"scripted model listening on {server.url}", flush=True)
    try:
        server._server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())

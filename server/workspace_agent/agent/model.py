"""The model client: one streamed Messages API call per agent turn, retried when the API
or the network fails in a way that may pass.

Retries (tenacity) use exponential backoff with jitter and honour `retry-after`; each one
is reported so the transcript can say "retrying in 4s (rate limited, 429)". A stream that
drops mid-answer is retried like a failed request. 400/401/403 are not retried.

The anthropic SDK is imported in a background thread (preload.py); the client is built
when the first request is, after waiting (without blocking the event loop) for what is
left of that import. SDK errors become ModelError
with a message meant for the user.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any, Protocol

from ..config import AgentSettings
from ..protocol import Usage
from . import preload, providers, request_body, thinking
from .api_status import status_words
from .sse import MessageAssembler, StreamError, StreamIncomplete

MAX_RETRY_DELAY = 60.0
MAX_RETRY_AFTER = 300.0
RETRY_STATUSES = {408, 409, 429, 500, 502, 503, 504, 529}
RETRY_ERROR_TYPES = {
    "overloaded_error",
    "api_error",
    # Bedrock's exceptions mid-stream (event-stream `:exception-type`)
    "throttlingException",
    "serviceUnavailableException",
    "internalServerException",
    "modelStreamErrorException",
}

OnText = Callable[[str], None]
OnRetry = Callable[[int, int, float, str], None]
"""(attempt that failed, attempts allowed, seconds until the next one, reason)"""


class ModelError(Exception):
    """The model could not be called; the message is fit to show the user."""


@dataclass
class ModelTurn:
    """One assistant answer, with content blocks as plain dicts ready to send back."""

    content: list[dict[str, Any]]
    stop_reason: str | None
    usage: Usage = field(default_factory=Usage)
    input_errors: dict[str, str] = field(default_factory=dict)
    """tool_use id -> why its input is unusable (cut off, not JSON, not an object). Such
    blocks carry `{}` as input so the history stays valid for the API."""

    @property
    def text(self) -> str:
        return "".join(block["text"] for block in self.content if block["type"] == "text")

    @property
    def tool_uses(self) -> list[dict[str, Any]]:
        return [block for block in self.content if block["type"] == "tool_use"]


class Model(Protocol):
    async def respond(
        self,
        *,
        system: str,
        tools: list[dict[str, Any]],
        messages: list[dict[str, Any]],
        on_text: OnText,
        on_retry: OnRetry,
        on_thinking: OnText | None = None,
    ) -> ModelTurn: ...


class AnthropicModel:
    """Streams answers from any server that speaks the Anthropic Messages API."""

    def __init__(self, settings: AgentSettings) -> None:
        self._settings = settings
        self._client: Any = None  # anthropic.AsyncAnthropic, built with the first request
        self._thinking = thinking.request_fields(
            settings.model, settings.thinking, settings.max_tokens, settings.thinking_style
        )
        preload.start()

    async def _connect(self) -> None:
        """Build the provider's SDK client once the SDK's import (preload.py) is done."""
        if self._client is not None:
            return
        anthropic = await preload.sdk()
        if self._client is not None:  # another run built it meanwhile
            return
        self._anthropic = anthropic
        try:
            built = await providers.client(anthropic, self._settings)
        except providers.Unusable as exc:
            raise ModelError(str(exc)) from None
        if self._client is None:
            self._client = built

    async def respond(
        self,
        *,
        system: str,
        tools: list[dict[str, Any]],
        messages: list[dict[str, Any]],
        on_text: OnText,
        on_retry: OnRetry,
        on_thinking: OnText | None = None,
    ) -> ModelTurn:
        await self._connect()
        from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt

        attempts = self._settings.max_retries + 1

        def wait(state: RetryCallState) -> float:
            assert state.outcome is not None
            return self._delay(state.attempt_number, state.outcome.exception())

        def before_sleep(state: RetryCallState) -> None:
            assert state.outcome is not None and state.next_action is not None
            reason = self._reason(state.outcome.exception())
            on_retry(state.attempt_number, attempts, state.next_action.sleep, reason)

        try:
            async for attempt in AsyncRetrying(
                retry=retry_if_exception(self._retryable),
                stop=stop_after_attempt(attempts),
                wait=wait,
                before_sleep=before_sleep,
                reraise=True,
            ):
                with attempt:
                    turn = await self._stream_once(system, tools, messages, on_text, on_thinking)
        except ModelError:
            raise
        except Exception as exc:
            message = describe_api_error(exc, self._settings)
            if self._retryable(exc) and attempts > 1:
                message += f" (gave up after {attempts} attempts)"
            raise ModelError(message) from exc
        return turn

    async def _stream_once(
        self,
        system: str,
        tools: list[dict[str, Any]],
        messages: list[dict[str, Any]],
        on_text: OnText,
        on_thinking: OnText | None = None,
    ) -> ModelTurn:
        system_blocks: list[dict[str, Any]] = [{"type": "text", "text": system}]
        if self._settings.prompt_caching:
            system_blocks, tools, messages = with_cache_breakpoints(system_blocks, tools, messages)
        answer = MessageAssembler(on_text, on_thinking)
        body: dict[str, Any] = {
            "model": self._settings.model,
            "max_tokens": self._thinking.max_tokens,
            **self._thinking.fields,
            "system": system_blocks,
            "tools": tools,
            "messages": messages,
            "stream": True,
        }
        if self._settings.provider == "anthropic":  # the body as we encode it (request_body.py)
            request = request_body.streamed(self._client, body)
        else:  # Bedrock and Vertex rewrite the body: the SDK's create does it
            request = self._client.messages.with_streaming_response.create(**body)
        async with request as response:
            preload.request_answered()
            try:
                async for event in providers.events(self._settings, self._client, response):
                    answer.feed(event)
            except StreamError as exc:  # classified like the same error as an HTTP status
                raise self._anthropic.APIStatusError(
                    str(exc), response=response.http_response, body=exc.body
                ) from None
        return self._turn(answer)

    def _turn(self, answer: MessageAssembler) -> ModelTurn:
        blocks = answer.content()
        content: list[dict[str, Any]] = []
        input_errors: dict[str, str] = {}
        last_tool = max(
            (i for i, (b, _) in enumerate(blocks) if b["type"] == "tool_use"), default=-1
        )
        for index, (block, raw_input) in enumerate(blocks):
            if block["type"] == "text" and not block.get("text", "").strip():
                continue  # the API refuses empty and whitespace-only text blocks sent back
            if block["type"] == "tool_use":
                block = {k: block[k] for k in ("type", "id", "name", "input")}
                problem = _input_problem(block["input"], raw_input)
                if answer.stop_reason == "max_tokens" and index == last_tool:
                    problem = (
                        f"the answer hit the max_tokens limit ({self._thinking.max_tokens}) while "
                        "this tool call was being written, so its input is incomplete"
                    )
                if problem:
                    input_errors[block["id"]] = problem
                    block["input"] = {}
            elif block["type"] == "text":
                cited = block.get("citations")
                block = {"type": "text", "text": block["text"]}
                if cited:  # sent back as they came (web search results' sources)
                    block["citations"] = cited
            content.append(block)
        usage = answer.usage
        return ModelTurn(
            content=content,
            stop_reason=answer.stop_reason,
            usage=Usage(
                usage.get("input_tokens", 0),
                usage.get("output_tokens", 0),
                usage.get("cache_creation_input_tokens", 0),
                usage.get("cache_read_input_tokens", 0),
                usage.get("web_search_requests", 0),
            ),
            input_errors=input_errors,
        )

    def _retryable(self, exc: BaseException) -> bool:
        anthropic = self._anthropic
        if isinstance(exc, anthropic.APIStatusError):
            return exc.status_code in RETRY_STATUSES or _error_type(exc) in RETRY_ERROR_TYPES
        if isinstance(exc, anthropic.APIConnectionError):
            return True
        return _dropped_stream(exc)

    def _delay(self, attempt: int, exc: BaseException | None) -> float:
        retry_after = _retry_after(exc)
        if retry_after is not None:
            return min(retry_after, MAX_RETRY_AFTER)
        base = self._settings.retry_base_seconds * 2 ** (attempt - 1)
        return min(MAX_RETRY_DELAY, base) * random.uniform(0.5, 1.0)

    def _reason(self, exc: BaseException | None) -> str:
        anthropic = self._anthropic
        if isinstance(exc, anthropic.APIStatusError):
            kind = _error_type(exc)
            name = {429: "rate limited", 529: "overloaded"}.get(exc.status_code)
            if name is None and kind == "overloaded_error":
                return "overloaded (an error event in the stream)"
            return f"{name or 'server error'}, {exc.status_code}"
        if isinstance(exc, anthropic.APITimeoutError):
            return "the request timed out"
        if isinstance(exc, anthropic.APIConnectionError):
            return "could not connect"
        return "the connection dropped mid-answer"


def with_cache_breakpoints(
    system: list[dict[str, Any]], tools: list[dict[str, Any]], messages: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """Mark the ends of the tools, the system prompt and the conversation as prompt-cache
    breakpoints. Each request then reads the previous request's prefix from the cache and
    pays full price only for what is new. The session's own messages are not modified."""

    def marked(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if not blocks or blocks[-1].get("type") in ("thinking", "redacted_thinking"):
            return blocks  # a thinking block goes back exactly as it came: no cache_control
        return [*blocks[:-1], {**blocks[-1], "cache_control": EPHEMERAL}]

    if messages and isinstance(messages[-1]["content"], list):
        last = messages[-1]
        messages = [*messages[:-1], {**last, "content": marked(last["content"])}]
    return marked(system), marked(tools), messages


EPHEMERAL = {"type": "ephemeral"}


def describe_api_error(exc: BaseException, settings: AgentSettings) -> str:
    """A sentence a user can act on, never a stack trace and never the key."""
    import anthropic

    where = providers.where(settings)
    if (refused := providers.refused_credentials(exc)) is not None:
        return refused
    if isinstance(exc, anthropic.AuthenticationError) and settings.provider == "anthropic":
        return (
            f"The model API ({where}) rejected the API key (401). "
            "Check ANTHROPIC_API_KEY (or the key set in the editor)."
        )
    if isinstance(exc, (anthropic.AuthenticationError, anthropic.PermissionDeniedError)):
        what = f"The model API ({where}) refused access ({exc.status_code}): {_api_message(exc)}"
        if settings.provider == "bedrock":
            what += (
                " Check the AWS credentials (AWS_ACCESS_KEY_ID / AWS_PROFILE) and that the model "
                "is enabled for your account in this region."
            )
        elif settings.provider == "vertex":
            what += (
                " Check that your Google Cloud credentials may use Vertex AI in this project "
                "and that the model is enabled there."
            )
        return what
    if isinstance(exc, anthropic.NotFoundError):
        return (
            f"The model API ({where}) answered 404: {_api_message(exc)} (model {settings.model!r})"
        )
    if isinstance(exc, anthropic.APIStatusError):
        code = _error_status(exc)
        said = status_words(code, where, _api_message(exc), settings.provider) if code else None
        if said:
            return said
        status = "an error event" if exc.status_code == 200 else str(exc.status_code)
        return f"The model API ({where}) answered {status}: {_api_message(exc)}"
    if isinstance(exc, anthropic.APITimeoutError):
        return f"The model API ({where}) did not answer in time."
    if isinstance(exc, anthropic.APIConnectionError):
        return f"Could not connect to the model API ({where})."
    if _dropped_stream(exc):
        return f"The connection to the model API ({where}) dropped in the middle of an answer."
    return f"The model call failed: {type(exc).__name__}: {exc}"


def _dropped_stream(exc: BaseException) -> bool:
    """A stream cut short: it ended before `message_stop`, or the SDK's HTTP layer raised
    one of its own transport errors."""
    return isinstance(exc, StreamIncomplete) or any(
        cls.__name__ in ("RemoteProtocolError", "ReadError", "ConnectError", "ReadTimeout")
        for cls in type(exc).__mro__
    )


def _error_type(exc: Any) -> str | None:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict):
            return error.get("type")
    return None


ERROR_TYPES = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}
"""The API's error types and their statuses: an error event in a stream (status 200)
names its type only."""


def _error_status(exc: Any) -> int | None:
    """The documented status of an API error: its own, or its type's for a stream's event."""
    if exc.status_code != 200:
        return int(exc.status_code)
    body = getattr(exc, "body", None)
    error = body.get("error") if isinstance(body, dict) else None
    kind = error.get("type") if isinstance(error, dict) else None
    return ERROR_TYPES.get(kind) if isinstance(kind, str) else None


def _api_message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])
        if isinstance(body.get("message"), str):  # AWS's form: {"message": ...}
            return str(body["message"])
    return str(getattr(exc, "message", exc))


def _retry_after(exc: BaseException | None) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if not headers:
        return None
    if (millis := headers.get("retry-after-ms")) is not None:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        from datetime import datetime, timezone

        return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())


def _input_problem(tool_input: Any, raw: str | None) -> str | None:
    if raw:
        try:
            json.loads(raw)
        except json.JSONDecodeError as exc:
            return f"the tool input was not valid JSON ({exc.msg} at character {exc.pos})"
    if not isinstance(tool_input, dict):
        return f"the tool input must be a JSON object, not {type(tool_input).__name__}"
    return None


ModelFactory = Callable[[AgentSettings], Model]


def cached_anthropic_models() -> ModelFactory:
    """One SDK client per provider, credentials, URL, model and token limit, reused across runs (its
    connections stay open)."""
    cache: dict[tuple[object, ...], Model] = {}

    def factory(settings: AgentSettings) -> Model:
        key = (
            settings.provider,
            settings.api_key,
            settings.auth_token,
            settings.base_url,
            settings.bedrock_region,
            settings.vertex_project_id,
            settings.vertex_region,
            settings.custom_headers,
            settings.model,
            settings.max_tokens,
            settings.thinking,
            settings.thinking_style,
            settings.max_retries,
            settings.retry_base_seconds,
            settings.prompt_caching,
        )
        if key not in cache:
            cache.clear()
            cache[key] = AnthropicModel(settings)
        return cache[key]

    return factory

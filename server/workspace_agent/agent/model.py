"""The model client: one streamed Messages API call per agent turn.

The anthropic SDK is imported only when the first client is built, so the language
server starts fast. SDK errors become ModelError with a message meant for the user.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..config import AgentSettings
from ..protocol import Usage


def preload() -> None:
    """Import the SDK ahead of the first run (it takes seconds); call from a thread once
    the server has answered `initialize`, so neither start-up nor the first run waits."""
    import anthropic  # noqa: F401
    import jsonschema  # noqa: F401


class ModelError(Exception):
    """The model could not be called; the message is fit to show the user."""


@dataclass
class ModelTurn:
    """One assistant answer, with content blocks as plain dicts ready to send back."""

    content: list[dict[str, Any]]
    stop_reason: str | None
    usage: Usage = field(default_factory=Usage)

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
        on_text: Callable[[str], None],
    ) -> ModelTurn: ...


class AnthropicModel:
    """Streams answers from any server that speaks the Anthropic Messages API."""

    def __init__(self, settings: AgentSettings) -> None:
        import anthropic

        self._anthropic = anthropic
        self._settings = settings
        self._client = anthropic.AsyncAnthropic(
            api_key=settings.api_key,
            base_url=settings.base_url,
            max_retries=2,
            timeout=anthropic.Timeout(600.0, connect=10.0),
        )

    async def respond(
        self,
        *,
        system: str,
        tools: list[dict[str, Any]],
        messages: list[dict[str, Any]],
        on_text: Callable[[str], None],
    ) -> ModelTurn:
        try:
            async with self._client.messages.stream(
                model=self._settings.model,
                max_tokens=self._settings.max_tokens,
                system=system,
                tools=tools,  # type: ignore[arg-type]
                messages=messages,  # type: ignore[arg-type]
            ) as stream:
                async for event in stream:
                    if event.type == "text" and event.text:
                        on_text(event.text)
                final = await stream.get_final_message()
        except self._anthropic.AnthropicError as exc:
            raise ModelError(describe_api_error(exc, self._settings)) from exc
        content = [_plain_block(block) for block in final.content]
        return ModelTurn(
            content=[block for block in content if not _empty_text(block)],
            stop_reason=final.stop_reason,
            usage=Usage(final.usage.input_tokens or 0, final.usage.output_tokens or 0),
        )


def describe_api_error(exc: Exception, settings: AgentSettings) -> str:
    """A sentence a user can act on, never a stack trace and never the key."""
    import anthropic

    where = settings.base_url or "the Anthropic API"
    if isinstance(exc, anthropic.AuthenticationError):
        return (
            f"The model API ({where}) rejected the API key (401). "
            "Check ANTHROPIC_API_KEY (or the key set in the editor)."
        )
    if isinstance(exc, anthropic.PermissionDeniedError):
        return f"The model API ({where}) refused access (403): {_api_message(exc)}"
    if isinstance(exc, anthropic.NotFoundError):
        return (
            f"The model API ({where}) answered 404: {_api_message(exc)} (model {settings.model!r})"
        )
    if isinstance(exc, anthropic.RateLimitError):
        return f"The model API ({where}) is rate limiting requests (429), retries ran out."
    if isinstance(exc, anthropic.APIStatusError):
        return f"The model API ({where}) answered {exc.status_code}: {_api_message(exc)}"
    if isinstance(exc, anthropic.APITimeoutError):
        return f"The model API ({where}) did not answer in time."
    if isinstance(exc, anthropic.APIConnectionError):
        return f"Could not connect to the model API ({where}): {exc}"
    return f"The model call failed: {exc}"


def _api_message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])
    return str(getattr(exc, "message", exc))


def _plain_block(block: Any) -> dict[str, Any]:
    if block.type == "text":
        return {"type": "text", "text": block.text}
    if block.type == "tool_use":
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
    dumped: dict[str, Any] = block.model_dump(mode="json", exclude_none=True)
    return dumped


def _empty_text(block: dict[str, Any]) -> bool:
    return block["type"] == "text" and not block["text"]

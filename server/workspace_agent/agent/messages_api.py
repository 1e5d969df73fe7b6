"""The one Messages API call the agent makes, a streamed `POST /v1/messages`, over httpx2
(the HTTP library the anthropic SDK itself is built on), with the SDK's headers and
timeouts and errors classified the way the SDK classifies them.

Why not the SDK: its import takes 0.8-1.8 s and 79 MB here (some 2,000 pydantic models
under `anthropic.types`) and was 85% of the time from `workspace-agent run` to its first
request, while the agent used it only as an HTTP client: the SSE stream is parsed by
sse.py, retries are tenacity's (model.py). httpx2 imports in 70 ms.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Mapping
from typing import Any

from .. import __version__

DEFAULT_BASE_URL = "https://api.anthropic.com"
API_VERSION = "2023-06-01"
READ_TIMEOUT, CONNECT_TIMEOUT = 600.0, 10.0


class ApiStatusError(Exception):
    """The API answered with an error status, or sent an `error` event in the stream
    (then `status_code` is 200). `body` is the parsed error body (None if not JSON)."""

    def __init__(
        self, message: str, status_code: int, body: Any, headers: Mapping[str, str]
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status_code = status_code
        self.body = body
        self.headers = headers


class ApiConnectionError(Exception):
    """No answer: the connection could not be made or broke before the headers came."""


class ApiTimeoutError(ApiConnectionError):
    """No answer in time."""


class MessagesClient:
    def __init__(self, api_key: str | None, base_url: str | None) -> None:
        import httpx2

        self._httpx = httpx2
        headers = {
            "anthropic-version": API_VERSION,
            "accept": "application/json",
            "user-agent": f"workspace-agent/{__version__}",
        }
        if api_key:
            headers["x-api-key"] = api_key
        self._http = httpx2.AsyncClient(
            base_url=(base_url or DEFAULT_BASE_URL).rstrip("/") + "/",
            headers=headers,
            timeout=httpx2.Timeout(READ_TIMEOUT, connect=CONNECT_TIMEOUT),
        )

    @contextlib.asynccontextmanager
    async def stream(self, body: dict[str, Any]) -> AsyncIterator[AsyncIterator[str]]:
        """The answer's lines as they arrive. Errors before the answer's headers become
        ApiStatusError / ApiTimeoutError / ApiConnectionError; a stream that breaks later
        raises httpx2's own error (a dropped stream, model.py)."""
        httpx = self._httpx
        request = self._http.build_request(
            "POST",
            "v1/messages",
            content=json.dumps(body, separators=(",", ":")),
            headers={"content-type": "application/json"},
        )
        try:
            response = await self._http.send(request, stream=True)
        except httpx.TimeoutException as exc:
            raise ApiTimeoutError(f"request timed out: {exc}") from exc
        except httpx.HTTPError as exc:
            raise ApiConnectionError(f"connection error: {exc}") from exc
        try:
            if response.status_code >= 400:
                raw = await response.aread()
                raise status_error(response.status_code, raw, response.headers)
            yield response.aiter_lines()
        finally:
            await response.aclose()


def status_error(status: int, raw: bytes, headers: Mapping[str, str]) -> ApiStatusError:
    """The error of an error answer, with the API's message when the body has one."""
    try:
        body: Any = json.loads(raw)
    except ValueError:
        body = None
    message = raw.decode("utf-8", "replace").strip() or f"HTTP {status}"
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        message = str(body["error"].get("message", message))
    return ApiStatusError(message, status, body, headers)

"""Where the model runs: the Anthropic API (or a gateway at `baseUrl`), Amazon Bedrock or
Google Vertex AI, each through the anthropic SDK's own async client.

The cloud clients need the SDK's extras (boto3 and botocore, google-auth), installed with
`workspace-agent[bedrock]` / `[vertex]`; nothing of them is imported unless that provider
is chosen. Each way a provider cannot be used (an extra not installed, no region, no
project, no credentials) is told in a sentence that names what to set or install: the
setting as `workspaceAgent.<key>` (VS Code offers Open Settings on it) and its
environment variable (the CLI's users set those).
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import sys
from collections.abc import AsyncIterator
from typing import Any

from ..config import AgentSettings
from . import preload
from .sse import SseLines

NAMES = {
    "anthropic": "the Anthropic API",
    "bedrock": "Amazon Bedrock",
    "vertex": "Google Vertex AI",
}
EXTRAS = {"bedrock": ("boto3", "botocore"), "vertex": ("google.auth",)}
"""The modules each cloud provider's SDK client imports (the SDK's extras)."""
CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform"

MISSING_KEY = (
    "ANTHROPIC_API_KEY is not set: set it (or ANTHROPIC_AUTH_TOKEN, a gateway's bearer token) "
    "in the environment, in the workspace's .env file, or with the editor's 'Set API Key' "
    "command, then run again (to run on Bedrock or Vertex instead, choose the provider "
    "setting, WORKSPACE_AGENT_PROVIDER)."
)


class Unusable(Exception):
    """The provider cannot be called as configured; the message says what to do."""


def missing(settings: AgentSettings) -> str | None:
    """What keeps a run from starting, known without importing anything: no key for the
    Anthropic API, a cloud provider's extra not installed. None when nothing is missing."""
    if settings.provider == "anthropic":
        return None if settings.api_key or settings.auth_token else MISSING_KEY
    absent = [name for name in EXTRAS[settings.provider] if not _installed(name)]
    if not absent:
        return None
    return (
        f"{NAMES[settings.provider]} needs the anthropic SDK's {settings.provider} extra "
        f"({', '.join(absent)} not installed): run "
        f"`{sys.executable} -m pip install 'workspace-agent[{settings.provider}]'` (the Python "
        "that runs the server), or set workspaceAgent.provider (WORKSPACE_AGENT_PROVIDER) to "
        "anthropic."
    )


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # its parent package (google) is not there either
        return False


def where(settings: AgentSettings) -> str:
    """The endpoint, as errors name it."""
    if settings.provider == "bedrock":
        region = settings.bedrock_region or os.environ.get("AWS_DEFAULT_REGION")
        return f"Amazon Bedrock{f', {region}' if region else ''}"
    if settings.provider == "vertex":
        place = ", ".join(p for p in (settings.vertex_project_id, settings.vertex_region) if p)
        return f"Google Vertex AI{f', {place}' if place else ''}"
    return settings.base_url or "the Anthropic API"


async def client(anthropic: Any, settings: AgentSettings) -> Any:
    """The SDK client for the settings' provider. Raises Unusable."""
    common: dict[str, Any] = {
        "max_retries": 0,  # retries are ours: reported, and covering dropped streams
        "timeout": anthropic.Timeout(600.0, connect=10.0),
        "default_headers": dict(settings.custom_headers) or None,
    }
    if settings.provider == "bedrock":
        return await _bedrock(anthropic, settings, common)
    if settings.provider == "vertex":
        return await _vertex(anthropic, settings, common)
    return anthropic.AsyncAnthropic(
        api_key=settings.api_key,
        # With both set the key wins (config.resolve_settings leaves the token out and says
        # so); settings made some other way keep to the same rule: the SDK takes only one.
        auth_token=None if settings.api_key else settings.auth_token,
        base_url=settings.base_url,
        http_client=preload.take_http_client(),  # None: the SDK makes its own
        **common,
    )


async def _bedrock(anthropic: Any, settings: AgentSettings, common: dict[str, Any]) -> Any:
    try:
        bedrock = anthropic.AsyncAnthropicBedrock(aws_region=settings.bedrock_region, **common)
    except ValueError as exc:
        if "region" not in str(exc):
            raise Unusable(f"Amazon Bedrock: {exc}") from exc
        raise Unusable(
            "Amazon Bedrock needs an AWS region: set workspaceAgent.bedrock.region (or "
            "AWS_REGION), like us-east-1, or a region in your AWS profile; then run again."
        ) from exc
    if bedrock.api_key is None:  # no AWS_BEARER_TOKEN_BEDROCK: requests are signed (SigV4)
        import boto3

        def credentials() -> Any:
            return boto3.Session(region_name=bedrock.aws_region).get_credentials()

        if await asyncio.to_thread(credentials) is None:
            raise Unusable(
                "No AWS credentials were found for Amazon Bedrock: set AWS_ACCESS_KEY_ID and "
                "AWS_SECRET_ACCESS_KEY, or AWS_PROFILE (after `aws sso login` or `aws "
                "configure`), or a Bedrock bearer token in AWS_BEARER_TOKEN_BEDROCK, in the "
                "environment the server runs in; then run again."
            )
    return bedrock


async def _vertex(anthropic: Any, settings: AgentSettings, common: dict[str, Any]) -> Any:
    if not settings.vertex_region:
        raise Unusable(
            "Google Vertex AI needs a region: set workspaceAgent.vertex.region (or "
            "CLOUD_ML_REGION), like us-east5, europe-west1 or global; then run again."
        )
    import google.auth
    from google.auth.exceptions import DefaultCredentialsError

    try:
        credentials, project = await asyncio.to_thread(
            google.auth.default, scopes=[CLOUD_PLATFORM_SCOPE]
        )
    except DefaultCredentialsError as exc:
        raise Unusable(
            "No Google Cloud credentials were found for Vertex AI: set "
            "GOOGLE_APPLICATION_CREDENTIALS to a service-account key file, or run `gcloud auth "
            f"application-default login`; then run again ({_first_line(exc)})."
        ) from exc
    project_id = settings.vertex_project_id or project
    if not project_id:
        raise Unusable(
            "Google Vertex AI needs a project: set workspaceAgent.vertex.projectId (or "
            "ANTHROPIC_VERTEX_PROJECT_ID); your credentials name none. Then run again."
        )
    return anthropic.AsyncAnthropicVertex(
        region=settings.vertex_region, project_id=project_id, credentials=credentials, **common
    )


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


async def events(
    settings: AgentSettings, client: Any, response: Any
) -> AsyncIterator[dict[str, Any]]:
    """The Messages API stream events of a streamed answer. The Anthropic API and Vertex
    answer in SSE; Bedrock in AWS event-stream frames, each `chunk` carrying one event's
    JSON as base64 bytes, which the SDK's Bedrock client decodes (botocore checks each
    frame's CRCs)."""
    if settings.provider == "bedrock":
        decoder = client._make_sse_decoder()  # the SDK's AWSEventStreamDecoder
        async for sse in decoder.aiter_bytes(response.http_response.aiter_bytes()):
            if sse.data:
                yield json.loads(sse.data)
        return
    lines = SseLines()  # LF / CRLF only, not httpx's iter_lines (sse.py)
    async for chunk in response.iter_bytes():
        for line in lines.feed(chunk):
            if line.startswith("data:"):
                yield json.loads(line[5:])


def refused_credentials(exc: BaseException) -> str | None:
    """A sentence for a cloud provider's credentials refused before any request was sent
    (google-auth's token refresh, botocore's signer), else None."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    if "RefreshError" in names or "TransportError" in names:
        return (
            "Google Cloud did not give an access token for Vertex AI "
            f"({_first_line(exc)}): check GOOGLE_APPLICATION_CREDENTIALS, or run `gcloud auth "
            "application-default login`; then run again."
        )
    if "NoCredentialsError" in names or "Could not resolve AWS credentials" in str(exc):
        return (
            "AWS credentials for Amazon Bedrock could not be used "
            f"({_first_line(exc)}): check AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY or "
            "AWS_PROFILE; then run again."
        )
    return None

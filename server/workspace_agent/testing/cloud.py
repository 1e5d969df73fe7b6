"""The scripted server's Amazon Bedrock and Google Vertex AI routes, and the Google OAuth
token endpoint Vertex credentials are refreshed at: what the anthropic SDK's
AsyncAnthropicBedrock and AsyncAnthropicVertex send, checked as those services check it.

- Bedrock (InvokeModel, InvokeModelWithResponseStream): `POST /model/{modelId}/invoke`
  and `/invoke-with-response-stream`; the body is the Messages request without `model`
  and `stream` and with `anthropic_version`; signed with SigV4 for service `bedrock`
  (sigv4.py) or a Bedrock API key as a bearer token. Errors are AWS's: `{"message"}` and
  the `x-amzn-ErrorType` header. The stream is event-stream framed (eventstream.py).
- Vertex (rawPredict, streamRawPredict):
  `POST /v1/projects/{p}/locations/{r}/publishers/anthropic/models/{model}:rawPredict`
  (`:streamRawPredict` streams SSE); the body has `anthropic_version`, no `model`; the
  bearer token must be one the token endpoint issued.
- `POST /token`: the OAuth 2.0 JWT bearer grant (RFC 7523) a service-account key file's
  `token_uri` points at: the assertion's form, audience, scope and lifetime are checked,
  and its RS256 signature when the script names the account's public key.

Script keys: `aws_credentials` ({access key id: secret}; absent: any well-formed
signature), `bedrock_api_keys` (bearer tokens Bedrock takes), `google_public_keys`
({service-account email: PEM}).
"""

from __future__ import annotations

import base64
import itertools
import json
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, unquote

from . import sigv4

BEDROCK = re.compile(r"^/model/(?P<model>[^/]+)/(?P<op>invoke|invoke-with-response-stream)$")
VERTEX = re.compile(
    r"^/v1/projects/(?P<project>[^/]+)/locations/(?P<region>[^/]+)/publishers/anthropic/"
    r"models/(?P<model>[^/:]+):(?P<op>rawPredict|streamRawPredict)$"
)
TOKEN_PATH = "/token"
AUDIENCE = "https://oauth2.googleapis.com/token"
"""A service account's assertion names Google's token endpoint as its audience, wherever
the key file's `token_uri` sends it (Google's OAuth 2.0 for Server to Server docs)."""
REFORMAT = "please reformat your input and try again."
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform"
AWS_ERRORS = {
    400: "ValidationException",
    403: "AccessDeniedException",
    404: "ResourceNotFoundException",
    408: "ModelTimeoutException",
    424: "ModelErrorException",
    429: "ThrottlingException",
    500: "InternalServerException",
    503: "ServiceUnavailableException",
    529: "ServiceUnavailableException",
}


@dataclass(frozen=True)
class Route:
    """A cloud provider's model call, as its path names it."""

    provider: str
    """bedrock | vertex"""
    model: str
    stream: bool
    project: str | None = None
    region: str | None = None


def route(path: str) -> Route | None:
    if found := BEDROCK.match(path):
        stream = found["op"] == "invoke-with-response-stream"
        return Route("bedrock", unquote(found["model"]), stream)
    if found := VERTEX.match(path):
        stream = found["op"] == "streamRawPredict"
        return Route("vertex", unquote(found["model"]), stream, found["project"], found["region"])
    return None


@dataclass
class Refusal:
    """An answer instead of a model call: its status and body, in the provider's form."""

    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)


def aws_error(status: int, message: str, kind: str | None = None) -> Refusal:
    kind = kind or AWS_ERRORS.get(status, "InternalServerException")
    return Refusal(
        status,
        {"message": message},
        {"x-amzn-ErrorType": f"{kind}:http://internal.amazon.com/coral/com.amazon.bedrock/"},
    )


def google_error(status: int, message: str, state: str) -> Refusal:
    return Refusal(status, {"error": {"code": status, "message": message, "status": state}})


class Cloud:
    """What the cloud routes keep between requests (issued tokens); thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tokens: set[str] = set()
        self._numbers = itertools.count(1)
        self.script: dict[str, Any] = {}

    def refusal(
        self,
        where: Route,
        target: str,
        headers: dict[str, str],
        raw: bytes,
        body: dict[str, Any],
    ) -> Refusal | None:
        """The provider's error for a request it would not take, else None."""
        if where.provider == "bedrock":
            return self._bedrock(target, headers, raw, body)
        return self._vertex(headers, body)

    def _bedrock(
        self, target: str, headers: dict[str, str], raw: bytes, body: dict[str, Any]
    ) -> Refusal | None:
        auth = headers.get("authorization", "")
        if auth.startswith("Bearer "):
            if auth[7:] not in self.script.get("bedrock_api_keys", []):
                return aws_error(403, sigv4.UNKNOWN_KEY[1], sigv4.UNKNOWN_KEY[0])
        else:
            secrets = self.script.get("aws_credentials")
            found = sigv4.problem("POST", target, headers, raw, secrets, "bedrock")
            if found:
                return aws_error(403, found[1], found[0])
        for key in ("model", "stream"):
            if key in body:
                return aws_error(
                    400,
                    f"Malformed input request: extraneous key [{key}] is not permitted, {REFORMAT}",
                )
        if not isinstance(body.get("anthropic_version"), str):
            return aws_error(
                400,
                "Malformed input request: #: required key [anthropic_version] not found, "
                + REFORMAT,
            )
        return None

    def _vertex(self, headers: dict[str, str], body: dict[str, Any]) -> Refusal | None:
        auth = headers.get("authorization", "")
        with self._lock:
            known = auth.startswith("Bearer ") and auth[7:] in self._tokens
        if not known:
            return google_error(
                401,
                "Request had invalid authentication credentials. Expected OAuth 2 access "
                "token, login cookie or other valid authentication credential.",
                "UNAUTHENTICATED",
            )
        if "model" in body:
            return google_error(
                400,
                "Invalid request: `model` is given in the URL, not the body.",
                "INVALID_ARGUMENT",
            )
        if not isinstance(body.get("anthropic_version"), str):
            return google_error(400, "anthropic_version: Field required", "INVALID_ARGUMENT")
        return None

    def token(self, raw: bytes) -> tuple[int, dict[str, Any]]:
        """The token endpoint's answer to a JWT bearer grant (RFC 7523, RFC 6749 5.1/5.2)."""
        form = {k: v[0] for k, v in parse_qs(raw.decode("utf-8", "replace")).items()}
        if form.get("grant_type") != JWT_BEARER:
            return 400, {
                "error": "unsupported_grant_type",
                "error_description": "Invalid grant_type.",
            }
        problem = self._assertion_problem(form.get("assertion", ""))
        if problem:
            return 400, {"error": "invalid_grant", "error_description": problem}
        with self._lock:
            token = f"ya29.scripted-{next(self._numbers):04d}"
            self._tokens.add(token)
        return 200, {"access_token": token, "expires_in": 3599, "token_type": "Bearer"}

    def _assertion_problem(self, assertion: str) -> str | None:
        parts = assertion.split(".")
        if len(parts) != 3:
            return "Invalid JWT: Token must be a short-lived token and in a reasonable timeframe."
        try:
            header, claims = (json.loads(_unbase64(part)) for part in parts[:2])
        except ValueError:
            return "Invalid JWT: not base64url-encoded JSON."
        if header.get("alg") != "RS256":
            return "Invalid JWT Signature."
        if claims.get("aud") != AUDIENCE:
            return f"Invalid JWT: audience must be {AUDIENCE}."
        if CLOUD_PLATFORM not in str(claims.get("scope", "")).split():
            return "Invalid OAuth scope or ID token audience provided."
        now = time.time()
        iat, exp = claims.get("iat"), claims.get("exp")
        if not isinstance(iat, int) or not isinstance(exp, int) or not iat - 300 <= now <= exp:
            return "Invalid JWT: Token must be a short-lived token and in a reasonable timeframe."
        if exp - iat > 3600:
            return "Invalid JWT: Token must be a short-lived token (60 minutes)."
        keys = self.script.get("google_public_keys")
        if keys is not None:
            pem = keys.get(claims.get("iss"))
            if pem is None or not _rs256_holds(pem, parts):
                return "Invalid JWT Signature."
        return None


def _unbase64(part: str) -> bytes:
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def _rs256_holds(pem: str, parts: list[str]) -> bool:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import padding, rsa

    key = serialization.load_pem_public_key(pem.encode())
    if not isinstance(key, rsa.RSAPublicKey):
        return False
    try:
        key.verify(
            _unbase64(parts[2]),
            f"{parts[0]}.{parts[1]}".encode(),
            padding.PKCS1v15(),
            hashes.SHA256(),
        )
    except InvalidSignature:
        return False
    return True

"""AWS Signature Version 4, checked the way AWS checks it, for the scripted Bedrock route.

From the SigV4 specification (Signing AWS API requests): the canonical request is the
method, the path URI-encoded once more (`/~` kept; every service but S3), the sorted query,
the signed headers as `name:trimmed value` lines, their names, and the body's SHA-256;
the string to sign is `AWS4-HMAC-SHA256`, the `x-amz-date`, the scope
`date/region/service/aws4_request` and the canonical request's SHA-256; the key is the
HMAC chain over `AWS4` + secret, date, region, service, `aws4_request`.

A client that signs wrong, for another service or region, or with a key the script does
not know gets AWS's own 403 errors.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Mapping
from urllib.parse import parse_qsl, quote

AUTHORIZATION = re.compile(
    r"^AWS4-HMAC-SHA256 Credential=(?P<key>[^/]+)/(?P<date>\d{8})/(?P<region>[^/]+)/"
    r"(?P<service>[^/]+)/aws4_request, ?SignedHeaders=(?P<signed>[a-z0-9;-]+), ?"
    r"Signature=(?P<signature>[0-9a-f]{64})$"
)
MISSING = ("MissingAuthenticationTokenException", "Missing Authentication Token")
UNKNOWN_KEY = (
    "UnrecognizedClientException",
    "The security token included in the request is invalid.",
)
MISMATCH = (
    "InvalidSignatureException",
    "The request signature we calculated does not match the signature you provided. Check "
    "your AWS Secret Access Key and signing method. Consult the service documentation for "
    "details.",
)


def problem(
    method: str,
    target: str,
    headers: Mapping[str, str],
    body: bytes,
    secrets: Mapping[str, str] | None,
    service: str,
    region: str | None = None,
) -> tuple[str, str] | None:
    """AWS's (error type, message) for a request whose signature does not hold, else None.
    `headers` has lower-cased names; `secrets` maps access key ids to secret keys (None:
    any well-formed signature passes)."""
    found = AUTHORIZATION.match(headers.get("authorization", ""))
    amz_date = headers.get("x-amz-date", "")
    if found is None or not amz_date.startswith(found["date"]):
        return MISSING
    if found["service"] != service:
        return (
            "InvalidSignatureException",
            f"Credential should be scoped to correct service: '{service}'.",
        )
    if region is not None and found["region"] != region:
        return (
            "InvalidSignatureException",
            f"Credential should be scoped to a valid region, not '{found['region']}'.",
        )
    if secrets is None:
        return None
    secret = secrets.get(found["key"])
    if secret is None:
        return UNKNOWN_KEY
    signed = found["signed"].split(";")
    if "host" not in signed or any(name not in headers for name in signed):
        return MISMATCH
    path, _, query = target.partition("?")
    canonical = "\n".join(
        [
            method.upper(),
            quote(path or "/", safe="/~"),
            "&".join(
                f"{quote(k, safe='-_.~')}={quote(v, safe='-_.~')}"
                for k, v in sorted(parse_qsl(query, keep_blank_values=True))
            ),
            "".join(f"{name}:{' '.join(headers[name].split())}\n" for name in signed),
            ";".join(signed),
            headers.get("x-amz-content-sha256") or hashlib.sha256(body).hexdigest(),
        ]
    )
    scope = f"{found['date']}/{found['region']}/{service}/aws4_request"
    to_sign = "\n".join(
        ["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(canonical.encode()).hexdigest()]
    )
    key = f"AWS4{secret}".encode()
    for part in (found["date"], found["region"], service, "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    expected = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, found["signature"]):
        return MISMATCH
    if (
        "x-amz-content-sha256" in headers
        and headers["x-amz-content-sha256"] != hashlib.sha256(body).hexdigest()
    ):
        return MISMATCH
    return None

"""One web_fetch: a GET under the sandbox's network rules, redirects followed by hand.

Every host, the first and each one a redirect leads to, passes the same gate as a
sandboxed command's connection (sandbox/proxy.py, sandbox/addresses.py): a metadata or
link-local address is refused by rule (unless listed exactly in `sandbox.allowedDomains`);
a host on that list goes ahead; any other is decided by `decide` (the `web` setting, or
the user's answer). The name is resolved once it is allowed and the connection goes to
the address that was checked (the URL keeps its name for the Host header and TLS). A
name that resolves to this machine's own loopback is refused: ask for `localhost:PORT`
by that name. No proxy from the environment is used, no cookie kept.

The body is read up to MAX_BODY_BYTES (a 50 MB download stops there, said in the result).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from ..sandbox.addresses import Resolver, is_metadata_address, listed_exactly, metadata_by_rule
from ..sandbox.proxy import is_loopback, matches, metadata_refusal, shown
from ..shared.errors import ToolError
from ..shared.verdicts import HostVerdict

MAX_BODY_BYTES = 5 * 1024 * 1024
MAX_REDIRECTS = 5
TIMEOUT_SECONDS = 30.0
USER_AGENT = "workspace-agent-web-fetch/1 (+an AI coding agent fetching a page for its user)"

Decide = Callable[[str, str], Awaitable[HostVerdict]]
"""(the host as asked about: `example.com`, `localhost:8000`; the URL) -> verdict."""


@dataclass
class Fetched:
    url: str
    """The last URL (after redirects)."""
    status: int
    content_type: str
    body: bytes
    total: int | None
    """The body's length as announced (content-length), when it was."""
    cut: bool
    redirects: list[str] = field(default_factory=list)


async def fetch(
    url: str,
    decide: Decide,
    allowed: tuple[str, ...],
    resolver: Resolver | None = None,
    max_bytes: int = MAX_BODY_BYTES,
) -> Fetched:
    """GET `url`, following up to MAX_REDIRECTS redirects, each host through the gate;
    ToolError saying why when a host is refused or the page cannot be had."""
    import httpx2

    resolver = resolver or Resolver()
    redirects: list[str] = []
    async with httpx2.AsyncClient(
        trust_env=False, follow_redirects=False, timeout=TIMEOUT_SECONDS
    ) as client:
        while True:
            target, host, port = _parse(url)
            address = await _gate(host, port, url, decide, allowed, resolver)
            try:
                fetched = await _get(client, target, host, port, address, max_bytes)
            except httpx2.HTTPError as exc:
                raise ToolError(f"could not fetch {url}: {exc or type(exc).__name__}") from None
            location = fetched.pop("location", None)
            if location is None:
                return Fetched(url, redirects=redirects, **fetched)
            if len(redirects) >= MAX_REDIRECTS:
                raise ToolError(f"{url}: more than {MAX_REDIRECTS} redirects; fetch the last one")
            url = str(target.join(location))
            redirects.append(url)


def _parse(url: str) -> tuple[Any, str, int]:
    import httpx2

    try:
        target = httpx2.URL(url)
    except (httpx2.InvalidURL, TypeError, ValueError) as exc:
        raise ToolError(f"{url!r} is not a URL: {exc}") from None
    if target.scheme not in ("http", "https"):
        raise ToolError(f"{url!r}: only http:// and https:// URLs can be fetched")
    if not target.host:
        raise ToolError(f"{url!r} names no host")
    if target.userinfo:
        raise ToolError(f"{url!r}: a URL with a user name or password is not fetched")
    port = target.port or (443 if target.scheme == "https" else 80)
    return target, target.host, port


async def _gate(
    host: str, port: int, url: str, decide: Decide, allowed: tuple[str, ...], resolver: Resolver
) -> str:
    """The address to connect to, once the host may be reached; ToolError if not."""
    name = shown(host, port)
    loopback = is_loopback(host)
    if not loopback and metadata_by_rule(host, resolver):
        if not listed_exactly(host, resolver.local(host), allowed):
            raise ToolError(metadata_refusal(name))
    if not matches(name, allowed):
        verdict = await decide(name, url)
        if verdict != "allowed":
            raise ToolError(_refusal(name, verdict))
    try:
        addresses = await resolver.resolve(host, port)
    except OSError as exc:
        raise ToolError(f"could not resolve {host}: {exc}") from None
    if not loopback:
        if any(map(is_metadata_address, addresses)) and not listed_exactly(
            host, addresses, allowed
        ):
            raise ToolError(metadata_refusal(name))
        if all(address.is_loopback for address in addresses):
            raise ToolError(
                f"{host} leads to this machine's own loopback address; to fetch a service of "
                "this machine, use localhost:PORT in the URL (asked about by that name)"
            )
        addresses = [a for a in addresses if not a.is_loopback] or addresses
    return str(addresses[0])


def _refusal(name: str, verdict: HostVerdict) -> str:
    if verdict == "denied":
        return f"not fetched: the user declined access to {name}"
    if verdict == "unattended":
        return (
            f"not fetched: --yes does not open the network; allow {name} with --allow-host "
            f"{name} or sandbox.allowedDomains in your settings file"
        )
    return (
        f"not fetched: access to {name} needs the user's answer and no one could be asked; "
        "sandbox.allowedDomains in the user settings allows hosts without a question"
    )


async def _get(
    client: Any, target: Any, host: str, port: int, address: str, max_bytes: int
) -> dict[str, Any]:
    ip = ipaddress.ip_address(address)
    connect = target.copy_with(host=str(ip))
    default = 443 if target.scheme == "https" else 80
    headers = {
        "Host": host if port == default else f"{host}:{port}",
        "User-Agent": USER_AGENT,
        "Accept": "text/html, text/markdown, text/plain, application/pdf, */*;q=0.5",
    }
    extensions = {"sni_hostname": host} if target.scheme == "https" else {}
    request = client.build_request("GET", connect, headers=headers, extensions=extensions)
    response = await client.send(request, stream=True)
    try:
        if response.is_redirect and "location" in response.headers:
            return {"location": response.headers["location"]}
        body, cut = bytearray(), False
        async for chunk in response.aiter_bytes():
            body += chunk
            if len(body) > max_bytes:
                del body[max_bytes:]
                cut = True
                break
        length = response.headers.get("content-length")
        return {
            "status": response.status_code,
            "content_type": response.headers.get("content-type", ""),
            "body": bytes(body),
            "total": int(length) if length and length.isdigit() else None,
            "cut": cut,
        }
    finally:
        await response.aclose()

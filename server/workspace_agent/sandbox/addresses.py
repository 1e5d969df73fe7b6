"""Addresses a sandboxed command never gets by a question: instance metadata and link-local.

`169.254.169.254` (and the rest of `169.254.0.0/16`, `fe80::/10`, AWS's `fd00:ec2::254`)
is where a cloud machine hands out its credentials: a user who clicks Allow without knowing
that gives the command the machine's cloud account. Such an address is refused by rule in
every front end, and reachable only when the user lists it exactly (the user settings'
`sandbox.allowedDomains`, or `--allow-host`): never through a pattern, never by an answer.

The check is made on the address the proxy connects to, so a name that resolves to such
an address is refused too, and the connection then goes to the address that was checked
(the name is not looked up a second time). No name leaves the machine before the user
allowed its host: `local` answers from what the machine knows without asking a DNS server
(IP literals in any form `inet_aton` takes, the hosts file), which is enough to refuse the
well-known metadata names without a question; a name only a DNS server knows is resolved
after the user's answer, and refused then if it leads to such an address.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

METADATA_NETWORKS = tuple(
    ipaddress.ip_network(net)
    for net in (
        "169.254.0.0/16",  # IPv4 link-local: AWS, GCP, Azure, Oracle metadata at .169.254
        "fe80::/10",  # IPv6 link-local
        "fd00:ec2::254/128",  # AWS's IPv6 instance-metadata address
        "100.100.100.200/32",  # Alibaba Cloud's instance-metadata address
    )
)
METADATA_NAMES = (
    "metadata.google.internal",
    "metadata.goog",
    "metadata",
    "instance-data",
    "instance-data.ec2.internal",
)
"""Names of metadata services, refused by name whatever they resolve to here."""
HOSTS_FILE = Path("/etc/hosts")
REFUSAL = "an instance-metadata address"
"""Why such a host is refused, in the command's result."""


def is_metadata_address(address: IpAddress) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return any(address in network for network in METADATA_NETWORKS)


def literal(name: str) -> IpAddress | None:
    """The address a name spells out, in any form the C library's parser takes
    (`169.254.169.254`, `2852039166`, `0xa9.0xfe.0xa9.0xfe`, `[fe80::1]`), else None."""
    bare = name.strip("[]")
    try:
        return ipaddress.ip_address(bare.split("%", 1)[0])
    except ValueError:
        pass
    try:
        return ipaddress.IPv4Address(socket.inet_aton(bare))
    except OSError:
        return None


Lookup = Callable[[str, int], Awaitable[list[str]]]
"""A name and port to the addresses to connect to (the full resolution, DNS included)."""


async def system_lookup(name: str, port: int) -> list[str]:
    loop = asyncio.get_running_loop()
    found = await loop.getaddrinfo(name, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in found))


@dataclass(frozen=True)
class Resolver:
    """How the proxy turns names into addresses: the machine's hosts file and resolver
    unless given others (tests give a hosts file of their own and a stub lookup)."""

    hosts_file: Path | None = None
    lookup: Lookup | None = None

    def local(self, name: str) -> list[IpAddress]:
        """What the machine knows of `name` without asking a DNS server."""
        spelled = literal(name)
        if spelled is not None:
            return [spelled]
        wanted = name.lower().rstrip(".")
        found = []
        try:
            text = (self.hosts_file or HOSTS_FILE).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return []
        for line in text.splitlines():
            fields = line.split("#", 1)[0].split()
            if len(fields) >= 2 and wanted in (field.lower() for field in fields[1:]):
                address = literal(fields[0])
                if address is not None:
                    found.append(address)
        return found

    async def resolve(self, name: str, port: int) -> list[IpAddress]:
        """Every address `name` leads to (OSError when it leads nowhere)."""
        spelled = literal(name)
        if spelled is not None:
            return [spelled]
        lookup = self.lookup or system_lookup
        addresses = [literal(text) for text in await lookup(name, port)]
        found = [address for address in addresses if address is not None]
        if not found:
            raise OSError(f"{name} has no address")
        return found


def metadata_by_rule(name: str, resolver: Resolver) -> bool:
    """Refused before any question: a metadata name, or a name the machine itself maps to
    a metadata or link-local address (no DNS server asked)."""
    bare = name.lower().rstrip(".").strip("[]")
    if bare in METADATA_NAMES:
        return True
    return any(is_metadata_address(address) for address in resolver.local(bare))


def listed_exactly(name: str, addresses: list[IpAddress], allowed: tuple[str, ...]) -> bool:
    """The user let this metadata host through by naming it (or its address) exactly;
    a pattern (`*.internal`) never does."""
    exact = {pattern.lower().strip("[]") for pattern in allowed if "*" not in pattern}
    bare = name.lower().rstrip(".").strip("[]")
    return bare in exact or any(str(address) in exact for address in addresses)

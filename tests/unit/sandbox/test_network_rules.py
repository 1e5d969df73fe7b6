"""The sandbox proxy's rules that need no question: instance-metadata and link-local
addresses are refused by rule (by their literal, by a name the machine maps there, and by a
name DNS resolves there, checked before any connection), and a run no person watches
(`--yes`) refuses every host off the allowed list with the way to allow it.

The proxy runs here on a loopback socket of this process (no sandbox): a client speaks
HTTP or SOCKS5 to it as a sandboxed program would. Nothing here sends traffic to a
non-loopback address: the proxy's connections are spied on.
"""

from __future__ import annotations

import asyncio
import socket
import struct
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from workspace_agent.sandbox import addresses, proxy
from workspace_agent.sandbox.addresses import Resolver, is_metadata_address, literal
from workspace_agent.sandbox.proxy import NetworkProxy


class Decisions:
    """The user: remembers every host asked about, answers `answer`."""

    def __init__(self, answer: str = "allowed") -> None:
        self.asked: list[str] = []
        self.answer = answer

    async def __call__(self, host: str) -> str:
        self.asked.append(host)
        return self.answer


class SpiedProxy(NetworkProxy):
    """The real proxy, but its outgoing connections are recorded and refused: nothing
    leaves this test."""

    connected: list[tuple[str, int]]

    async def _connect(
        self, name: str, addresses: list[str], port: int, loopback: bool
    ) -> proxy.Refusal:
        self.connected += [(address, port) for address in addresses[:1]]
        return proxy.Refusal(f"could not connect to {name}: spied", 502, 5)


class Proxy:
    def __init__(self, made: SpiedProxy, decisions: Decisions, port: int) -> None:
        self.proxy, self.decisions, self.port = made, decisions, port

    @property
    def connected(self) -> list[tuple[str, int]]:
        return self.proxy.connected


@pytest.fixture
def hosts_file(tmp_path: Path) -> Path:
    path = tmp_path / "hosts"
    path.write_text(
        "127.0.0.1 localhost\n"
        "169.254.169.254 metadata.example.internal  # as a cloud image ships it\n"
        "10.0.0.5 build-cache.corp\n"
    )
    return path


async def start(
    hosts_file: Path,
    allowed: tuple[str, ...] = (),
    answer: str = "allowed",
    dns: dict[str, list[str]] | None = None,
) -> Proxy:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    decisions = Decisions(answer)

    async def lookup(name: str, port: int) -> list[str]:
        if dns and name in dns:
            return dns[name]
        raise OSError(f"no such host {name}")

    resolver = Resolver(hosts_file=hosts_file, lookup=lookup)
    made = SpiedProxy(listener, allowed, decisions, resolver=resolver)  # type: ignore[arg-type]
    made.connected = []
    await made.start()
    return Proxy(made, decisions, listener.getsockname()[1])


@pytest.fixture
async def closing() -> AsyncIterator[list[NetworkProxy]]:
    made: list[NetworkProxy] = []
    yield made
    for item in made:
        await item.close()


async def http_connect(port: int, target: str) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode())
    await writer.drain()
    answer = await reader.read()
    writer.close()
    return answer


async def socks_connect(port: int, name: str, to: int) -> int:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"\x05\x01\x00")
    assert await reader.readexactly(2) == b"\x05\x00"
    raw = name.encode()
    writer.write(b"\x05\x01\x00\x03" + bytes([len(raw)]) + raw + struct.pack("!H", to))
    reply = await reader.readexactly(10)
    writer.close()
    return reply[1]


@pytest.mark.parametrize(
    "target",
    [
        "169.254.169.254:80",  # AWS, GCP, Azure, Oracle
        "2852039166:80",  # the same address as one number
        "0xa9.0xfe.0xa9.0xfe:80",  # and in hex
        "[fe80::1]:80",
        "[fd00:ec2::254]:80",
        "[::ffff:169.254.169.254]:80",
        "metadata.google.internal:80",
        "metadata.example.internal:80",  # the machine's hosts file maps it there
    ],
)
async def test_metadata_addresses_are_refused_without_a_question_and_without_a_connection(
    target: str, hosts_file: Path, closing: list[NetworkProxy]
):
    made = await start(hosts_file)
    closing.append(made.proxy)
    answer = await http_connect(made.port, target)
    assert answer.startswith(b"HTTP/1.1 403 Forbidden")
    assert b"refused: an instance-metadata address" in answer
    assert made.decisions.asked == [] and made.connected == []
    [note] = made.proxy.notes()
    host = target.rsplit(":", 1)[0].strip("[]").lower()
    assert note.startswith(f"network access to {host} was refused: an instance-metadata address")
    assert made.proxy.facts() == [{"host": host, "allowed": False, "refused": "metadata"}]


async def test_a_name_only_dns_leads_to_a_metadata_address_is_refused_after_the_question_before_any_connection(
    hosts_file: Path, closing: list[NetworkProxy]
):
    """No name leaves the machine before the user allowed its host; once allowed, the name
    is resolved and a metadata address is refused, and nothing is connected to."""
    made = await start(hosts_file, dns={"rebind.example": ["169.254.169.254"]})
    closing.append(made.proxy)
    assert await socks_connect(made.port, "rebind.example", 443) == 2  # not allowed
    assert made.decisions.asked == ["rebind.example"]
    assert made.connected == []
    assert made.proxy.facts() == [
        {"host": "rebind.example", "allowed": False, "refused": "metadata"}
    ]


async def test_the_connection_goes_to_the_address_that_was_checked(
    hosts_file: Path, closing: list[NetworkProxy]
):
    made = await start(hosts_file, dns={"pypi.org": ["151.101.0.223"]})
    closing.append(made.proxy)
    answer = await http_connect(made.port, "pypi.org:443")
    assert made.decisions.asked == ["pypi.org"]
    assert made.connected == [("151.101.0.223", 443)]  # not the name: no second lookup
    assert answer.startswith(b"HTTP/1.1 502")


async def test_only_the_exact_address_in_the_allowed_list_reaches_a_metadata_host(
    hosts_file: Path, closing: list[NetworkProxy]
):
    pattern = await start(hosts_file, allowed=("*.google.internal",))
    exact = await start(hosts_file, allowed=("169.254.169.254",))
    closing += [pattern.proxy, exact.proxy]
    refused = await http_connect(pattern.port, "metadata.google.internal:80")
    assert b"instance-metadata" in refused and pattern.connected == []
    await http_connect(exact.port, "169.254.169.254:80")
    assert exact.connected == [("169.254.169.254", 80)] and exact.decisions.asked == []


async def test_an_unattended_run_refuses_a_host_off_the_list_and_says_how_to_allow_it(
    hosts_file: Path, closing: list[NetworkProxy]
):
    made = await start(
        hosts_file,
        answer="unattended",
        dns={"example.com": ["93.184.215.14"]},
    )
    closing.append(made.proxy)
    answer = await http_connect(made.port, "example.com:443")
    assert answer.startswith(b"HTTP/1.1 403")
    assert made.connected == []
    assert made.proxy.notes() == [
        "network access to example.com was refused: --yes does not open the network; allow "
        "this host with --allow-host example.com or sandbox.allowedDomains in your settings file"
    ]
    assert made.proxy.facts() == [
        {"host": "example.com", "allowed": False, "refused": "unattended"}
    ]


def test_which_addresses_are_metadata():
    metadata = ["169.254.169.254", "169.254.0.1", "fe80::1", "fd00:ec2::254", "100.100.100.200"]
    ordinary = ["127.0.0.1", "10.0.0.5", "192.168.1.1", "151.101.0.223", "::1", "fd00:ec2::253"]
    assert all(is_metadata_address(literal(text)) for text in metadata)  # type: ignore[arg-type]
    assert not any(is_metadata_address(literal(text)) for text in ordinary)  # type: ignore[arg-type]
    assert literal("metadata.google.internal") is None and literal("pypi.org") is None


def test_the_hosts_file_is_read_without_asking_a_dns_server(hosts_file: Path):
    resolver = Resolver(hosts_file=hosts_file, lookup=None)
    assert [str(a) for a in resolver.local("METADATA.example.internal.")] == ["169.254.169.254"]
    assert resolver.local("pypi.org") == []
    assert addresses.metadata_by_rule("metadata.example.internal", resolver)
    assert not addresses.metadata_by_rule("build-cache.corp", resolver)

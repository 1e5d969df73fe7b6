"""Network from the sandbox: only through the proxy, only to allowed hosts, and others
asked about like a command. Targets are loopback servers of the host (127.0.0.2 and
127.0.0.3, so that the jail's own `NO_PROXY` loopback cannot reach them directly).
"""

from __future__ import annotations

import http.server
import shutil
import socketserver
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from workspace_agent.config import AgentSettings, resolve_settings
from workspace_agent.guard.approvals import Answer, Approvals
from workspace_agent.shared.todo import TodoList
from workspace_agent.tools.base import ToolContext, ToolOutput
from workspace_agent.tools.bash import BASH


class HostServer:
    """A loopback HTTP server of the host that counts the requests that reach it."""

    def __init__(self, address: str) -> None:
        hits = self.hits = [0]

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                hits[0] += 1
                self.send_response(200)
                self.end_headers()
                self.wfile.write(b"hello from the host\n")

            def log_message(self, *args: object) -> None:
                pass

        self.server = socketserver.ThreadingTCPServer((address, 0), Handler)
        self.url = f"http://{address}:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Recorder:
    def __init__(self, answer: Answer) -> None:
        self.answer: Answer = answer
        self.questions: list[str] = []

    async def ask(self, kind: str, action: str, reason: str | None = None) -> Answer | None:
        self.questions.append(action)
        return self.answer


@pytest.fixture
def servers(sandbox_works: None) -> Iterator[tuple[HostServer, HostServer]]:
    if not shutil.which("curl"):
        pytest.skip("curl is missing: the cases would prove nothing")
    allowed, other = HostServer("127.0.0.2"), HostServer("127.0.0.3")
    yield allowed, other
    allowed.close()
    other.close()


@pytest.fixture
def ws() -> Iterator[Path]:
    base = Path(tempfile.mkdtemp(prefix="wa-network-", dir="/var/tmp"))
    yield base
    shutil.rmtree(base, ignore_errors=True)


def context(ws: Path, asker: Recorder, domains: tuple[str, ...], session: str) -> ToolContext:
    settings = replace(AgentSettings(), sandbox_mode="required", sandbox_allowed_domains=domains)
    return ToolContext(
        ws, settings, TodoList(), Approvals({"bash": "allow"}, asker), session_id=session
    )


async def bash(ctx: ToolContext, command: str) -> str:
    answer = await BASH.handler(ctx, {"command": command})
    assert isinstance(answer, ToolOutput) and answer.sandboxed is True
    return answer.text


async def test_an_allowed_host_is_reached_through_the_proxy_plain_and_tunnelled(
    ws: Path, servers: tuple[HostServer, HostServer]
):
    allowed, _ = servers
    asker = Recorder("deny")
    ctx = context(ws, asker, ("127.0.0.2",), "net-allowed")
    output = await bash(
        ctx, f"curl -s -m 10 {allowed.url}; curl -s -m 10 --proxytunnel {allowed.url}"
    )
    assert output.count("hello from the host") == 2
    assert allowed.hits == [2] and asker.questions == []
    # the command itself still cannot open a Unix socket (the proxy's included)
    refused = await bash(ctx, "python3 -c 'import socket; socket.socket(socket.AF_UNIX)'")
    assert "PermissionError" in refused


async def test_a_host_not_on_the_list_is_asked_about_and_a_denial_reaches_the_model(
    ws: Path, servers: tuple[HostServer, HostServer]
):
    _, other = servers
    asker = Recorder("deny")
    output = await bash(
        context(ws, asker, ("127.0.0.2",), "net-denied"), f"curl -s -m 10 {other.url}"
    )
    assert other.hits == [0]
    assert asker.questions == [
        f"let `curl -s -m 10 {other.url}` connect to 127.0.0.3 from the sandbox"
    ]
    assert "[network access to 127.0.0.3 was blocked by the sandbox]" in output


async def test_allowing_a_host_for_the_session_stops_the_asking_for_that_host(
    ws: Path, servers: tuple[HostServer, HostServer]
):
    _, other = servers
    asker = Recorder("allow_session")
    ctx = context(ws, asker, ("127.0.0.2",), "net-session")
    for _ in range(2):
        assert "hello from the host" in await bash(ctx, f"curl -s -m 10 {other.url}")
    assert other.hits == [2] and len(asker.questions) == 1


async def test_without_allowed_domains_there_is_no_proxy_and_no_network(
    ws: Path, servers: tuple[HostServer, HostServer]
):
    allowed, _ = servers
    asker = Recorder("allow")
    output = await bash(
        context(ws, asker, (), "net-none"), f"echo proxy=$HTTP_PROXY; curl -s -m 5 {allowed.url}"
    )
    assert "proxy=\n" in output and "hello" not in output
    assert allowed.hits == [0] and asker.questions == []


def test_allowed_domains_reject_patterns_that_are_no_wall(tmp_path: Path, caplog):
    ok = resolve_settings(
        tmp_path, {"sandbox": {"allowedDomains": ["PyPI.org", "*.github.com"]}}, {}
    )
    assert ok.sandbox_allowed_domains == ("pypi.org", "*.github.com")
    for bad in (["*"], ["*.com"], ["exa mple.org"]):
        assert (
            resolve_settings(tmp_path, {"sandbox.allowedDomains": bad}, {}).sandbox_allowed_domains
            == ()
        )
    assert "not a host name or a pattern like *.example.com" in caplog.text


async def test_a_command_cannot_point_the_bridge_at_another_socket(
    ws: Path, servers: tuple[HostServer, HostServer]
):
    """The bridge runs without the seccomp filter: if a command could swap the socket it
    connects to (for a host one: D-Bus, an agent), it would reach it. The socket's folder is
    bound read-only, and the folder itself cannot be moved away."""
    import socket

    allowed, _ = servers
    host_socket = ws / "host.sock"
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(host_socket))
    listener.listen(4)
    listener.settimeout(2)
    ctx = context(ws, Recorder("deny"), ("127.0.0.2",), "net-swap")
    proxy = "/tmp/.workspace-agent-proxy"
    output = await bash(
        ctx,
        f"ln -sf {host_socket} {proxy}/proxy.sock; mv {proxy} /tmp/moved; "
        f"rm -rf {proxy}; mkdir -p {proxy}; ln -sf {host_socket} {proxy}/proxy.sock; "
        f"curl -s -m 10 {allowed.url}",
    )
    assert "hello from the host" in output  # still the real proxy
    with pytest.raises(TimeoutError):
        listener.accept()  # nothing reached the host socket
    listener.close()


async def test_a_command_cannot_ptrace_the_unfiltered_bridge(
    ws: Path, servers: tuple[HostServer, HostServer]
):
    """The bridge is the one process in the jail without the seccomp filter."""
    from tests.support.probes import PTRACE_PROBE

    (ws / "probe.py").write_text(PTRACE_PROBE)
    ctx = context(ws, Recorder("deny"), ("127.0.0.2",), "net-ptrace")
    output = await bash(ctx, "python3 probe.py")
    unfiltered = [line.split() for line in output.splitlines() if line.startswith("unfiltered")]
    assert [len(found) for found in unfiltered] == [4], output  # the bridge, and only it
    assert all(result == "-1" and errno == "1" for *_, result, errno in unfiltered), output

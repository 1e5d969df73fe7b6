"""Network from the sandbox, with default settings: only through the proxy, and each host
asked about by name (the command stays in the sandbox). Targets are loopback servers of
the host, which a command reaches only through the proxy (`127.0.0.1:PORT`), asked about
like any other host.
"""

from __future__ import annotations

import asyncio
import functools
import http.server
import shutil
import socketserver
import sys
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from workspace_agent.config import AgentSettings, resolve_settings
from workspace_agent.guard.approvals import Answer, Approvals, Question, Reply
from workspace_agent.shared.todo import TodoList
from workspace_agent.tools.base import ToolContext, ToolResult
from workspace_agent.tools.bash import BASH

from tests.support.host_server import HostServer
from tests.support.wheels import wheel_with_a_script


class Recorder:
    """The user: answers every question with `answer`, and remembers the questions."""

    def __init__(self, answer: Answer, keeps: bool = False) -> None:
        self.answer: Answer = answer
        self.questions: list[Question] = []
        self.keeps = keeps

    async def ask(self, kind: str, action: str, reason: str | None = None) -> Answer | None:
        raise AssertionError("every question here is asked in detail")

    async def ask_in_detail(self, question: Question) -> Reply:
        self.questions.append(question)
        return Reply(self.answer)

    def keeps_hosts(self) -> bool:
        return self.keeps


@pytest.fixture
def server(sandbox_works: None) -> Iterator[HostServer]:
    if not shutil.which("curl"):
        pytest.skip("curl is missing: the cases would prove nothing")
    host = HostServer("127.0.0.1")
    yield host
    host.close()


@pytest.fixture
def ws() -> Iterator[Path]:
    base = Path(tempfile.mkdtemp(prefix="wa-network-", dir="/var/tmp"))
    yield base
    shutil.rmtree(base, ignore_errors=True)


def context(
    ws: Path, asker: Recorder | None, session: str, domains: tuple[str, ...] = ()
) -> ToolContext:
    settings = replace(AgentSettings(), sandbox_mode="required", sandbox_allowed_domains=domains)
    return ToolContext(
        ws, settings, TodoList(), Approvals({"bash": "allow"}, asker), session_id=session
    )


async def bash(ctx: ToolContext, command: str) -> ToolResult:
    answer = await BASH.handler(ctx, {"command": command})
    assert isinstance(answer, ToolResult) and answer.sandboxed is True
    return answer


async def test_default_settings_ask_about_the_host_and_an_allowed_host_is_reached(
    ws: Path, server: HostServer
):
    asker = Recorder("allow")
    answer = await bash(context(ws, asker, "net-allow"), f"curl -s -m 10 {server.url}")
    assert "hello from the host" in answer.text and server.hits == [1]
    [question] = asker.questions
    assert question.kind == "network" and question.details.host == server.name
    assert question.message == (
        f"Allow network access to `{server.name}` (from `curl -s -m 10 {server.url}`)? "
        "It stays in the sandbox."
    )
    assert question.options == ("allow", "allow_session", "deny")  # no one keeps "always"
    assert f"[network: {server.name} allowed]" in answer.text
    assert answer.network == ({"host": server.name, "allowed": True},)


async def test_a_denied_host_gets_nothing_and_the_result_says_the_user_blocked_it(
    ws: Path, server: HostServer
):
    asker = Recorder("deny")
    answer = await bash(context(ws, asker, "net-deny"), f"curl -sS -m 10 {server.url}")
    assert server.hits == [0] and len(asker.questions) == 1
    assert f"network access to {server.name} was blocked by the user" in answer.text
    assert "resolve" not in answer.text.lower()  # never a DNS error
    assert answer.network == ({"host": server.name, "allowed": False},)


async def test_allow_for_this_session_stops_the_question_for_that_host_only(
    ws: Path, server: HostServer
):
    other = HostServer("127.0.0.1")
    try:
        asker = Recorder("allow_session")
        ctx = context(ws, asker, "net-session")
        for _ in range(2):
            assert "hello from the host" in (await bash(ctx, f"curl -s -m 10 {server.url}")).text
        assert [q.details.host for q in asker.questions] == [server.name]
        assert "hello from the host" in (await bash(ctx, f"curl -s -m 10 {other.url}")).text
        assert [q.details.host for q in asker.questions] == [server.name, other.name]
        assert server.hits == [2] and other.hits == [1]
    finally:
        other.close()


class SlowRecorder(Recorder):
    """The user takes `seconds` to answer."""

    def __init__(self, answer: Answer, seconds: float) -> None:
        super().__init__(answer)
        self.seconds = seconds

    async def ask_in_detail(self, question: Question) -> Reply:
        await asyncio.sleep(self.seconds)
        return await super().ask_in_detail(question)


async def test_the_time_a_question_waits_does_not_count_against_the_commands_timeout(
    ws: Path, server: HostServer
):
    ctx = context(ws, SlowRecorder("allow", 3.0), "net-slow")
    ctx = replace(ctx, settings=replace(ctx.settings, bash_timeout_seconds=2.0))
    answer = await bash(ctx, f"curl -s -m 20 {server.url}")
    assert "hello from the host" in answer.text and server.hits == [1], answer.text
    # the timeout still holds for the command's own time
    slow = await bash(ctx, "sleep 5")
    assert slow.is_error and "[timed out after 2 s" in slow.text


async def test_with_no_one_to_ask_a_host_is_refused_and_the_result_says_how_to_allow_it(
    ws: Path, server: HostServer
):
    answer = await bash(context(ws, None, "net-nobody"), f"curl -sS -m 10 {server.url}")
    assert server.hits == [0]
    assert f"network access to {server.name} was blocked by the sandbox" in answer.text
    assert "sandbox.allowedDomains" in answer.text


async def test_hosts_on_allowed_domains_need_no_question_https_tunnel_and_socks_alike(
    ws: Path, server: HostServer
):
    asker = Recorder("deny")
    ctx = context(ws, asker, "net-listed", ("localhost",))
    url = server.url.replace("127.0.0.1", "localhost")
    answer = await bash(
        ctx,
        f"curl -s -m 10 {url}; curl -s -m 10 --proxytunnel {url}; "
        f"curl -s -m 10 -x socks5h://127.0.0.1:3128 {url}",
    )
    assert answer.text.count("hello from the host") == 3 and server.hits == [3]
    assert asker.questions == []
    # the command itself still cannot open a Unix socket
    refused = await bash(ctx, "python3 -c 'import socket; socket.socket(socket.AF_UNIX)'")
    assert "PermissionError" in refused.text


async def test_a_server_inside_the_sandbox_answers_first_without_a_question(ws: Path):
    asker = Recorder("deny")
    (ws / "index.html").write_text("served inside the jail\n")
    answer = await bash(
        context(ws, asker, "net-local"),
        "python3 -m http.server 8765 --bind 127.0.0.1 >/dev/null 2>&1 & "
        "python3 -c 'import socket, time\nfor _ in range(100):\n    try: "
        'socket.create_connection(("127.0.0.1", 8765)); break\n    except OSError: '
        "time.sleep(0.05)'; curl -s -m 5 http://localhost:8765/index.html; kill %1",
    )
    assert "served inside the jail" in answer.text and asker.questions == []


async def test_no_process_of_the_agent_runs_inside_the_jail(ws: Path, server: HostServer):
    asker = Recorder("allow")
    answer = await bash(
        context(ws, asker, "net-ps"), f"curl -s -m 10 {server.url} >/dev/null; ps -e -o comm="
    )
    processes = answer.text.split("\n")[:-2]  # before the network note and the status
    assert "ps" in processes and set(processes) <= {"bash", "ps"}, answer.text


async def test_pip_downloads_a_package_from_a_local_index_through_the_proxy(
    ws: Path, tmp_path: Path, sandbox_works: None
):
    wheel = make_wheel(tmp_path / "index")
    index = IndexServer(tmp_path / "index")
    try:
        asker = Recorder("allow")
        answer = await bash(
            context(ws, asker, "net-pip"),
            f"{sys.executable} -m pip download --no-deps --no-cache-dir --disable-pip-version-check "
            f"--index-url {index.url}simple/ tinytool -d downloads",
        )
        assert (ws / "downloads" / wheel.name).read_bytes() == wheel.read_bytes(), answer.text
        assert [q.details.host for q in asker.questions] == [index.name]
    finally:
        index.close()


def make_wheel(folder: Path) -> Path:
    """A tiny wheel (test_sandbox_deferred's), served as /simple/tinytool/ by IndexServer."""
    package = folder / "simple" / "tinytool"
    package.mkdir(parents=True)
    wheel = wheel_with_a_script(package)
    (package / "index.html").write_text(f'<a href="{wheel.name}">{wheel.name}</a>\n')
    return wheel


class IndexServer(HostServer):
    """A package index (PEP 503 simple pages) on the host's loopback."""

    def __init__(self, root: Path) -> None:
        handler = functools.partial(QuietFiles, directory=str(root))
        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
        port = self.server.server_address[1]
        self.url, self.name = f"http://127.0.0.1:{port}/", f"127.0.0.1:{port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


class QuietFiles(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def test_a_workspace_cannot_pre_allow_a_host(tmp_path: Path):
    (tmp_path / ".env").write_text("WORKSPACE_AGENT_SANDBOX_ALLOWED_DOMAINS=127.0.0.1\n")
    assert resolve_settings(tmp_path, {}, {}).sandbox_allowed_domains == ()
    environ = {"WORKSPACE_AGENT_SANDBOX_ALLOWED_DOMAINS": "127.0.0.1"}
    assert resolve_settings(tmp_path, {}, environ).sandbox_allowed_domains == ()


def test_allowed_domains_reject_patterns_that_are_no_wall(tmp_path: Path, caplog):
    ok = resolve_settings(
        tmp_path, {"sandbox": {"allowedDomains": ["PyPI.org", "*.github.com"]}}, {}
    )
    assert ok.sandbox_allowed_domains == ("pypi.org", "*.github.com")
    port = resolve_settings(tmp_path, {"sandbox": {"allowedDomains": ["localhost:3000"]}}, {})
    assert port.sandbox_allowed_domains == ("localhost:3000",)
    for bad in (["*"], ["*.com"], ["exa mple.org"]):
        assert (
            resolve_settings(tmp_path, {"sandbox.allowedDomains": bad}, {}).sandbox_allowed_domains
            == ()
        )
    assert "not a host name or a pattern like *.example.com" in caplog.text

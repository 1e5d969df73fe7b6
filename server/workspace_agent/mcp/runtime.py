"""What a front end holds for MCP: the servers, found again at the start of every run,
the trust rule, and the two seams into the agent core (a run observer and the session's
extra tools).

Trust rule, for workspace candidates (`.vscode/mcp.json`, `.mcp.json`,
`.cursor/mcp.json`): one whose fingerprint the user approved starts; one named on the
command line (`--mcp NAME`, headless) starts for that process only; the others wait. With
an `asker` (the editor), the user is asked once per fingerprint and process, in the
background, with the command line, cwd and env names; "allow" records the trust.
Servers from the ACP client and the user's own config start without asking. A server the
user disabled (disabled.py) is neither started nor asked about, unless named on the
command line.

The editor's MCP Servers view acts on one server by name (`restart`, `trust`,
`set_enabled`); each finds the servers again first, so it acts on the config as it is now,
and refuses with McpActionError, which says what to do instead.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import protocol as p
from ..guard.approvals import Asker
from ..protocol import StopReason
from ..shared.observers import RunScope
from ..tools import TOOLS
from ..tools.base import Tool
from .config import ServerConfig
from .disabled import DisabledStore
from .servers import McpServers
from .sources import discover
from .trust import TrustStore

if TYPE_CHECKING:
    from .. import contract

log = logging.getLogger(__name__)

NOT_TRUSTED = "from {where}: not trusted yet"
HEADLESS_HINT = "from {where}: a workspace's server starts headless only with --mcp {name}"


class McpActionError(Exception):
    """An action on one server that cannot be done; the message says why and what to do,
    `next_step` (one of protocol.MCP_NEXT_STEPS, or None) names that action for a button."""

    def __init__(self, message: str, next_step: str | None) -> None:
        super().__init__(message)
        self.next_step = next_step


class McpRuntime:
    def __init__(
        self,
        user_dir: Path,
        *,
        asker: Asker | None = None,
        named: Iterable[str] = (),
        first: Sequence[ServerConfig] = (),
        first_problems: Sequence[str] = (),
        editor: Callable[[], Mapping[str, Any] | None] = lambda: None,
        on_change: Callable[[list[contract.McpServerState]], None] = lambda states: None,
        untrusted_hint: str | None = None,
        editor_origin: str | None = None,
    ) -> None:
        """`editor`: the user's `mcp.servers` setting (the editor's, or the CLI's and
        ACP's settings.json, named by `editor_origin`)."""
        self.user_dir = user_dir
        self._editor_origin = editor_origin
        self._untrusted_hint = untrusted_hint or HEADLESS_HINT
        self.trust = TrustStore(user_dir)
        self.disabled = DisabledStore(user_dir)
        self._asker = asker
        self._named = frozenset(named)
        self._first = tuple(first)
        self._first_problems = tuple(first_problems)
        self._editor = editor
        self._on_change = on_change
        self._asked: set[str] = set()
        self._may_ask = True
        self.servers: McpServers | None = None
        self._background: set[asyncio.Future[None]] = set()

    def refresh(self, root: Path | None, ask: bool = True) -> McpServers:
        """Find the servers again and start / stop / restart as needed. `ask` False: a
        new candidate is not asked about now (the user is acting in the view, which
        shows it: one question at a time); the next refresh that may ask does."""
        self._may_ask = ask
        if self.servers is None or self.servers.root != root:
            if self.servers is not None:
                self._in_background(self.servers.shutdown())
            self.servers = McpServers(root, self._on_change, reserved=TOOLS)
        found = discover(
            root,
            self.user_dir,
            editor=self._editor(),
            first=self._first,
            editor_origin=self._editor_origin or "setting workspaceAgent.mcp.servers",
        )
        for problem in found.problems:
            log.warning("MCP: %s", problem)
        problems = [*self._first_problems, *found.problems]
        try:
            self.servers.configure(found.servers, self._may_start, problems, self._is_disabled)
        finally:
            self._may_ask = True
        return self.servers

    async def restart(self, root: Path | None, name: str) -> None:
        """Stop the server and start it again (with its config as it is now)."""
        known = self.servers.connections.get(name) if self.servers is not None else None
        servers = self.refresh(root, ask=False)
        connection = servers.connections.get(name)
        if connection is None:
            raise self._not_running(servers, name)
        if connection is known:  # else finding the servers again (re)started it just now
            await servers.restart(name)

    def trust_server(self, root: Path | None, name: str, fingerprint: str) -> None:
        """Record the user's trust in a workspace candidate's exact config, the one they
        were shown (`fingerprint`), and start it."""
        servers = self.refresh(root, ask=False)
        config = servers.config(name)
        if config is None:
            raise _unknown(servers, name)
        if not config.needs_trust:
            raise McpActionError(
                f"the MCP server {name} comes from your own config ({config.origin}): it "
                "needs no trust; restart it if it does not run",
                "restart",
            )
        if config.fingerprint() != fingerprint:
            raise McpActionError(
                f"the config of the MCP server {name} changed since it was shown: it now "
                f"runs {config.describe()}; look at it again before you trust it",
                "trust",
            )
        if not self.trust.trusted(config):
            self.trust.approve(config)
            self.refresh(root, ask=False)

    def set_enabled(self, root: Path | None, name: str, enabled: bool) -> None:
        """Disable a server (stopped now, and not started again until enabled) or enable it."""
        servers = self.refresh(root, ask=False)
        config = servers.config(name)
        if config is None:
            raise _unknown(servers, name)
        if enabled:
            self.disabled.enable(config)
        else:
            self.disabled.disable(config)
        self.refresh(root, ask=False)

    @property
    def session_servers(self) -> list[str]:
        """The servers named for this process: the client's (`first`, ACP's mcpServers)
        and the command line's (`--mcp`). A run's first request waits for those still
        starting (bounded by mcp.startupWaitSeconds), so their tools are in it."""
        return [*(server.name for server in self._first), *sorted(self._named)]

    def tools(self) -> Mapping[str, Tool]:
        return self.servers.tools() if self.servers is not None else {}

    def observer(self, scope: RunScope) -> McpObserver:
        return McpObserver(self, scope)

    async def shutdown(self) -> None:
        for pending in list(self._background):
            pending.cancel()
        if self.servers is not None:
            await self.servers.shutdown()

    def _in_background(self, work: Any) -> None:
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _is_disabled(self, server: ServerConfig) -> bool:
        return server.name not in self._named and self.disabled.disabled(server)

    def _not_running(self, servers: McpServers, name: str) -> McpActionError:
        if name in servers.disabled:
            return McpActionError(f"the MCP server {name} is disabled: enable it first", "enable")
        waiting = servers.not_started.get(name)
        if waiting is not None and waiting[0].needs_trust:
            return McpActionError(
                f"the MCP server {name} is not trusted yet (it would run "
                f"{waiting[0].describe()}): trust it first",
                "trust",
            )
        if waiting is not None:
            return McpActionError(f"the MCP server {name} is not started: {waiting[1]}", None)
        return _unknown(servers, name)

    def _may_start(self, server: ServerConfig) -> str | None:
        if not server.needs_trust or server.name in self._named or self.trust.trusted(server):
            return None
        if self._asker is None:
            return self._untrusted_hint.format(where=server.where, name=server.name)
        fingerprint = server.fingerprint()
        if self._may_ask and fingerprint not in self._asked:
            self._asked.add(fingerprint)
            self._in_background(self._ask(server))
        return NOT_TRUSTED.format(where=server.where)

    async def _ask(self, server: ServerConfig) -> None:
        assert self._asker is not None
        action = f"start the MCP server {server.name} from {server.where}: {server.describe()}"
        reason = (
            "a program inside the workspace (a command may have put it there) would run on "
            "your machine"
            if server.program_in_workspace
            else "a repository's config runs a program on your machine"
        )
        try:
            answer = await self._asker.ask("mcp", action, reason)
        except Exception as exc:
            log.warning("could not ask about the MCP server %s: %s", server.name, exc)
            return
        if answer in ("allow", "allow_session"):
            self.trust.approve(server)
            if self.servers is not None:
                self.refresh(self.servers.root)


def _unknown(servers: McpServers, name: str) -> McpActionError:
    names = sorted({*servers.connections, *servers.not_started, *servers.disabled})
    known = f"the servers are {', '.join(names)}" if names else "none is configured"
    return McpActionError(
        f"there is no MCP server named {name!r} ({known}); add one to the "
        "workspaceAgent.mcp.servers setting or to mcp.json in your user config folder",
        "openSettings",
    )


class McpObserver:
    """Refreshes the servers as the run starts and tells the user their states."""

    def __init__(self, runtime: McpRuntime, scope: RunScope) -> None:
        self._runtime = runtime
        self._scope = scope

    async def start_run(self) -> None:
        servers = self._runtime.refresh(self._scope.root)
        # The servers named for this process (ACP's mcpServers, the CLI's --mcp) are part
        # of it: a first question that needs one's tool gets it, the request waits for those
        # still starting (bounded, from each one's start), and says so. The user's own
        # servers start with the editor, long before a question, and are not waited for.
        starting = servers.starting(
            self._runtime.session_servers, self._scope.settings.mcp_startup_wait_seconds
        )
        if starting:
            names = ", ".join(connection.name for connection, _ in starting)
            plural = "s" if len(starting) > 1 else ""
            self._scope.events.emit(
                p.EVENT_NOTICE, message=f"Waiting for MCP server{plural} {names}…"
            )
            await servers.wait_for_starting(starting)
        summary = servers.summary()
        if summary:
            self._scope.events.emit(p.EVENT_NOTICE, message=summary, mcpServers=servers.states())

    async def before_tool(self, call: Any) -> None:
        return None

    async def after_tool(self, report: Any) -> None:
        return None

    async def end_run(self, stop: StopReason) -> None:
        return None


class StateReporter:
    """Turns state lists into one line per server whose state changed to ready, failed
    or not started (for front ends that show lines, not a view: ACP)."""

    def __init__(self, say: Callable[[str], None]) -> None:
        self._say = say
        self._seen: dict[str, tuple[str, int, str | None]] = {}

    def __call__(self, states: list[contract.McpServerState]) -> None:
        for state in states:
            now = (state["state"], state["tools"], state["reason"])
            if self._seen.get(state["name"]) == now or state["state"] in ("starting", "stopped"):
                continue
            self._seen[state["name"]] = now
            detail = {
                "ready": f"ready ({state['tools']} tools)",
                "failed": f"failed: {state['reason']}",
            }.get(state["state"], f"{state['state']}: {state['reason']}")
            self._say(f"MCP server {state['name']}: {detail}")

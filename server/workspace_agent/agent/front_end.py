"""What every front end builds the agent from, so the editor's server, `workspace-agent acp`
and `workspace-agent run` behave alike: the options a person starts `run` and `acp` with
(`StartOptions`: --yes, --allow-host, --allow-unsandboxed), the settings a run gets from
them, the session manager over one workspace, and the sentences the front ends share (why
a limit stopped a run, the sandbox's state).

`--yes` answers the questions about commands and file changes, never the ones about the
sandbox's walls: the network stays closed to hosts off the allowed list (the user's
`sandbox.allowedDomains` and `--allow-host`), and no call leaves the sandbox unless
`--allow-unsandboxed` says so (guard/approvals.py `Grants`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..config import AgentSettings, valid_pattern
from ..guard.approvals import NO_GRANTS, Asker, Grants
from .settings_file import resolve_with_files

if TYPE_CHECKING:
    from ..mcp.config import ServerConfig
    from ..mcp.runtime import McpRuntime
    from ..protocol import PlanItem
    from ..sandbox.status import SandboxStatus
    from ..shared.code_intel import CodeIntel
    from ..shared.documents import Documents
    from ..shared.events import AgentListener
    from ..shared.observers import ObserverFactory
    from ..shared.todo import TodoItem
    from ..tools.base import Tool
    from .model import ModelFactory
    from .sessions import SessionManager

ALLOW_ALL = {"approvals": {"bash": "allow", "write": "allow"}}
"""What --yes sets: commands and file changes allowed (the guard's must-ask still asks,
and is answered by the front end's unattended asker)."""
YES_HELP = (
    "allow every command and file change without asking; it does not open the network (a "
    "host off sandbox.allowedDomains or --allow-host is refused) nor let a command leave the "
    "sandbox (see --allow-unsandboxed)"
)
ALLOW_HOST_HELP = (
    "let sandboxed commands reach HOST in this invocation, as sandbox.allowedDomains does "
    "(example.com, *.example.com, localhost:8000); repeatable"
)
ALLOW_UNSANDBOXED_HELP = (
    "let the model run a command outside the sandbox, or write folders outside the "
    "workspace, without asking, in this invocation (never implied by --yes)"
)


@dataclass(frozen=True)
class StartOptions:
    """What `run` or `acp` was started with that shapes every run of the process."""

    yes: bool = False
    allow_hosts: tuple[str, ...] = ()
    allow_unsandboxed: bool = False

    @property
    def grants(self) -> Grants:
        return Grants(unattended=self.yes, unsandboxed=self.allow_unsandboxed)

    def overrides(self, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The settings overrides of this process: `given` (the command line's), with
        commands and file changes allowed under --yes."""
        return {**(given or {}), **(ALLOW_ALL if self.yes else {})}

    def settings(self, given: Mapping[str, Any] | None = None) -> Callable[[Path], AgentSettings]:
        """How a run of this process gets its settings: the settings files under the
        overrides, with --allow-host's hosts added to the allowed ones."""
        overrides = self.overrides(given)
        hosts = self.allow_hosts

        def resolve(root: Path) -> AgentSettings:
            settings = resolve_with_files(root, overrides)
            if not hosts:
                return settings
            known = settings.sandbox_allowed_domains
            added = tuple(host for host in hosts if host not in known)
            return replace(settings, sandbox_allowed_domains=(*known, *added))

        return resolve


NO_OPTIONS = StartOptions()


def allowed_hosts(values: Sequence[str]) -> tuple[str, ...]:
    """--allow-host's values, checked as sandbox.allowedDomains's are; ValueError naming
    the first that is no host (a bare `*` would be no wall at all)."""
    hosts = []
    for value in values:
        host = value.strip().lower()
        if not valid_pattern(host):
            raise ValueError(
                f"--allow-host {value!r}: not a host name or a pattern like *.example.com or "
                "localhost:8000 (`*` and a bare top-level domain are refused: they would let "
                "every command reach any host)"
            )
        if host not in hosts:
            hosts.append(host)
    return tuple(hosts)


def session_manager(
    listener: AgentListener,
    root: Path,
    settings: Callable[[Path], AgentSettings],
    *,
    asker: Asker | None = None,
    grants: Grants = NO_GRANTS,
    documents: Documents | None = None,
    observers: Sequence[ObserverFactory] = (),
    session_tools: Callable[[str], Mapping[str, Tool]] | None = None,
    model_factory: ModelFactory | None = None,
    unavailable: Mapping[str, str] | None = None,
    editor_intel: Callable[[], CodeIntel | None] | None = None,
) -> SessionManager:
    """The agent over one workspace folder, as `acp`, `run` and the checkpoint commands
    hold it (the editor's server follows the editor's folder instead)."""
    from .sessions import SessionManager

    return SessionManager(
        listener,
        root=lambda: root,
        settings=settings,
        asker=asker,
        grants=grants,
        documents=documents,
        observers=observers,
        session_tools=session_tools,
        model_factory=model_factory,
        unavailable=unavailable,
        editor_intel=editor_intel,
    )


def mcp_runtime(
    root: Path,
    *,
    named: Sequence[str] = (),
    first: Sequence[ServerConfig] = (),
    first_problems: Sequence[str] = (),
    state_lines: Callable[[str], None] | None = None,
    untrusted_hint: str | None = None,
) -> McpRuntime | None:
    """The MCP servers of a process without an editor (`run`, `acp`): the user's own
    (mcp.json, settings.json's mcp.servers), the workspace's candidates (started when
    `named` with --mcp, or trusted), and `first`, the client's (ACP). The servers named
    here (`named`, `first`) are waited for before a run's first request, bounded by
    mcp.startupWaitSeconds. `state_lines`: told each server's new state as a line (for a
    front end without an MCP view). None, and no MCP import, when nothing is configured."""
    from ..config import user_config_dir
    from ..mcp.sources import any_configured
    from .settings_file import file_mcp_servers

    user_dir = user_config_dir()
    servers, origin = file_mcp_servers(user_dir)  # settings.json's mcp.servers
    if not first and not any_configured(root, user_dir, servers):
        return None
    from ..mcp.runtime import McpRuntime, StateReporter
    from . import preload

    # The model's SDK first (the run builds its client just after the servers start):
    # the MCP SDK's import waits for it to end (mcp/sdk.py), not the other way round.
    preload.start()
    return McpRuntime(
        user_dir,
        named=named,
        first=first,
        first_problems=first_problems,
        editor=lambda: servers,
        editor_origin=origin,
        on_change=StateReporter(state_lines) if state_lines else lambda states: None,
        untrusted_hint=untrusted_hint,
    )


def plan_as_it_is(todos: Sequence[TodoItem]) -> tuple[PlanItem, ...]:
    """A plan the user approves without changing it: its items, ids and texts kept."""
    from ..protocol import PlanItem

    return tuple(PlanItem(item.id, item.text) for item in todos)


def limit_reason(
    stop: str,
    max_turns: int,
    turns_named: str = "the `maxTurns` setting",
    budget_named: str = "the `maxRunTokens` setting",
) -> tuple[str, str] | None:
    """Why a limit stopped a run, and what the next prompt gets: (reason, "another N model
    turns" / "a budget of its own"); None after any other end. `*_named`: how this front
    end names the limit's setting."""
    if stop == "max_turns":
        turns = f"{max_turns} model turn{'' if max_turns == 1 else 's'}"
        return f"Stopped at the turn limit ({turns}, {turns_named}).", f"another {turns}"
    if stop == "budget":
        return f"Stopped at this run's token budget ({budget_named}).", "a budget of its own"
    return None


def sandbox_notice(status: SandboxStatus, options: StartOptions) -> str:
    """The sandbox's state in one line, for a process started with `options`."""
    if not options.yes or status.mode == "required":
        return status.line()
    if status.active:
        return (
            "sandbox: on (bubblewrap: writes only in the workspace and /tmp); --yes: network "
            "only to sandbox.allowedDomains and --allow-host, every other host refused"
        )
    if status.mode == "off":
        return "sandbox: off (sandbox.mode is off); --yes runs commands unasked, with your access"
    fix = f"; to fix: {status.fix}" if status.fix else ""
    then = (
        "--allow-unsandboxed: commands run outside it, unasked"
        if options.allow_unsandboxed
        else "--yes refuses commands (--allow-unsandboxed or --sandbox off runs them outside it)"
    )
    return f"sandbox: unavailable ({status.reason}){fix}; {then}"


class BackgroundLines:
    """What a front end without a Running list (the terminal, ACP) says of background
    commands, from their `background` and `backgroundOutput` events: a line when one
    listens on a new port (where to open it) and when it ends, and its output line by
    line, each prefixed by its id. One per front end; it remembers what it said."""

    def __init__(self) -> None:
        self._ports: dict[tuple[str, str], set[int]] = {}
        self._partial: dict[tuple[str, str], str] = {}

    def state(self, session_id: str, fields: Mapping[str, Any]) -> list[str]:
        """For a `background` event: its new ports, or how it ended."""
        key = (session_id, str(fields.get("id")))
        said = self._ports.setdefault(key, set())
        lines = []
        for port in fields.get("ports") or []:
            if port["port"] in said:
                continue
            said.add(port["port"])
            where = " (a host port that leads into the sandbox)" if port.get("forwarded") else ""
            lines.append(f"{key[1]} listens on port {port['port']}: {port['url']}{where}")
        if fields.get("state") in ("exited", "stopped"):
            self._ports.pop(key, None)
            lines.append(ended(fields))
        return lines

    def output(self, session_id: str, fields: Mapping[str, Any]) -> list[str]:
        """For a `backgroundOutput` event: its complete lines, `[b1] ...` each (a line
        not ended yet waits for the rest, or for `flush`)."""
        key = (session_id, str(fields.get("id")))
        text = self._partial.pop(key, "") + str(fields.get("text", ""))
        *lines, rest = text.split("\n")
        if rest:
            self._partial[key] = rest
        return [f"[{key[1]}] {line}" for line in lines]

    def flush(self, session_id: str, command_id: str) -> list[str]:
        """The last line of its output that had no line break (it ended)."""
        rest = self._partial.pop((session_id, command_id), "")
        return [f"[{command_id}] {rest}"] if rest else []


def ended(fields: Mapping[str, Any]) -> str:
    """How a background command ended, in one line, from its `background` event."""
    code = fields.get("exitCode")
    status = "unknown" if code is None else str(code)
    command = " ".join(str(fields.get("command", "")).split())
    if len(command) > 80:
        command = command[:79] + "…"
    said = f"{fields.get('id')} `{command}`"
    if fields.get("state") == "stopped":
        return f"{said} was {fields.get('note') or 'stopped'} (exit status {status})"
    return f"{said} exited with status {status}"


def stopped_at_the_end(ids: Sequence[str]) -> str | None:
    """The headless run's last line when it stopped background commands (None: none)."""
    if not ids:
        return None
    many = "s" if len(ids) > 1 else ""
    return f"stopped {len(ids)} background command{many} as the run ended: {', '.join(ids)}"

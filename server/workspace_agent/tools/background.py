"""Background commands: `bash` with `run_in_background` starts a command that keeps running
(a dev server, a watcher) and returns at once with its id, its first output and the ports
it listens on; `bash_output` reads what it wrote since, `bash_stop` stops it
(background_tools.py). One command's life is background_command.py's.

A command belongs to its session, not to the run that started it: it goes on after that
run ends, through a cancel and a compaction, and stops when the model (bash_stop) or the
user (the editor's Stop) stops it, when the session is cleared, when a headless run ends,
or with the program. At most MAX_RUNNING run at once per session; one more is refused
with the list of those running.

Its output goes to a file in the session's folder (output_log.py), so it stays readable
after a reload, and to the front ends as `backgroundOutput` events; its state as
`background` events (started, its ports, its end). The model hears of its end once, at
its next request, in one line (`news`), unless it already learnt it (its first answer,
bash_output, bash_stop).

The registry is the session manager's (one per program, or per ACP session); the tools
reach it through `ToolContext.background`. It costs nothing until a command is started:
this module is imported by the first `run_in_background`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from .. import protocol as p
from ..shared.errors import ToolError
from ..shared.events import SessionEvents
from ..shared.tool_result import ToolResult
from .background_command import BackgroundCommand, die_with_parent
from .output_buffer import COMMAND_OUTPUT_CAP
from .output_log import OutputLog, background_folder
from .process_groups import COMMANDS

if TYPE_CHECKING:
    from .. import contract
    from ..guard.approvals import Approvals
    from ..sandbox.launch import Launch
    from ..shared.events import AgentListener
    from ..shared.todo import TodoList

log = logging.getLogger(__name__)

MAX_RUNNING = 8
"""Background commands running at once in one session."""
FIRST_LOOK_SECONDS = 2.0
"""How long `bash` waits for a background command's first output before answering."""
PORT_SETTLE_SECONDS = 0.3
"""Once it listens on a port, how much longer that first answer waits for its output."""
EXIT_TAIL_LINES = 3
LINE_CHARS = 200
SHOWN_OUTPUT_CAP = 1_000_000
"""Characters of output a front end's request gets at most (its middle cut)."""
ID_PATTERN = re.compile(r"^b(\d+)$")
STOPPED_BY_MODEL = "stopped by bash_stop"
STOPPED_BY_USER = "stopped by the user"
STOPPED_BY_CLEAR = "stopped when the session was cleared"
STOPPED_AT_RUN_END = "stopped when the headless run ended"
STOPPED_WITH_SERVER = "stopped when the server stopped"


class Caller(Protocol):
    """What starting a command reads of the call that starts it (tools/base.py's
    ToolContext, named narrowly: base.py names this module's registry)."""

    root: Path
    session_id: str
    approvals: Approvals

    @property
    def steps(self) -> TodoList:
        """The plan whose item in progress the command is started under (a subagent's
        calls are its parent's step's)."""

    @property
    def secrets(self) -> tuple[str, ...]: ...


class BackgroundCommands:
    """The background commands of the sessions of one session manager."""

    def __init__(
        self, root: Callable[[], Path | None], listener: AgentListener | None = None
    ) -> None:
        self._root = root
        self._listener = listener
        self._sessions: dict[str, dict[str, BackgroundCommand]] = {}
        self._loaded: set[str] = set()
        """Sessions whose commands of earlier programs were read from their files."""
        self._cancelled: dict[str, list[str]] = {}
        """Commands started by a call that was cancelled before it answered, by session."""

    # -- what the tools use --------------------------------------------------------------

    def check_room(self, session_id: str) -> None:
        """ToolError, listing the running ones, when the session runs MAX_RUNNING already."""
        running = self.running(session_id)
        if len(running) < MAX_RUNNING:
            return
        listed = "; ".join(_one_line(command) for command in running)
        raise ToolError(
            f"not started: {len(running)} background commands are running in this session, "
            f"the most at once; stop one with bash_stop first. Running: {listed}"
        )

    def reserve(self, ctx: Caller) -> OutputLog:
        """The next command's id and output file, made before its launch: the session's
        folder exists then, so the sandbox sees it as it is (a protected folder a command
        "created" would be taken back when it ends)."""
        self.check_room(ctx.session_id)
        self._load(ctx.session_id, ctx.root)
        command_id = self._next_id(ctx.session_id)
        output = OutputLog(background_folder(ctx.root, ctx.session_id), command_id)
        output.open()
        return output

    async def start(
        self,
        ctx: Caller,
        output: OutputLog,
        launch: Launch,
        command: str,
        sandboxed: bool,
        notes: list[str] | None = None,
    ) -> ToolResult:
        """Start `launch` (a command under background_command.WRAPPER) in the background,
        its output into `output` (`reserve`), and answer with its id, its first output and
        its ports."""
        session_id, root = ctx.session_id, ctx.root
        self.check_room(session_id)
        command_id = output.path.stem
        launch.env["PYTHONUNBUFFERED"] = "1"  # its output is followed as it comes
        item = ctx.steps.current
        call = ctx.approvals.call
        started = BackgroundCommand(
            command_id,
            session_id,
            command,
            output,
            sandboxed,
            tool_use_id=call[0] if call else None,
            todo_id=item.id if item else None,
            todo_text=item.text if item else None,
            secrets=ctx.secrets,
        )
        try:
            proc = await COMMANDS.start(
                asyncio.create_subprocess_exec(
                    *launch.argv,
                    cwd=root,
                    stdin=asyncio.subprocess.DEVNULL,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.STDOUT,
                    start_new_session=True,
                    env=launch.env,
                    pass_fds=launch.pass_fds,
                    preexec_fn=None if sandboxed else die_with_parent(),
                )
            )
        except BaseException:
            await launch.finished()
            output.close()
            raise
        launch.started()
        self._sessions.setdefault(session_id, {})[command_id] = started
        started.follow(proc, launch, self._changed, self._output, self._ended)
        output.save_meta(started.meta())
        try:
            await launch.running()  # the jail's network first, then the command runs
            self._changed(started)
            return await self._first_answer(started, launch, notes or [])
        except asyncio.CancelledError:  # a cancel stops the run, not what it started
            self._cancelled.setdefault(session_id, []).append(command_id)
            raise

    def find(self, session_id: str, command_id: str, root: Path | None = None) -> BackgroundCommand:
        """The session's command of that id (one of an earlier program's too); ToolError
        naming the session's commands when there is none."""
        self._load(session_id, root or self._root())
        found = self._sessions.get(session_id, {}).get(command_id.strip())
        if found is not None:
            return found
        known = self.commands(session_id)
        listed = ", ".join(f"{c.id} ({c.state})" for c in known) or "none"
        raise ToolError(
            f"there is no background command {command_id!r} in this session; its background "
            f"commands: {listed}"
        )

    def commands(self, session_id: str) -> list[BackgroundCommand]:
        """The session's commands, oldest first."""
        self._load_once(session_id)
        return sorted(self._sessions.get(session_id, {}).values(), key=_number)

    def has_commands(self, session_id: str) -> bool:
        """Whether the session has a command, running or ended (asked several times a
        turn: which tools the model has)."""
        self._load_once(session_id)
        return bool(self._sessions.get(session_id))

    def running(self, session_id: str) -> list[BackgroundCommand]:
        return [c for c in self._sessions.get(session_id, {}).values() if c.running]

    def steps(self, session_id: str) -> list[BackgroundCommand]:
        """The session's commands of this program, as the checkpoints see them
        (shared/observers.py BackgroundStep)."""
        return sorted(self._sessions.get(session_id, {}).values(), key=_number)

    def read_new(self, found: BackgroundCommand) -> tuple[str, int]:
        """What it wrote since the model last read, bounded like bash's output (and the
        bytes no longer kept that the model never saw); moves the model's place."""
        text, end, lost = found.log.read(found.read_offset, COMMAND_OUTPUT_CAP)
        found.read_offset = end
        if not found.running:
            found.told = True
        found.log.save_meta(found.meta())
        return text, lost

    # -- what the front ends use -----------------------------------------------------------

    def listing(self, session_id: str) -> contract.BackgroundList:
        return {
            "sessionId": session_id,
            "commands": [c.to_wire() for c in self.commands(session_id)],
        }

    def read(
        self, session_id: str, command_id: str, offset: int
    ) -> contract.BackgroundOutputResult:
        """Output from `offset` for Show Output (the model's place stays where it is)."""
        found = self.find(session_id, command_id)
        text, end, lost = found.log.read(offset, SHOWN_OUTPUT_CAP)
        for secret in found.secrets:
            text = text.replace(secret, "[redacted]")
        return {
            "text": text,
            "offset": end,
            "dropped": lost,
            "state": found.state,
            "exitCode": found.exit_code,
        }

    async def stop(
        self, session_id: str, command_id: str | None = None, note: str = STOPPED_BY_USER
    ) -> list[BackgroundCommand]:
        """Stop one command (ToolError when there is no such), or every running one of
        the session; returns those it stopped, once they are gone."""
        if command_id is not None:
            targets = [self.find(session_id, command_id)]
        else:
            targets = self.running(session_id)
        targets = [c for c in targets if c.running]
        await asyncio.gather(*(c.stop(note) for c in targets))
        return targets

    async def stop_all(self, note: str = STOPPED_WITH_SERVER, grace: float = 1.0) -> int:
        """Every running command of every session (the server stops): SIGTERM, SIGKILL to
        what is left after `grace` seconds. Returns how many there were."""
        running = [c for cs in self._sessions.values() for c in cs.values() if c.running]
        await asyncio.gather(*(c.stop(note, grace) for c in running), return_exceptions=True)
        return len(running)

    # -- what the model is told at its next request ----------------------------------------

    def news(self, session_id: str, compacted: bool = False) -> list[str]:
        """Lines for the model's next request, each told once: the commands that ended
        since it last heard of them, those a cancelled call started, and after a
        compaction (which may have shortened the results that named them) those running."""
        lines = []
        cancelled = self._cancelled.pop(session_id, [])
        for found in self._sessions.get(session_id, {}).values():
            if found.id in cancelled and found.running:
                lines.append(
                    f"[background command {_one_line(found)} was started by a call that the "
                    "user cancelled; it keeps running until bash_stop stops it]"
                )
            if not found.running and not found.told:
                found.told = True
                found.log.save_meta(found.meta())
                lines.append(f"[{ended_line(found)}]")
        if compacted:
            running = self.running(session_id)
            if running:
                listed = "; ".join(_one_line(c) for c in running)
                lines.append(f"[background commands still running: {listed}]")
        return lines

    # -- events ---------------------------------------------------------------------------

    def _events(self, session_id: str) -> SessionEvents | None:
        if self._listener is None:
            return None
        return SessionEvents(self._listener, session_id)

    def _changed(self, found: BackgroundCommand) -> None:
        events = self._events(found.session_id)
        if events is not None:
            events.emit(p.EVENT_BACKGROUND, **found.to_wire())

    def _output(self, found: BackgroundCommand, text: str) -> None:
        events = self._events(found.session_id)
        if events is not None:
            events.emit(
                p.EVENT_BACKGROUND_OUTPUT, id=found.id, text=text, outputBytes=found.log.total
            )

    def _ended(self, found: BackgroundCommand) -> None:
        found.log.save_meta(found.meta())
        self._changed(found)

    # -- the first answer ------------------------------------------------------------------

    async def _first_answer(
        self, found: BackgroundCommand, launch: Launch, notes: list[str]
    ) -> ToolResult:
        """What `bash` answers: the id, the first output (up to FIRST_LOOK_SECONDS, less
        once it listens on a port), its ports; its exit status if it ended already."""
        loop = asyncio.get_running_loop()
        began = loop.time()
        port_seen: float | None = None
        while not found.done.is_set():
            now = loop.time()
            if found.ports and port_seen is None:
                port_seen = now
            waited_enough = now - began >= FIRST_LOOK_SECONDS
            if waited_enough or (port_seen is not None and now - port_seen >= PORT_SETTLE_SECONDS):
                break
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(found.done.wait()), 0.05)
        text, _lost = self.read_new(found)
        where = "in the sandbox" if found.sandboxed else "outside the sandbox"
        lines = [f"id: {found.id}"]
        if found.running:
            lines.append(
                f"[running in the background, {where}; it goes on after this call: "
                f"bash_output with id {found.id} reads its new output, bash_stop stops it]"
            )
        lines.append(text.rstrip("\n") or "(no output yet)")
        lines += [f"[{line}]" for line in port_lines(found)]
        if found.log.problem:
            lines.append(f"[{found.log.problem}]")
        lines += [f"[{note}]" for note in notes]
        if not found.running:
            lines.append(f"[{ended_line(found, with_tail=False)}]")
        network = tuple(launch.network.facts()) if launch.network else ()
        return ToolResult(
            "\n".join(lines),
            exit_code=None if found.running else found.exit_code,
            sandboxed=found.sandboxed,
            network=network,
            background=found.id,
        )

    # -- ids and saved commands ------------------------------------------------------------

    def _next_id(self, session_id: str) -> str:
        numbers = [_number(c) for c in self._sessions.get(session_id, {}).values()]
        return f"b{max(numbers, default=0) + 1}"

    def _load_once(self, session_id: str) -> None:
        if session_id not in self._loaded:  # the workspace's root is not asked for again
            self._load(session_id, self._root())

    def _load(self, session_id: str, root: Path | None) -> None:
        """The commands an earlier program of this workspace ran in the session, read back
        from their files (once)."""
        if session_id in self._loaded or root is None:
            return
        self._loaded.add(session_id)
        folder = background_folder(root, session_id)
        try:
            names = sorted(folder.glob("b*.json"))
        except OSError:
            return
        known = self._sessions.setdefault(session_id, {})
        for path in names:
            command_id = path.stem
            if not ID_PATTERN.match(command_id) or command_id in known:
                continue
            saved = OutputLog.existing(folder, command_id)
            meta = saved.load_meta()
            if meta is None:
                continue
            try:
                known[command_id] = BackgroundCommand.from_meta(session_id, saved, meta)
            except (TypeError, ValueError) as exc:
                log.warning(
                    "background %s of session %s: unreadable: %s", command_id, session_id, exc
                )


def port_lines(found: BackgroundCommand) -> list[str]:
    """One line per port it listens on, with where the user opens it."""
    lines = []
    for port in sorted(found.ports.values(), key=lambda p: p.port):
        if port.forwarded:
            same = port.host_port == port.port
            via = f"the host's port {port.host_port}" if not same else "the same port on the host"
            lines.append(
                f"listening on port {port.port} in the sandbox; open {port.url} ({via} "
                "leads to it while it runs)"
            )
        else:
            lines.append(f"listening on port {port.port}: {port.url}")
    return lines


def ended_line(found: BackgroundCommand, with_tail: bool = True) -> str:
    """How it ended, in one line: `background command b1 `npm test` exited with status 1
    after 2 min 3 s; its last lines: "..." / "..."`."""
    status = "unknown" if found.exit_code is None else str(found.exit_code)
    if found.state == "stopped":
        how = f"was {found.note or 'stopped'} (exit status {status})"
    else:
        how = f"exited with status {status}"
    line = (
        f"background command {_one_line(found, with_age=False)} {how} after {took(found.seconds())}"
    )
    if found.state == "exited" and found.note:
        line += f" ({found.note})"
    if with_tail:
        tail = [_cut(t) for t in found.log.tail(EXIT_TAIL_LINES)]
        if tail:
            line += "; its last lines: " + " / ".join(f'"{t}"' for t in tail)
    return line


def took(seconds: float) -> str:
    seconds = max(int(seconds), 0)
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min"


def _one_line(found: BackgroundCommand, with_age: bool = True) -> str:
    command = _cut(" ".join(found.command.split()), 80).replace("`", "'")
    said = f"{found.id} `{command}`"
    if with_age and found.running:
        said += f" (running for {took(found.seconds())})"
    return said


def _cut(text: str, limit: int = LINE_CHARS) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _number(found: BackgroundCommand) -> int:
    return _id_number(found.id)


@functools.lru_cache(maxsize=1024)
def _id_number(command_id: str) -> int:
    """The number of an id (b12 → 12), what the session's commands are sorted by (several
    times a turn while one runs)."""
    match = ID_PATTERN.match(command_id)
    return int(match.group(1)) if match else 0

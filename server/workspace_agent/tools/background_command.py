"""One background command's life: its output into its log (and to the front ends, a
piece at a time), the ports it listens on (forwarded from the host when it runs in the
sandbox), how it ends, and how it is stopped.

It runs in its own process group, registered in `process_groups.COMMANDS` like every
command, so every way the program ends kills it (lsp/lifetime.py, cli/run.py, atexit).
A program killed outright (SIGKILL) runs none of that; then the kernel does it: a
sandboxed command is in bwrap, started with `--die-with-parent` (its jail dies with it);
an unsandboxed one runs under a small shell (WRAPPER) that the kernel signals when the
program dies (PR_SET_PDEATHSIG), and that kills its whole group. Nothing is orphaned.

The same shell stands between the jail and the command in the sandbox: bwrap runs its
command as the jail's pid 1, which a SIGTERM from outside does not reach unless it
handles it; under the shell, the command is an ordinary process that `stop` can ask to end.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import logging
import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .output_log import OutputLog
from .process_groups import COMMANDS, descendants, kill_group, kill_tree, shell_status

if TYPE_CHECKING:
    from .. import contract
    from ..contract import BackgroundState
    from ..sandbox.forward import PortForward
    from ..sandbox.launch import Launch

log = logging.getLogger(__name__)

READ_CHUNK = 65536
STOP_GRACE_SECONDS = 5.0
"""After SIGTERM, how long a command has to end before SIGKILL."""
EXIT_GRACE_SECONDS = 0.5
"""How long output may keep flowing from processes a command left behind when it exited."""
OUTPUT_EVENT_SECONDS = 0.25
OUTPUT_EVENT_CHARS = 8000
PORT_LOOKS = ((10.0, 0.25), (60.0, 1.0))
"""How often its ports are looked at: every 0.25 s in its first 10 s, every second until
it has run a minute, then every PORT_LOOK_LATER seconds (an idle command costs a file read
now and then)."""
PORT_LOOK_LATER = 3.0
FULL_LOOK_SECONDS = 30.0
"""A look reads the TCP tables (milliseconds each) when the sockets' mark moved, and at
least this often anyway (microseconds otherwise: sandbox/ports.py)."""
PARENT_DEATH = signal.SIGUSR1
"""What the kernel sends an unsandboxed command's shell when the program dies."""
WRAPPER = (
    'trap "kill -KILL 0" USR1; trap : TERM; /bin/bash -c "$1" & c=$!; '
    "while :; do wait $c; s=$?; kill -0 $c 2>/dev/null || exit $s; done"
)
"""The shell a background command runs under (`bash -c WRAPPER bash COMMAND`): on
PARENT_DEATH it kills its whole group (the command runs as its child, so that `wait`
lets the trap run at once); a SIGTERM it outlasts (a handler, not ignored: the command
gets the default), waiting for the command, which may take its time to end; its exit
status is the command's."""
PR_SET_PDEATHSIG = 1


def shell_argv(command: str) -> list[str]:
    """The argv of a background command (in the sandbox or not): WRAPPER over it."""
    return ["/bin/bash", "-c", WRAPPER, "bash", command]


@dataclass(frozen=True)
class Port:
    port: int
    host_port: int
    forwarded: bool

    @property
    def url(self) -> str:
        return f"http://localhost:{self.host_port}"

    def to_wire(self) -> contract.BackgroundPort:
        return {
            "port": self.port,
            "hostPort": self.host_port,
            "url": self.url,
            "forwarded": self.forwarded,
        }


@dataclass
class BackgroundCommand:
    """A command started with `run_in_background`, running or ended (also one read back
    from its files after a reload: `proc` is None then)."""

    id: str
    session_id: str
    command: str
    log: OutputLog
    sandboxed: bool
    tool_use_id: str | None = None
    todo_id: str | None = None
    todo_text: str | None = None
    secrets: tuple[str, ...] = ()
    started_wall: float = field(default_factory=time.time)
    ended_wall: float | None = None
    state: BackgroundState = "running"
    exit_code: int | None = None
    note: str | None = None
    ports: dict[int, Port] = field(default_factory=dict)
    read_offset: int = 0
    """Where the model's reading stands (bash_output gives what came after)."""
    told: bool = False
    """The model knows how it ended (its first answer, bash_output, bash_stop, a note)."""
    claimed: set[str] = field(default_factory=set)
    """Files it was seen writing (the checkpoints' BackgroundStep)."""
    proc: asyncio.subprocess.Process | None = None
    launch: Launch | None = None
    done: asyncio.Event = field(default_factory=asyncio.Event)
    _stopping: str | None = None
    _forwards: dict[int, PortForward] = field(default_factory=dict)
    _mark: object = None
    _full_look: float = 0.0
    _tasks: list[asyncio.Task[Any]] = field(default_factory=list)
    _pending: list[str] = field(default_factory=list)
    _flush: asyncio.TimerHandle | None = None
    _on_change: Callable[[BackgroundCommand], None] = lambda _c: None
    _on_output: Callable[[BackgroundCommand, str], None] = lambda _c, _t: None
    _on_end: Callable[[BackgroundCommand], None] = lambda _c: None

    @property
    def running(self) -> bool:
        return self.state == "running"

    def seconds(self) -> float:
        return (self.ended_wall or time.time()) - self.started_wall

    # -- its life ------------------------------------------------------------------------

    def follow(
        self,
        proc: asyncio.subprocess.Process,
        launch: Launch,
        on_change: Callable[[BackgroundCommand], None],
        on_output: Callable[[BackgroundCommand, str], None],
        on_end: Callable[[BackgroundCommand], None],
    ) -> None:
        """Its output, its ports and its end from now on."""
        self.proc, self.launch = proc, launch
        self._on_change, self._on_output, self._on_end = on_change, on_output, on_end
        pump = asyncio.ensure_future(self._pump())
        self._tasks = [pump, asyncio.ensure_future(self._watch_ports())]
        self._tasks.append(asyncio.ensure_future(self._wait(pump)))

    async def stop(self, note: str, grace: float | None = None) -> None:
        """SIGTERM to its processes, SIGKILL to the group after `grace` seconds
        (STOP_GRACE_SECONDS); returns once it has ended."""
        if not self.running or self.proc is None:
            return
        grace = STOP_GRACE_SECONDS if grace is None else grace
        if self._stopping is None:
            self._stopping = note
        self._signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(asyncio.shield(self.done.wait()), grace)
        except asyncio.TimeoutError:
            kill_tree(self.proc.pid)
            await self.done.wait()

    def kill(self, note: str) -> None:
        """At once (the program ends): SIGKILL to its group; `_wait` finishes the rest."""
        if self.running and self.proc is not None:
            self._stopping = self._stopping or note
            kill_tree(self.proc.pid)

    def _signal(self, sig: int) -> None:
        assert self.proc is not None
        if not self.sandboxed:
            kill_group(self.proc.pid, sig)
            return
        # bwrap leads the group and does not pass signals on: the jail's processes get it
        # (they are its descendants), and bwrap ends with the command.
        for pid in descendants(self.proc.pid):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)

    async def _pump(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        while chunk := await self.proc.stdout.read(READ_CHUNK):
            self.log.append(chunk)
            self._pending.append(decoder.decode(chunk))
            if self._flush is None:
                loop = asyncio.get_running_loop()
                self._flush = loop.call_later(OUTPUT_EVENT_SECONDS, self._send_output)
        self._pending.append(decoder.decode(b"", final=True))

    def _send_output(self) -> None:
        self._flush = None
        text, self._pending = "".join(self._pending), []
        if not text:
            return
        if len(text) > OUTPUT_EVENT_CHARS:
            left_out = len(text) - OUTPUT_EVENT_CHARS
            text = f"[… {left_out:,} characters left out …]\n{text[-OUTPUT_EVENT_CHARS:]}"
        for secret in self.secrets:
            text = text.replace(secret, "[redacted]")
        self._on_output(self, text)

    async def _wait(self, pump: asyncio.Task[None]) -> None:
        assert self.proc is not None
        try:
            await self.proc.wait()
            try:
                await asyncio.wait_for(asyncio.shield(pump), EXIT_GRACE_SECONDS)
            except asyncio.TimeoutError:  # what it left behind still holds the output
                kill_tree(self.proc.pid)
                pump.cancel()
                self.note = self.note or "processes it left running were stopped when it ended"
        finally:
            await self._ended()

    async def _ended(self) -> None:
        assert self.proc is not None
        COMMANDS.finished(self.proc.pid)
        self.exit_code = shell_status(self.proc.returncode)
        self.ended_wall = time.time()
        if self._stopping is not None:
            self.state, self.note = "stopped", self._stopping
        else:
            self.state = "exited"
        for task in self._tasks:
            if task is not asyncio.current_task():
                task.cancel()
        for forward in self._forwards.values():
            await forward.close()
        self._forwards.clear()
        self.ports.clear()
        if self.launch is not None:
            with contextlib.suppress(Exception):
                await self.launch.finished()
        if self._flush is not None:
            self._flush.cancel()
        self._send_output()
        self.log.close()
        self.done.set()
        self._on_end(self)

    # -- ports ---------------------------------------------------------------------------

    async def _watch_ports(self) -> None:
        loop = asyncio.get_running_loop()
        began = loop.time()
        while self.running:
            try:
                await self._look_at_ports()
            except Exception:  # never the command's end
                log.exception("background %s: looking at its ports failed", self.id)
            age = loop.time() - began
            pause = next((every for until, every in PORT_LOOKS if age < until), PORT_LOOK_LATER)
            await asyncio.sleep(pause)

    async def _look_at_ports(self) -> None:
        from ..sandbox.ports import jail_mark, jail_ports, process_mark, process_ports

        assert self.proc is not None
        network = self.launch.network if self.launch is not None else None
        moment = time.monotonic()
        if self.sandboxed:
            if network is None or network.jail_pid is None or network.problem:
                return  # no network in the jail: nothing to forward to
            jail = network.jail_pid
            mark: object = jail_mark(jail)
        else:
            pids = [self.proc.pid, *descendants(self.proc.pid)]
            mark = process_mark(pids)
        if mark == self._mark and moment - self._full_look < FULL_LOOK_SECONDS:
            return  # no socket opened or closed since the last look
        self._mark, self._full_look = mark, moment
        if self.sandboxed:
            from ..sandbox.proxy import PROXY_PORT

            found = jail_ports(jail, leave_out=(PROXY_PORT,))
        else:
            found = process_ports(pids)
        now = {listening.port: listening for listening in found}
        changed = False
        for port in [p for p in self.ports if p not in now]:
            changed = True
            del self.ports[port]
            forward = self._forwards.pop(port, None)
            if forward is not None:
                await forward.close()
        for port, listening in now.items():
            if port in self.ports or not self.running:
                continue
            if not self.sandboxed:
                self.ports[port] = Port(port, port, False)
                changed = True
                continue
            assert network is not None
            from ..sandbox.forward import PortForward

            address = listening.address

            async def connect(port: int = port, address: str = address) -> Any:
                return await network.connect_inside(port, address)

            try:
                forward = await PortForward.open(port, connect)
            except OSError as exc:
                log.warning("background %s: no host port for %d: %s", self.id, port, exc)
                continue
            self._forwards[port] = forward
            self.ports[port] = Port(port, forward.host_port, True)
            changed = True
        if changed:
            self._on_change(self)

    # -- what it looks like --------------------------------------------------------------

    def to_wire(self) -> contract.BackgroundCommand:
        wire: contract.BackgroundCommand = {
            "id": self.id,
            "command": self.command,
            "state": self.state,
            "exitCode": self.exit_code,
            "toolUseId": self.tool_use_id,
            "todoId": self.todo_id,
            "startedAt": _iso(self.started_wall),
            "ports": [port.to_wire() for port in sorted(self.ports.values(), key=_by_port)],
            "sandboxed": self.sandboxed,
            "outputBytes": self.log.total,
        }
        if self.ended_wall is not None:
            wire["endedAt"] = _iso(self.ended_wall)
        if self.note:
            wire["note"] = self.note
        return wire

    def meta(self) -> dict[str, Any]:
        """What its JSON file keeps (output_log.py), to be read back after a reload."""
        return {
            "id": self.id,
            "command": self.command,
            "state": self.state,
            "exitCode": self.exit_code,
            "toolUseId": self.tool_use_id,
            "todoId": self.todo_id,
            "todoText": self.todo_text,
            "started": self.started_wall,
            "ended": self.ended_wall,
            "sandboxed": self.sandboxed,
            "note": self.note,
            "readOffset": self.read_offset,
            "told": self.told,
        }

    @classmethod
    def from_meta(cls, session_id: str, log_: OutputLog, meta: dict[str, Any]) -> BackgroundCommand:
        """A command read back from its files: one that was running when the program that
        ran it ended is `stopped`, its exit status unknown."""
        found = cls(
            str(meta.get("id")),
            session_id,
            str(meta.get("command", "")),
            log_,
            bool(meta.get("sandboxed")),
            tool_use_id=_text(meta.get("toolUseId")),
            todo_id=_text(meta.get("todoId")),
            todo_text=_text(meta.get("todoText")),
            started_wall=float(meta.get("started") or 0.0),
            read_offset=int(meta.get("readOffset") or 0),
            told=bool(meta.get("told")),
        )
        state = meta.get("state")
        exit_code = meta.get("exitCode")
        found.exit_code = exit_code if isinstance(exit_code, int) else None
        found.note = _text(meta.get("note"))
        ended = meta.get("ended")
        if state in ("exited", "stopped") and isinstance(ended, int | float):
            found.state, found.ended_wall = state, float(ended)
        else:
            found.state = "stopped"
            found.ended_wall = found.started_wall
            found.note = "stopped when the program that ran it ended (its exit status is not known)"
            found.told = True  # nothing more will be known of it
        found.done.set()
        return found


def die_with_parent() -> Callable[[], None]:
    """A preexec function: the kernel sends PARENT_DEATH to the child when this process
    dies (and at once if it died already, between the fork and the prctl)."""
    import ctypes

    parent = os.getpid()
    libc = ctypes.CDLL(None, use_errno=True)
    prctl = libc.prctl

    def preexec() -> None:
        prctl(PR_SET_PDEATHSIG, int(PARENT_DEATH), 0, 0, 0)
        if os.getppid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)

    return preexec


def _iso(wall: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(wall))


def _by_port(port: Port) -> int:
    return port.port


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None

"""Running one hook's command: on the host (the user's own hooks) or in the sandbox (the
workspace's), bounded in time and output.

On the host the shell is found on `host_programs.host_path()` and started by its absolute
path, with that PATH for what the command starts (shared/host_programs.py): no program a
sandboxed command planted in the workspace runs in its place. In the sandbox the command
is launched as bash's are (sandbox/backend.py): it writes only the workspace and its
session's /tmp, and each host it reaches for is asked about; where the sandbox cannot
start, a workspace's hook does not run at all (never on the host).

The command runs in its own process group, registered with the agent's commands
(tools/process_groups.py): a timeout, a cancelled run or the program ending kills it and
everything it started. Its JSON input goes to stdin; stdout and stderr are read apart,
each kept to its first OUTPUT_CHARS characters, the rest read and dropped (a hook that
prints 10 MB costs a few kilobytes).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..shared import host_programs
from ..tools.process_groups import COMMANDS, kill_tree

if TYPE_CHECKING:
    from ..sandbox.launch import Launch

OUTPUT_CHARS = 10_000
READ_CHUNK = 65536
EXIT_GRACE_SECONDS = 0.5
"""How long output may keep flowing from background children after the shell exits."""


@dataclass
class Ran:
    """How one hook's process ended."""

    exit_code: int | None = None
    """Its exit status (128+N after signal N); None: it did not finish by itself."""
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False
    not_started: str | None = None
    """Why it could not start (no shell, no sandbox)."""
    duration_ms: int = 0
    sandboxed: bool | None = None
    cut: bool = False
    """It printed more than was kept."""

    @property
    def output(self) -> str:
        """stdout then stderr, their first OUTPUT_CHARS characters (and a line saying so
        when there was more)."""
        both = "\n".join(part for part in (self.stdout.rstrip("\n"), self.stderr) if part)
        if not self.cut and len(both) <= OUTPUT_CHARS:
            return both
        return f"{both[:OUTPUT_CHARS]}\n[… cut: the first {OUTPUT_CHARS:,} characters are kept]"


class Capped:
    """The first `limit` characters of a stream; the rest is read and counted, not kept."""

    def __init__(self, limit: int = OUTPUT_CHARS) -> None:
        self._limit = limit
        self._kept = bytearray()
        self.dropped = 0

    def feed(self, data: bytes) -> None:
        room = self._limit * 4 - len(self._kept)  # a character is at most 4 bytes
        if room > 0:
            self._kept += data[:room]
        self.dropped += max(len(data) - max(room, 0), 0)

    def text(self) -> str:
        """What was kept, at most `limit` characters (`cut` says whether there was more)."""
        text = self._kept.decode("utf-8", errors="replace")
        if len(text) > self._limit:
            self.dropped += 1
        return text[: self._limit]

    @property
    def cut(self) -> bool:
        return self.dropped > 0


def host_argv(command: str) -> list[str]:
    """The shell that runs a hook on the host, found outside every sandbox-writable folder."""
    shell = host_programs.find("bash") or host_programs.program("sh")
    return [shell, "-c", command]


async def run_command(
    argv: list[str],
    env: dict[str, str],
    root: Path,
    stdin: bytes,
    timeout: float,
    launch: Launch | None = None,
) -> Ran:
    """Run `argv` (a shell's, or the sandbox's launch of it) with `stdin`, within
    `timeout` seconds (not counting the time a network question waits for the user)."""
    started = time.monotonic()
    ran = Ran(sandboxed=launch is not None or None)
    try:
        proc = await COMMANDS.start(
            asyncio.create_subprocess_exec(
                *argv,
                cwd=root,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
                env=env,
                pass_fds=launch.pass_fds if launch is not None else (),
            )
        )
    except OSError as exc:
        if launch is not None:
            await launch.finished()
        ran.not_started = f"could not start: {exc}"
        return ran
    except BaseException:
        if launch is not None:
            await launch.finished()
        raise
    if launch is not None:
        launch.started()
    out, err = Capped(), Capped()
    finished = False
    try:
        if launch is not None:
            await launch.running()
        paused = launch.network.paused if launch is not None and launch.network else _never
        await _within(_talk(proc, stdin, out, err), timeout, paused)
        finished = True
    except asyncio.TimeoutError:
        ran.timed_out = True
    finally:
        if not finished:  # timed out or cancelled: nothing it started survives
            kill_tree(proc.pid)
            with contextlib.suppress(ProcessLookupError):
                await asyncio.shield(proc.wait())
        COMMANDS.finished(proc.pid)
        if launch is not None:
            await launch.finished()
        ran.duration_ms = round((time.monotonic() - started) * 1000)
    ran.stdout, ran.stderr = out.text(), err.text()
    ran.cut = out.cut or err.cut
    code = proc.returncode
    ran.exit_code = None if ran.timed_out or code is None else (128 - code if code < 0 else code)
    return ran


def _never() -> float:
    return 0.0


async def _talk(proc: asyncio.subprocess.Process, stdin: bytes, out: Capped, err: Capped) -> None:
    """Write its input, read both streams to their end, wait for it."""
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    readers = [
        asyncio.ensure_future(_pump(proc.stdout, out)),
        asyncio.ensure_future(_pump(proc.stderr, err)),
    ]
    try:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            proc.stdin.write(stdin)
            await proc.stdin.drain()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            proc.stdin.close()
        await proc.wait()
        _, pending = await asyncio.wait(readers, timeout=EXIT_GRACE_SECONDS)
        if pending:  # background children still hold the output: they go too
            kill_tree(proc.pid)
    finally:
        for reader in readers:
            reader.cancel()
        for reader in readers:
            with contextlib.suppress(asyncio.CancelledError):
                await reader


async def _pump(stream: asyncio.StreamReader, into: Capped) -> None:
    while chunk := await stream.read(READ_CHUNK):
        into.feed(chunk)


async def _within(
    work: Coroutine[Any, Any, None], timeout: float, paused: Callable[[], float]
) -> None:
    """`work` within `timeout` seconds plus the time it waited on the user; TimeoutError
    after that, with `work` cancelled."""
    task = asyncio.ensure_future(work)
    loop = asyncio.get_running_loop()
    start = loop.time()
    try:
        while True:
            remaining = start + timeout + paused() - loop.time()
            if remaining <= 0:
                raise asyncio.TimeoutError
            done, _ = await asyncio.wait({task}, timeout=remaining)
            if done:
                task.result()
                return
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

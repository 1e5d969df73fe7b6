"""bash: run a shell command in the workspace root, bounded in time and output.

Before it runs: refused kinds of commands are stopped (command_policy), the user's
approval is obtained (approvals), and files the agent edited in the editor are put on
disk so the command sees them. The command runs in its own process group so a timeout or
a cancelled run kills it and every child it started; the group is registered in
`process_groups.COMMANDS` while it runs, so that the program ending kills it too. Its
environment has secrets (the API key and variables that look like credentials) removed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
from typing import Any

from .approvals import Details
from .base import Tool, ToolContext, ToolError, ToolOutput
from .command_policy import judge
from .output_buffer import HeadTailBuffer
from .process_groups import COMMANDS, kill_group

OUTPUT_CAP = 50_000
READ_CHUNK = 65536
EXIT_GRACE_SECONDS = 0.5
"""How long output may keep flowing from background children after the shell exits."""

SECRET_NAME_PARTS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL")
QUIET_ENV = {"PAGER": "cat", "GIT_PAGER": "cat", "TERM": "dumb", "NO_COLOR": "1"}


def command_env(secrets: tuple[str, ...] = (), extra_names: tuple[str, ...] = ()) -> dict[str, str]:
    """The environment for agent commands: ours, minus anything that looks like a secret
    (by name, or because its value is one of `secrets`)."""
    parts = "|".join(re.escape(part) for part in (*SECRET_NAME_PARTS, *extra_names))
    secret_name = re.compile(parts, re.IGNORECASE)
    env = {
        name: value
        for name, value in os.environ.items()
        if not secret_name.search(name) and value not in secrets
    }
    env.update(QUIET_ENV)
    return env


async def bash(ctx: ToolContext, args: dict[str, Any]) -> ToolOutput:
    command: str = args["command"]
    if not command.strip():
        raise ToolError("command must not be empty")
    verdict = judge(command, ctx.root)
    if verdict.kind == "refuse":
        raise ToolError(f"refused: this command is never run because {verdict.reason}")
    must_ask = verdict.reason if verdict.kind == "ask" else None
    details = Details(command=command, destructive=verdict.destructive or None)
    await ctx.approvals.require(
        "bash", f"run `{command}`", must_ask_reason=must_ask, details=details
    )
    await ctx.documents.flush()
    timeout = ctx.settings.bash_timeout_seconds
    output = HeadTailBuffer(OUTPUT_CAP)
    proc = await COMMANDS.start(
        asyncio.create_subprocess_exec(
            "/bin/bash",
            "-c",
            command,
            cwd=ctx.root,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
            env=command_env(ctx.secrets, ctx.settings.secret_env_names),
        )
    )
    notes: list[str] = []
    finished = False
    try:
        await asyncio.wait_for(_collect(proc, output, notes), timeout)
        finished = True
    except asyncio.TimeoutError:
        return ToolOutput(
            f"{_render(output, notes)}\n[timed out after {timeout:g} s; the command and its "
            "child processes were killed]",
            is_error=True,
        )
    finally:
        try:
            if not finished:  # timeout or cancelled run: nothing the command started survives
                kill_group(proc.pid)
                with contextlib.suppress(ProcessLookupError):
                    await proc.wait()
        finally:
            COMMANDS.finished(proc.pid)
    return ToolOutput(
        f"{_render(output, notes)}\n[exit status {_status(proc.returncode)}]",
        exit_code=_exit_code(proc.returncode),
    )


async def _collect(
    proc: asyncio.subprocess.Process, output: HeadTailBuffer, notes: list[str]
) -> None:
    assert proc.stdout is not None
    reader = asyncio.create_task(_pump(proc.stdout, output))
    try:
        await proc.wait()
        try:
            await asyncio.wait_for(asyncio.shield(reader), EXIT_GRACE_SECONDS)
        except asyncio.TimeoutError:
            kill_group(proc.pid)
            notes.append("background processes still holding the output were stopped")
    finally:
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reader


async def _pump(stream: asyncio.StreamReader, output: HeadTailBuffer) -> None:
    while chunk := await stream.read(READ_CHUNK):
        output.feed_bytes(chunk)
    output.feed_bytes(b"", final=True)


def _render(output: HeadTailBuffer, notes: list[str]) -> str:
    text = output.render().rstrip("\n") or "(no output)"
    return text + "".join(f"\n[{note}]" for note in notes)


def _exit_code(returncode: int | None) -> int | None:
    """The status a shell would report: 128+N when signal N ended the command."""
    if returncode is None:
        return None
    return 128 - returncode if returncode < 0 else returncode


def _status(returncode: int | None) -> str:
    if returncode is None:
        return "unknown"
    if returncode < 0:
        return f"{returncode} (killed by signal {signal.Signals(-returncode).name})"
    return str(returncode)


BASH = Tool(
    name="bash",
    description=(
        "Run a shell command (bash -c) in the workspace root and return its combined "
        "stdout/stderr and exit status. Non-interactive: stdin is empty. Long output is cut "
        "in the middle. Commands that run longer than the configured timeout are killed, "
        "with all their child processes."
    ),
    input_schema={
        "type": "object",
        "properties": {"command": {"type": "string", "description": "The command to run."}},
        "required": ["command"],
        "additionalProperties": False,
    },
    handler=bash,
    summarize=lambda args: str(args.get("command", "")),
    kind="execute",
)

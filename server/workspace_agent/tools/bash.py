"""bash: run a shell command in the workspace root, bounded in time and output.

Before it runs: refused kinds of commands are stopped (command_policy), the user's
approval is obtained (approvals), and files the agent edited in the editor are put on
disk so the command sees them. The command runs in its own process group so a timeout or
a cancelled run kills it and every child it started; the group is registered in
`process_groups.COMMANDS` while it runs, so that the program ending kills it too. Its
environment has secrets (the API key and variables that look like credentials) removed.

Where the sandbox can start (sandbox/, setting `sandbox.mode`), the command runs inside
it: bwrap is then the process group's leader, started with that same scrubbed
environment, and everything in the jail dies with it. A sandboxed command that failed on
one of its walls gets a note saying which.

In plan mode (`ToolContext.read_only`) the sandbox has the whole workspace read-only;
asking to leave it or to write elsewhere is refused, and where it cannot start each
command is asked about, saying that plan mode would otherwise have kept it read-only.

`bash` reads as its steps: decide (guard, widening, sandbox), approve, flush the editor's
documents, launch (argv and environment), run (start it in its process group, wait for
it bounded in time, the time a network question waits for the user not counted, end the
group), answer. With `run_in_background` the same decision, approval and launch, then
the command is handed to the session manager's background commands (background.py),
which start it, answer with its first output and keep it running after the call.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..guard.approvals import Details
from ..guard.command_policy import judge
from .base import Tool, ToolContext, ToolError, ToolResult, first_line
from .output_buffer import COMMAND_OUTPUT_CAP, HeadTailBuffer
from .process_groups import COMMANDS, kill_tree, shell_status

if TYPE_CHECKING:
    from ..sandbox.backend import Confinement
    from ..sandbox.launch import Launch
    from ..sandbox.proxy import Verdict
    from ..sandbox.widen import Widening

OUTPUT_CAP = COMMAND_OUTPUT_CAP
READ_CHUNK = 65536
STATUS_OPEN = "[exit status "
"""How the result's last line starts: `[exit status 0]`, `[exit status -9 (killed by signal
SIGKILL)]`, `[exit status unknown]`; the status itself goes as data (ToolResult.exit_code)."""
SAVED_STATUS = re.compile(r"\[exit status (\d+)\]\s*$")
EXIT_GRACE_SECONDS = 0.5
"""How long output may keep flowing from background children after the shell exits."""

PLAN_NO_WIDENING = (
    "not run: you are in plan mode, where commands run in the sandbox with the whole "
    "workspace read-only; `unsandboxed_reason` and `writable_paths` are not available while "
    "planning. Put the step that needs them in the plan (the todo tool) instead"
)
PLAN_UNSANDBOXED = (
    "plan mode would have kept the workspace read-only in the sandbox, which cannot run this "
    "command, so it would run with full access and could change files"
)

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


@dataclass(frozen=True)
class Decision:
    """What was decided about a command before it runs."""

    sandboxed: bool
    must_ask: str | None
    """Why it is asked about even where commands are allowed (the guard, a widening)."""
    destructive: str | None
    confined: Confinement | None
    writable: tuple[Path, ...]
    granted: str | None = None
    """What a person allowed for this invocation up front (--allow-unsandboxed), said in
    the result."""


@dataclass
class Ran:
    """A command that ran: its output so far, the notes about it, how it ended."""

    output: HeadTailBuffer
    notes: list[str]
    returncode: int | None = None
    timed_out: bool = False


async def bash(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    command: str = args["command"]
    if not command.strip():
        raise ToolError("command must not be empty")
    background = bool(args.get("run_in_background"))
    if background:
        _room_for_background(ctx)
    decision = await _decide(ctx, command, args)
    await _approve(ctx, command, decision)
    await ctx.documents.flush()
    if background:  # the same decision and approval; then it outlives this call
        from .background_command import shell_argv

        assert ctx.background is not None
        output = ctx.background.reserve(ctx)
        argv = shell_argv(command)
        launch = await _launch(ctx, command, decision.sandboxed, decision.writable, argv)
        notes = _decision_notes(ctx, decision)
        return await ctx.background.start(ctx, output, launch, command, decision.sandboxed, notes)
    launch = await _launch(ctx, command, decision.sandboxed, decision.writable)
    ran = await _run(ctx, launch)
    return _answer(ctx, decision, launch, ran)


def _room_for_background(ctx: ToolContext) -> None:
    """ToolError before anything is asked: no background commands here, plan mode, or the
    session runs as many as it may."""
    if ctx.background is None:
        raise ToolError("run_in_background is not available here; run the command without it")
    if ctx.read_only:
        raise ToolError(
            "not run: plan mode does not start background commands; put the step in the plan"
        )
    ctx.background.check_room(ctx.session_id)


async def _decide(ctx: ToolContext, command: str, args: dict[str, Any]) -> Decision:
    """The guard's verdict, what the input asks beyond the sandbox, and the sandbox's own
    decision; ToolError for a command that is never run."""
    verdict = judge(command, ctx.root)
    if verdict.kind == "refuse":
        raise ToolError(f"refused: this command is never run because {verdict.reason}")
    must_ask = verdict.reason if verdict.kind == "ask" else None
    if ctx.read_only and (args.get("unsandboxed_reason") or args.get("writable_paths")):
        raise ToolError(PLAN_NO_WIDENING)
    widen = _widening(ctx, args)
    granted = widen is not None and ctx.approvals.may_widen()  # refused under --yes
    confined = await _confinement(ctx, bool(widen and widen.leave))
    if confined is not None and confined.refusal:
        raise ToolError(confined.refusal)
    sandboxed = confined is not None and confined.sandboxed
    if confined is not None and confined.reason and not granted:
        ctx.approvals.check_unconfined(confined.reason)  # --yes stays in the sandbox
    wider = widen.question(sandboxed) if widen and not granted else None
    if wider:  # always asked, never covered by an earlier "allow for this session"
        must_ask = f"{wider}; and {must_ask}" if must_ask else wider
    if ctx.read_only and not sandboxed:  # each command, whatever was allowed before
        must_ask = f"{PLAN_UNSANDBOXED}; and {must_ask}" if must_ask else PLAN_UNSANDBOXED
    writable = widen.writable if widen else ()
    said = widen.granted(sandboxed) if widen and granted else None
    return Decision(sandboxed, must_ask, verdict.destructive or None, confined, writable, said)


async def _approve(ctx: ToolContext, command: str, decision: Decision) -> None:
    await ctx.approvals.require(
        "bash",
        f"run `{command}`",
        must_ask_reason=decision.must_ask,
        details=Details(command=command, destructive=decision.destructive),
        # The sandbox keeps a command inside the workspace, not the workspace safe from
        # it: a command that destroys work there (git clean -fdx takes ignored files the
        # checkpoints do not keep) is still asked about, with Deny as the default.
        sandboxed=decision.sandboxed and not decision.destructive,
    )


async def _run(ctx: ToolContext, launch: Launch) -> Ran:
    """The command in its own process group, bounded in time; whatever happens (a
    timeout, a cancelled run), nothing it started survives it."""
    proc = await _start(ctx, launch)
    ran = Ran(HeadTailBuffer(OUTPUT_CAP), [])
    finished = False
    try:
        await launch.running()
        paused = launch.network.paused if launch.network else (lambda: 0.0)
        await _bounded(
            _collect(proc, ran.output, ran.notes), ctx.settings.bash_timeout_seconds, paused
        )
        finished = True
    except asyncio.TimeoutError:
        ran.timed_out = True
    finally:
        await _end(proc, launch, finished)
    ran.notes += launch.notes()
    ran.returncode = proc.returncode
    return ran


async def _start(ctx: ToolContext, launch: Launch) -> asyncio.subprocess.Process:
    """The process, leader of a new process group registered in `COMMANDS` (so the
    program ending kills it too); the launch is told it started, or cleaned up if not."""
    try:
        proc = await COMMANDS.start(
            asyncio.create_subprocess_exec(
                *launch.argv,
                cwd=ctx.root,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                start_new_session=True,
                env=launch.env,
                pass_fds=launch.pass_fds,
            )
        )
    except BaseException:
        await launch.finished()
        raise
    launch.started()
    return proc


async def _end(proc: asyncio.subprocess.Process, launch: Launch, finished: bool) -> None:
    """After the command: a group that did not finish by itself (timeout, cancelled run)
    is killed and waited for; then it leaves `COMMANDS` and the launch is cleaned up."""
    try:
        if not finished:  # nothing the command started survives
            kill_tree(proc.pid)
            with contextlib.suppress(ProcessLookupError):
                await proc.wait()
    finally:
        COMMANDS.finished(proc.pid)
        await launch.finished()


async def _bounded(work: Awaitable[None], timeout: float, paused: Callable[[], float]) -> None:
    """`work` within `timeout` seconds, not counting the time it waits on the user (a
    network question): TimeoutError after that, with `work` cancelled."""
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
                return task.result()
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


def _answer(ctx: ToolContext, decision: Decision, launch: Launch, ran: Ran) -> ToolResult:
    """What the model gets: the output, the notes, which wall a failure hit, the status."""
    network = tuple(launch.network.facts()) if launch.network else ()
    if ran.timed_out:
        timeout = ctx.settings.bash_timeout_seconds
        return ToolResult(
            f"{_render(ran.output, ran.notes)}\n[timed out after {timeout:g} s; the command "
            "and its child processes were killed]",
            is_error=True,
            sandboxed=decision.sandboxed,
            network=network,
        )
    ran.notes += _decision_notes(ctx, decision)
    text = _render(ran.output, ran.notes)
    blocked: list[dict[str, str]] = []
    if decision.sandboxed and ran.returncode != 0 and launch.policy is not None:
        from ..sandbox.blocked import describe, found_walls

        found = found_walls(text, launch.policy)
        if found:
            text += "\n" + describe([wall.clause for wall in found], ctx.read_only)
        blocked = [wall.to_wire() for wall in found]
        blocked += _refused_hosts(network, blocked)
    return ToolResult(
        f"{text}\n{STATUS_OPEN}{_status(ran.returncode)}]",
        exit_code=shell_status(ran.returncode),
        sandboxed=decision.sandboxed,
        network=network,
        blocked=tuple(blocked),
    )


def _decision_notes(ctx: ToolContext, decision: Decision) -> list[str]:
    """What the result says of how the command was let run: what a person allowed up
    front, and (once a session) why it ran outside the sandbox."""
    notes = [decision.granted] if decision.granted else []
    confined = decision.confined
    if confined is not None and confined.reason:
        from ..sandbox.launch import tell_once

        if tell_once(ctx.session_id):
            notes.append(f"ran outside the sandbox: {confined.reason}")
    return notes


def _refused_hosts(
    network: tuple[dict[str, Any], ...], blocked: list[dict[str, str]]
) -> list[dict[str, str]]:
    """The hosts of a failed command that were not let through (the user's Deny, no answer),
    as walls of the sandbox for its card, unless the output already named them."""
    named = {wall.get("target") for wall in blocked if wall["kind"] == "network"}
    refused = []
    for fact in network:
        host = str(fact.get("host", ""))
        if host and not fact.get("allowed") and host not in named:
            named.add(host)
            wall = {"kind": "network", "target": host}
            if fact.get("refused") != "metadata":  # no button opens a metadata address
                wall["setting"] = "sandbox.allowedDomains"
            refused.append(wall)
    if refused:  # the anonymous "network access" says the same
        blocked[:] = [wall for wall in blocked if wall["kind"] != "network" or wall.get("target")]
    return refused


def _widening(ctx: ToolContext, args: dict[str, Any]) -> Widening | None:
    """What the input asks beyond the sandbox (None: nothing; sandbox/widen.py)."""
    if not args.get("unsandboxed_reason") and not args.get("writable_paths"):
        return None
    from ..sandbox.widen import widening

    found = widening(args, ctx.root, ctx.settings.sandbox_mode)
    return found if found.leave or found.writable else None


async def _confinement(ctx: ToolContext, leave: bool) -> Confinement | None:
    """The sandbox's decision for this command (None when `sandbox.mode` is off or the
    command leaves it: nothing of the sandbox is even imported then)."""
    if ctx.settings.sandbox_mode == "off" or leave:
        return None
    from ..sandbox.backend import confinement

    return await confinement(ctx.settings.sandbox_mode, ctx.root)


async def _launch(
    ctx: ToolContext,
    command: str,
    sandboxed: bool,
    writable: tuple[Path, ...],
    shell: list[str] | None = None,
) -> Launch:
    """The argv and environment `command` starts with (`shell`: what runs it, bash -c
    COMMAND unless said), in the sandbox when `sandboxed`."""
    from ..sandbox.launch import Launch

    env = command_env(ctx.secrets, ctx.settings.secret_env_names)
    shell = shell or ["/bin/bash", "-c", command]
    if not sandboxed:
        return Launch(shell, env)
    from ..sandbox.backend import LaunchRequest, backend

    call = ctx.approvals.call  # the proxy asks from tasks of its own

    async def decide(host: str) -> Verdict:
        return await ctx.approvals.ask_host(host, command, call)

    request = LaunchRequest(
        ctx.root,
        ctx.session_id,
        shell,
        env,
        ctx.settings.sandbox_masked_paths,
        ctx.settings.sandbox_allowed_domains,
        decide,
        (*writable, *_setting_folders(ctx)),
        ctx.settings.sandbox_real_caches,
        ctx.read_only,
    )
    return await backend().launch(request)


def _setting_folders(ctx: ToolContext) -> tuple[Path, ...]:
    """The folders the user's sandbox.writablePaths lets every sandboxed command write."""
    from ..sandbox.policy import setting_folders

    return setting_folders(ctx.settings.sandbox_writable_paths, os.path.expanduser("~"))


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
            kill_tree(proc.pid)
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


def exit_status_in(output: str) -> int | None:
    """The exit status the result's last line gives (None: none, or a signal's), read back
    from the text; only for sessions saved with nothing else (Tool.exit_status_in)."""
    found = SAVED_STATUS.search(output)
    return int(found.group(1)) if found else None


def gist(output: str) -> str:
    """A command's result in one line: its status line and the output's last line before
    it ("exit status 1 · FAILED test_app.py"), else the first line (notes came after)."""
    lines = [line for line in output.strip().splitlines() if line.strip()] or [""]
    if len(lines) > 1 and lines[-1].startswith(STATUS_OPEN):
        return f"{lines[-1].strip('[]')} · {lines[-2].strip()[:140]}"
    return first_line(output)


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
        "with all their child processes. Where the system allows, commands run in a sandbox "
        "that writes only the workspace and /tmp; its network goes through a proxy that asks "
        "the user about each host by itself when the command connects (HTTP(S)_PROXY and "
        "ALL_PROXY are set; programs that ignore them, like ssh, have no network)."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "The command to run."},
            "unsandboxed_reason": {
                "type": "string",
                "description": "Only after the sandbox blocked a command that must do what "
                "it blocks: why it must run outside the sandbox (the user is asked).",
            },
            "writable_paths": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Only after the sandbox blocked a write that must happen: "
                "folders outside the workspace the command may also write (the user is asked).",
            },
            "run_in_background": {
                "type": "boolean",
                "description": "For a command that keeps running (a dev server, a watcher, "
                "tests in watch mode): start it and return at once with its id (first line "
                "`id: ID`), its first output and the ports it listens on (which the user can "
                "open). Read its new output with bash_output, stop it with bash_stop; it is "
                "never killed at the timeout. At most 8 at once.",
            },
        },
        "required": ["command"],
        "additionalProperties": False,
    },
    handler=bash,
    summarize=lambda args: str(args.get("command", "")),
    kind="execute",
    plan_safe=True,  # in plan mode, in the sandbox with the workspace read-only (_decide)
    reach="workspace",
    command_of=lambda args: str(args.get("command", "")),
    result_gist=gist,
    exit_status_in=exit_status_in,
    aliases=("Bash",),
)

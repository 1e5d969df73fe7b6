"""`workspace-agent run TASK --workspace DIR`: one task, headless, same core as the server.

Ctrl-C cancels the run cleanly (the running command is killed, the run ends as
"cancelled"); a second Ctrl-C exits at once. Background commands the run started
(`run_in_background`) are stopped when it ends, in one line that names them. SIGTERM and
SIGHUP (the terminal closed) kill the running command at once, then cancel the run the
same way (the session is saved) and exit with 128 + the signal's number.

A run stopped at a limit (the turn limit, the token budget) ends with the command that
goes on where it stopped: the same session, a follow-up prompt with turns and a budget of
its own (`continue_hint`).

The process leaves with os._exit once the run is over (`leave`): the session was saved
and synced after every turn, the checkpoint store's journal and objects are on disk
(`Checkpoints.shutdown`), and tearing the interpreter down took another 30-40 ms.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shlex
import signal
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from ..agent.front_end import (
    NO_OPTIONS,
    StartOptions,
    limit_reason,
    mcp_runtime,
    sandbox_notice,
    session_manager,
    stopped_at_the_end,
)
from ..agent.sessions import SessionError, SessionManager
from ..config import AgentSettings
from ..conversation.recorder import recording
from ..guard.approvals import Asker
from ..protocol import PromptImage, RunMode, RunRequest
from ..tools.process_groups import COMMANDS
from .asker import AllowEverything, NoTerminal, TerminalAsker, read_line
from .terminal import TerminalRenderer

if TYPE_CHECKING:
    pass

EXIT_CODES = {
    "end_turn": 0,
    "stop_sequence": 0,
    "error": 1,
    "max_turns": 3,
    "budget": 4,
    "refusal": 5,
    "planReady": 0,
    "cancelled": 130,
}


async def run_task(
    root: Path,
    task: str,
    overrides: dict[str, Any],
    options: StartOptions = NO_OPTIONS,
    session_id: str | None = None,
    mcp_names: tuple[str, ...] = (),
    show_thinking: bool = True,
    plan: bool = False,
    images: tuple[PromptImage, ...] = (),
) -> int:
    """Run `task` in the (already resolved) workspace `root`; return the exit status.
    Approval questions are asked on the terminal; `options.yes` (--yes) allows commands
    and file changes, those the guard asks about included, but neither the network nor a
    way out of the sandbox (agent/front_end.py); without a terminal and without --yes,
    what needs a question is refused.
    `mcp_names` (--mcp) are the workspace's MCP servers to start for this run;
    `show_thinking` False (--no-thinking) leaves the model's thinking off the terminal;
    `plan` (--plan): in plan mode, the plan then asked about (cli/plan.py);
    `images` (--image) go to the model with the task."""
    renderer = TerminalRenderer(show_thinking=show_thinking)
    asker: Asker = (
        AllowEverything()
        if options.yes
        else TerminalAsker()
        if sys.stdin.isatty()
        else NoTerminal()
    )
    mcp = mcp_runtime(root, named=mcp_names)
    settings_of = options.settings(overrides)
    agent = session_manager(
        recording(renderer, lambda: root),
        root,
        settings_of,
        asker=asker,
        grants=options.grants,
        observers=[mcp.observer] if mcp else [],
        session_tools=(lambda _session: mcp.tools()) if mcp else None,
    )
    try:
        settings = settings_of(root)
        problem = _pick_problem(settings, overrides)
        if problem:
            print(f"workspace-agent: {problem}")
            return 2
        mode: RunMode = "plan" if plan else "act"
        again = [*_again(options), *(f"--mcp={name}" for name in mcp_names)]
        if overrides.get("maxTurns") is not None:
            again.append(f"--max-turns={overrides['maxTurns']}")
        return await _run(
            agent,
            RunRequest(task, session_id, mode=mode, images=images),
            settings,
            root,
            again,
            options,
        )
    finally:
        if mcp is not None:
            await mcp.shutdown()  # no server process outlives the run


def _again(options: StartOptions) -> list[str]:
    """The grant options a follow-up run needs too."""
    return [
        *(["--yes"] if options.yes else []),
        *(f"--allow-host={host}" for host in options.allow_hosts),
        *(["--allow-unsandboxed"] if options.allow_unsandboxed else []),
    ]


def _pick_problem(settings: AgentSettings, overrides: dict[str, Any]) -> str | None:
    """Why --model / --thinking cannot run together (a level the model does not take)."""
    from ..agent import model_picks
    from ..protocol import ModelPick

    model, level = overrides.get("model"), overrides.get("thinking")
    if model is not None and not str(model).strip():
        return "--model needs a model id, such as claude-sonnet-4-5"
    pick = ModelPick(settings.model, level) if level is not None else ModelPick()
    problem = model_picks.problem(settings, pick)
    return f"--thinking {level}: {problem}" if problem else None


async def _run(
    agent: SessionManager,
    params: RunRequest,
    settings: AgentSettings,
    root: Path,
    again: list[str] | None = None,
    options: StartOptions = NO_OPTIONS,
) -> int:
    session_id = params.session_id
    try:
        session = agent.get(session_id) if session_id else agent.new_session()
    except SessionError as exc:
        print(f"workspace-agent: {exc}")
        return 2
    print(f"session {session.id}", flush=True)
    from ..sandbox.status import sandbox_status

    sandbox = await sandbox_status(settings.sandbox_mode, root)
    print(sandbox_notice(sandbox, options), flush=True)
    loop = asyncio.get_running_loop()
    interrupted = False
    terminated_by: signal.Signals | None = None

    def on_interrupt(_sig: signal.Signals) -> None:
        nonlocal interrupted
        if interrupted:
            COMMANDS.kill_all()
            raise SystemExit(130)
        interrupted = True
        agent.cancel(session.id)

    def on_terminate(sig: signal.Signals) -> None:
        nonlocal terminated_by
        COMMANDS.kill_all()
        if terminated_by is not None:
            raise SystemExit(128 + sig)
        terminated_by = sig
        agent.cancel(session.id)

    handlers = {
        signal.SIGINT: on_interrupt,
        signal.SIGTERM: on_terminate,
        signal.SIGHUP: on_terminate,
    }
    # A signal ignored when we started stays ignored: `nohup workspace-agent run ...` means it.
    handled = [sig for sig in handlers if signal.getsignal(sig) != signal.SIG_IGN]
    for sig in handled:
        loop.add_signal_handler(sig, handlers[sig], sig)
    try:
        try:
            result = await agent.run(replace(params, session_id=session.id))
        except SessionError as exc:  # refused before it ran: an @-mention, an unknown
            # /command, a command file that cannot be used
            print(f"workspace-agent: {exc}")
            return 2
        if result.stop_reason == "planReady":
            from .plan import shape_plan

            try:
                result = await shape_plan(result, agent.approve_plan, read_line) or result
            except SessionError as exc:
                print(f"workspace-agent: {exc}")
                return 2
        # A background command lives as long as its run here: stopped, and said so.
        from ..tools.background import STOPPED_AT_RUN_END

        said = stopped_at_the_end(await agent.stop_background(session.id, STOPPED_AT_RUN_END))
        if said:
            print(said, flush=True)
        await agent.stop_language_servers()  # no language server outlives the run
        # The checkpoint store's upkeep after the run, before exiting.
        await agent.checkpoint_service.shutdown()
    finally:
        for sig in handled:
            loop.remove_signal_handler(sig)
    if terminated_by is not None:
        return 128 + terminated_by
    hint = continue_hint(result.stop_reason, settings.max_turns, root, session.id, again or [])
    if hint is not None:
        print(hint, flush=True)
    return EXIT_CODES[result.stop_reason]


def continue_hint(
    stop: str, max_turns: int, root: Path, session_id: str, again: list[str]
) -> str | None:
    """How to go on after a run a limit stopped: the command, for the same session (None
    after any other end). `again`: the options of this run that the next one needs too."""
    limit = limit_reason(stop, max_turns, "--max-turns or maxTurns", "maxRunTokens")
    if limit is None:
        return None
    why, more = limit
    command = shlex.join(
        ["workspace-agent", "run", "--workspace", str(root), "--session", session_id, *again]
    )
    return f"{why} To go on where it stopped ({more}):\n  {command} continue"


def leave(status: int) -> NoReturn:
    """Exit now, without the interpreter's teardown: the output flushed, no command left."""
    COMMANDS.kill_all()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass  # a closed pipe: nothing more can reach it anyway
    logging.shutdown()
    os._exit(status)

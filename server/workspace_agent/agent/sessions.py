"""The agent service every front end holds: the session cache (session_cache.py) with the
runs on top, and each session's checkpoints handed out for front ends to use directly
(`checkpoints(session_id)`, checkpoints/requests.py). This is where a run is composed:
its tool context, approvals, instructions, observers and model.

A run is an asyncio Task owned by its session, so it can be cancelled by session id (the
workspaceAgent.cancel command, Ctrl-C) as well as by cancelling the caller
($/cancelRequest). Either way the run ends with stopReason "cancelled", the bash command
it was running is killed, and the conversation stays valid for the next prompt.

A run in plan mode (plan_mode.py) gets that module's tools, prompt and stop reason; an
approved plan (`approve_plan`) becomes the next run's todo list and first message.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import protocol as p
from ..checkpoints.requests import SessionCheckpoints
from ..checkpoints.service import Checkpoints
from ..config import AgentSettings, user_config_dir
from ..guard.approvals import NO_GRANTS, Approvals, Asker, Grants
from ..instructions import load_instructions, nested_instructions
from ..protocol import (
    ApprovePlanParams,
    ItemCheckParams,
    ModelPick,
    PlanItem,
    RunContext,
    RunMode,
    RunRequest,
    RunResult,
    StopCause,
    StopReason,
)
from ..shared import host_programs
from ..shared.documents import DiskOnly, Documents
from ..shared.events import AgentListener, SessionEvents
from ..shared.observers import (
    ObserverFactory,
    RunObserver,
    RunScope,
    notify_all,
    opening_of,
    tell_all,
)
from ..shared.session import Session
from ..tools import BACKGROUND_TOOLS, TOOLS, Tool, ToolContext
from ..tools.background import STOPPED_BY_CLEAR, BackgroundCommands
from ..tools.live import LiveTools
from . import model_picks, plan_mode, providers, saved_prompts
from .code_intel_offer import CodeIntelOffer
from .editor_context import attached_field, render_context
from .errors import SessionError
from .loop import REDACTED, RunState, run_turns
from .mentions import Problems
from .model import ModelError, ModelFactory, cached_anthropic_models
from .pricing import run_cost
from .prompt import system_prompt
from .prompt_parts import PromptParts, prepare
from .run_extras import run_extras
from .session_cache import SessionCache

if TYPE_CHECKING:
    from .. import contract
    from ..hooks.service import HookService
    from ..shared.code_intel import CodeIntel

log = logging.getLogger(__name__)
NO_PICK = ModelPick()

NO_WORKSPACE = "No workspace folder is open: open a folder for the agent to work in."
MISSING_KEY = providers.MISSING_KEY


class SessionManager(SessionCache):
    """Sessions (the cache it is), their runs, and their checkpoints."""

    def __init__(
        self,
        listener: AgentListener,
        *,
        root: Callable[[], Path | None],
        settings: Callable[[Path], AgentSettings],
        tools: Mapping[str, Tool] | None = None,
        session_tools: Callable[[str], Mapping[str, Tool]] | None = None,
        model_factory: ModelFactory | None = None,
        documents: Documents | None = None,
        asker: Asker | None = None,
        observers: Sequence[ObserverFactory] = (),
        problems: Problems | None = None,
        grants: Grants = NO_GRANTS,
        unavailable: Mapping[str, str] | None = None,
        editor_intel: Callable[[], CodeIntel | None] | None = None,
    ) -> None:
        """`grants`: what a person allowed this process up front (--yes and its kin).
        `unavailable`: built-in commands this front end cannot do (by name), with what to
        do instead: refused, and left out of the command list. `editor_intel`: the
        editor's code intelligence, when the client answers it (None: it does not)."""
        super().__init__(root)
        self.code_intel = CodeIntelOffer(editor_intel)
        """Who answers code_intel and rename_symbol in its runs, if anyone."""
        self._grants = grants
        self._unavailable = dict(unavailable or {})
        self._listener = listener
        self._settings = settings
        self._tools = TOOLS if tools is None else tools
        self._session_tools = session_tools
        """Tools beyond the fixed ones, by session id, looked up on every turn (MCP)."""
        self._model_factory = model_factory or cached_anthropic_models()
        self._documents = documents or DiskOnly()
        self._asker = asker
        self._problems = problems
        """The workspace's problems as the editor reports them (`@problems`), if it can."""
        self.checkpoint_service = Checkpoints()
        """Checkpoints are the first observer of every run: the others read the files it
        finds changed (CallReport.changes)."""
        self.background = BackgroundCommands(root, listener)
        """The sessions' background commands (bash's `run_in_background`): front ends list,
        read and stop them here directly, as they ask the checkpoints."""
        self._hook_service: HookService | None = None
        """The user's hooks (hooks/), made at the first run that finds one configured."""
        self._observer_factories: tuple[ObserverFactory, ...] = (
            self.checkpoint_service.observer,
            *observers,
            self._hooks,
            nested_instructions,
        )

    def session_for(self, params: RunRequest) -> Session:
        """The session a run goes to: the named one (which must be idle) or a new one."""
        if params.session_id is None:
            return self.new_session()
        session = self.get(params.session_id)
        if session.busy:
            raise SessionError(
                f"session {session.id} is busy with another run; cancel it or wait for it to finish"
            )
        return session

    def check_pick(self, pick: ModelPick) -> None:
        """SessionError, saying what to choose, for a picked level the model does not take."""
        root = self._root()
        if root is not None and pick != NO_PICK:
            problem = model_picks.problem(self._settings(root), pick)
            if problem:
                raise SessionError(problem)

    def models(self, extra: str | None = None, pick: ModelPick = NO_PICK) -> contract.ModelsResult:
        """The models to pick from, and the model and level runs take: the workspace's
        settings', or with `pick` the picked ones."""
        root = self._root()
        settings = self._settings(root) if root else AgentSettings()
        return model_picks.models(model_picks.with_pick(settings, pick), extra)

    def cancel(self, session_id: str, cause: StopCause = "user") -> bool:
        """Stop the session's run; False when nothing was running. `cause` is what its
        runEnd says cut it short (the first one given, when it is cancelled twice)."""
        session = self.in_memory(session_id)
        if session is None:  # not in memory, so not running
            if not self.known(session_id):
                raise SessionError(f"there is no session {session_id!r}")
            return False
        if not session.busy:
            return False
        assert session.task is not None
        if session.stop_cause is None:
            session.stop_cause = cause
        session.task.cancel()
        return True

    async def cut_off(self, cause: StopCause, timeout: float = 5.0) -> None:
        """The server is ending: cancel every run still going (with `cause`, unless the
        client gave one already) and wait, at most `timeout` seconds, for each to record
        its end, so the conversation says why it stopped rather than nothing."""
        running = self.running()
        for session in running:
            self.cancel(session.id, cause)
        tasks = [session.task for session in running if session.task is not None]
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)

    def plan_session(self, params: ApprovePlanParams) -> Session:
        """The session a plan is approved in; SessionError (saying what to do) when it is
        unknown, busy, or the plan cannot be approved as it is."""
        if not self.known(params.session_id):
            raise SessionError(plan_mode.NO_SESSION.format(params.session_id))
        session = self.get(params.session_id)
        if session.busy:
            raise SessionError(plan_mode.BUSY.format(session.id))
        problem = plan_mode.check_plan(params.items)
        if problem:
            raise SessionError(problem)
        return session

    async def approve_plan(self, params: ApprovePlanParams) -> RunResult:
        """Run the plan as the user left it (`run`, act mode), or have it revised (`revise`,
        plan mode, the result's planDiff against it). The session's todo list is set to it
        first, so the run starts from the user's plan with its ids."""
        session = self.plan_session(params)
        message = plan_mode.approval_message(params, session.todos.items)
        session.todos.replace(plan_mode.approved_todos(params.items))
        pick = params.pick
        said = plan_mode.approval_said(params)
        if params.action == "run":
            act = RunRequest(message, session.id, mode="act", pick=pick)
            return await self.run(act, user=False, said=said)
        plan = RunRequest(message, session.id, mode="plan", pick=pick)
        return await self.run(plan, revising=params.items, user=False, said=said)

    async def run(
        self,
        params: RunRequest,
        revising: Sequence[PlanItem] = (),
        user: bool = True,
        said: str | None = None,
    ) -> RunResult:
        """`revising`: the plan a plan-mode run revises (its result's planDiff is against it).
        `user`: the prompt is the user's (a /command, its @-mentions), not a plan's message;
        `said`: then what the user did, for their card (runStart `said`).
        SessionError (PromptRefused among them) when it cannot be sent: an unknown /command,
        a command file that cannot be used, mentions or images that cannot be sent."""
        self.check_pick(params.pick)
        command = self.slash_command(params.prompt) if user else None
        if command is not None and command.built_in and command.name != "plan":
            from .built_ins import run_built_in

            return await run_built_in(self, self.session_for(params), command)
        text = params.prompt
        if user:
            text = command.text if command else saved_prompts.unescape(params.prompt)
        mode, prompt = plan_mode.requested_mode(text, params.mode)
        parts = await self._prompt_parts(prompt, params) if user else PromptParts(said=said)
        session = self.session_for(params)
        task = asyncio.create_task(
            self._run(session, prompt, params.context, mode, revising, parts, params.pick)
        )
        session.task = task
        try:
            return await task
        except asyncio.CancelledError:
            if not task.cancelled():
                raise
            # Cancelled before the run's first step: nothing ran, nothing to clean up.
            return self._result(session, "cancelled", RunState())
        finally:
            session.task = None
            self.keep(session)

    def set_item_check(self, params: ItemCheckParams) -> Session:
        """Give a plan item its own check (a command run when it is marked completed, as
        the user's hooks run: hooks/), or take it away; the plan is saved and sent.
        SessionError when the session is unknown or busy, or has no such item."""
        session = self.get(params.session_id)
        if session.busy:
            raise SessionError(
                f"session {session.id} is running: add the check once the run has ended"
            )
        if not session.todos.with_check_command(params.todo_id, params.command):
            ids = ", ".join(f"#{item.id}" for item in session.todos.items) or "none"
            raise SessionError(
                f"the plan of session {session.id} has no item #{params.todo_id} (its items: {ids})"
            )
        events = SessionEvents(self._listener, session.id)
        self.save(session, events, durable=True)
        events.todos(session.todos.items)
        return session

    def slash_command(self, prompt: str) -> saved_prompts.Invocation | None:
        """The command a prompt names (saved_prompts.py), None for an ordinary prompt;
        SessionError when there is no such command or its file cannot be used."""
        try:
            command = saved_prompts.resolve(prompt, self._root())
        except saved_prompts.CommandError as exc:
            raise SessionError(str(exc)) from None
        if command is not None and command.name == "plan" and not command.arguments:
            raise SessionError("/plan needs a task: /plan WHAT TO DO")
        if command is not None and command.built_in and command.name in self._unavailable:
            raise SessionError(self._unavailable[command.name])
        return command

    def list_commands(self) -> contract.CommandsResult:
        """workspaceAgent/commands: every slash command, and the files that cannot be used."""
        commands, problems = saved_prompts.list_commands(self._root())
        offered = [c for c in commands if c.path is not None or c.name not in self._unavailable]
        return {"commands": [c.to_wire() for c in offered], "problems": problems}

    @property
    def listener(self) -> AgentListener:
        return self._listener

    def settings_now(self) -> AgentSettings:
        """The settings a run starting now would get (the defaults without a workspace)."""
        root = self._root()
        return self._settings(root) if root else AgentSettings()

    async def _run(
        self,
        session: Session,
        prompt: str,
        context: RunContext | None = None,
        mode: RunMode = "act",
        revising: Sequence[PlanItem] = (),
        parts: PromptParts | None = None,
        pick: ModelPick = NO_PICK,
    ) -> RunResult:
        """A run as its steps: announce it, settle its settings, tell their notes, check
        that it can start, run the prompt's turns, then save and report how it ended (the
        error, if any, then runEnd)."""
        events = SessionEvents(self._listener, session.id)
        parts = parts or PromptParts()
        self._announce(session, events, prompt, context, mode, parts)
        root = self._root()
        settings = model_picks.with_pick(self._settings(root), pick) if root else None
        self._tell_notes(session, events, settings)
        state = RunState()
        stop: StopReason = "error"
        error = self._cannot_start(root, settings)
        if root is not None and settings is not None and error is None:
            stop, error = await self._prompted_turns(
                session, events, prompt, context, parts, root, settings, state, mode
            )
        session.restarted = None  # for this run's SessionStart hooks only, if any
        return self._finish(session, events, root, settings, state, stop, error, revising)

    @staticmethod
    def _announce(
        session: Session,
        events: SessionEvents,
        prompt: str,
        context: RunContext | None,
        mode: RunMode,
        parts: PromptParts,
    ) -> None:
        """runStart with what the prompt carries, then the plan (a client joining now
        starts from the right one)."""
        start: dict[str, Any] = {
            **attached_field(context),
            **plan_mode.start_field(mode),
            **parts.start_fields(),
        }
        session.stop_cause = None
        events.emit(p.EVENT_RUN_START, prompt=prompt, **start)
        events.todos(session.todos.items)

    @staticmethod
    def _tell_notes(
        session: Session, events: SessionEvents, settings: AgentSettings | None
    ) -> None:
        """What the settings and the session's loading have to say, once."""
        for note in [*(settings.notes if settings else ()), *session.load_notes]:
            events.emit(p.EVENT_NOTICE, message=note)
        session.load_notes.clear()

    @staticmethod
    def _cannot_start(root: Path | None, settings: AgentSettings | None) -> str | None:
        """Why the run cannot call the model (no workspace, no usable provider), or None."""
        if root is None or settings is None:
            return NO_WORKSPACE
        return providers.missing(settings)

    async def _prompted_turns(
        self,
        session: Session,
        events: SessionEvents,
        prompt: str,
        context: RunContext | None,
        parts: PromptParts,
        root: Path,
        settings: AgentSettings,
        state: RunState,
        mode: RunMode,
    ) -> tuple[StopReason, str | None]:
        """The prompt into the conversation (saved at once), then the model's turns; a run
        that failed before the model answered takes its prompt back."""
        block = render_context(context, settings.context_max_chars, parts.mentioned)
        mark = session.prompt_mark()
        session.add_prompt(prompt, block, parts.blocks())
        # Saved at once: a run cut short in its first turn (a window reload while its
        # first question waits) keeps its prompt, and the session can be resumed.
        self.save(session, events)
        steps = self.background.steps
        scope = RunScope(
            session,
            root,
            settings,
            events,
            self._documents,
            prompt,
            background=lambda: steps(session.id),
        )
        stop, error = await self._turns(scope, state, mode)
        if stop == "error":
            # Failed before the model answered: the prompt is not kept (the view shows
            # the failure with Retry; the model never sees the prompt twice).
            session.take_back(mark)
        if stop == "cancelled" and session.todos.in_progress is not None:
            session.todos.set_aside = True  # a new task's calls are not its step's
        return stop, error

    def _finish(
        self,
        session: Session,
        events: SessionEvents,
        root: Path | None,
        settings: AgentSettings | None,
        state: RunState,
        stop: StopReason,
        error: str | None,
        revising: Sequence[PlanItem],
    ) -> RunResult:
        """The error shown, the session saved for good, the result with its cost (and a
        revised plan's diff), and runEnd."""
        if error:
            events.emit(p.EVENT_ERROR, message=error)
        if root is not None and (session.messages or session.saved is not None):
            self.save(session, events, durable=True)
        cost = (
            run_cost(settings.model, state.usage, state.priced_apart, settings.provider)
            if settings
            else None
        )
        result = self._result(session, stop, state, error, cost)
        if stop == "planReady" and revising:
            result.plan_diff = plan_mode.plan_diff(revising, session.todos.items)
        ended: dict[str, Any] = {}
        if stop == "cancelled":
            ended["cause"] = session.stop_cause or "user"
        if stop == "max_turns" and settings is not None:
            ended["turnLimit"] = settings.max_turns  # the card states the limit it met
        session.stop_cause = None
        events.emit(
            p.EVENT_RUN_END, stopReason=stop, usage=state.usage.to_wire(), cost=cost, **ended
        )
        return result

    async def _prompt_parts(self, prompt: str, params: RunRequest) -> PromptParts:
        """The prompt's images and @-mentions, checked before anything runs."""
        root = self._root()
        if root is None:  # the run ends with NO_WORKSPACE
            return PromptParts()
        settings = self._settings(root)
        parts = await prepare(
            prompt, params, root, settings.context_max_chars, self._documents, self._problems
        )
        if settings.api_key:  # a mentioned .env, say: the key never reaches the model
            parts.mentioned = [line.replace(settings.api_key, REDACTED) for line in parts.mentioned]
        return parts

    async def _turns(
        self, scope: RunScope, state: RunState, mode: RunMode = "act"
    ) -> tuple[StopReason, str | None]:
        """The model's turns of a run that can start, between its observers' start and end:
        how it stopped, and the error to show (None when there is none)."""
        session, root, settings, events = scope.session, scope.root, scope.settings, scope.events
        protect_host_programs(root, settings)
        instructions = load_instructions(root, settings.instruction_files, user_config_dir())
        notice = instructions.notice()  # None: no instruction files
        if notice is not None:
            events.emit(p.EVENT_NOTICE, message=notice, instructions=instructions.to_wire())
        approvals = self._approvals(scope)
        scope = replace(scope, questions=approvals)  # observers may ask through it
        observers = self._observers(scope)
        approvals.on_status = _reporting(events, observers)
        planning = mode == "plan"
        extras = run_extras(scope, state, instructions.block(), self._model_factory)
        for line in extras.notices:
            events.emit(p.EVENT_NOTICE, message=line)
        tools = self._tools_of(session)
        intel = await self.code_intel.tools(scope, approvals)
        if intel:
            tools = LiveTools(tools, lambda: intel)
        tools = extras.tools(tools, planning)
        system = system_prompt(root, extras.prompt_tail)
        error: str | None = None
        stop: StopReason
        try:
            await notify_all(observers, "start_run")
            opening = await opening_of(observers)
            if opening.refused is not None:
                # Refused before the model saw it: the prompt is taken back (`_prompted_turns`).
                stop, error = "error", opening.refused
            else:
                for text in opening.context:  # with the prompt, for the model
                    session.add_note(text)
                stop = await run_turns(
                    session=session,
                    model=self._model_factory(settings),
                    tools=tools,
                    ctx=self._tool_context(
                        scope, observers, approvals, planning, extras.read_roots
                    ),
                    events=events,
                    system=plan_mode.system_prompt(system) if planning else system,
                    state=state,
                    on_turn=lambda: self.save(session, events),
                    news=lambda compacted: self.background.news(session.id, compacted),
                )
            if planning:
                stop = plan_mode.stop_reason(stop, session.todos.items)
        except asyncio.CancelledError:
            stop = "cancelled"
        except ModelError as exc:
            stop, error = "error", str(exc)
        except Exception as exc:  # a bug in a run must not take the server down
            log.exception("run failed in session %s", session.id)
            stop, error = "error", f"internal error: {type(exc).__name__}: {exc}"
        await notify_all(observers, "end_run", stop)
        return stop, error

    def _approvals(self, scope: RunScope) -> Approvals:
        """The run's approvals: asked through this manager's asker, with the session's
        standing allowances (its tools and its observers ask through them)."""
        session = scope.session
        return Approvals(
            scope.settings.approval_policy,
            self._asker,
            session.allowed_kinds,
            session_id=session.id,
            grants=self._grants,
        )

    def _tool_context(
        self,
        scope: RunScope,
        observers: tuple[RunObserver, ...],
        approvals: Approvals,
        read_only: bool = False,
        read_roots: tuple[Path, ...] = (),
    ) -> ToolContext:
        """What the tools of one run see: the workspace, the plan, the approvals;
        `read_only` in plan mode; `read_roots`, the user's skills' folders read_file may
        read."""
        return ToolContext(
            root=scope.root,
            settings=scope.settings,
            todos=scope.session.todos,
            approvals=approvals,
            documents=self._documents,
            observers=observers,
            session_id=scope.session.id,
            read_only=read_only,
            read_roots=read_roots,
            background=self.background,
        )

    async def before_compact(self, session: Session, events: SessionEvents) -> None:
        """/compact's PreCompact hooks (trigger `manual`), as a run's own compaction runs
        them (`auto`); nothing is imported or run when no hook is configured."""
        root = self._root()
        if root is None:
            return
        scope = RunScope(session, root, self._settings(root), events, self._documents, "/compact")
        scope = replace(scope, questions=self._approvals(scope))
        hooks = self._hooks(scope)
        if hooks is not None:  # as the run's seams call it: a failing hook is logged
            await notify_all((hooks,), "before_compact", "manual")

    def _hooks(self, scope: RunScope) -> RunObserver | None:
        """The run's hooks (hooks/), or None, with nothing more of them imported, when no
        hook is configured and no plan item has a check."""
        from ..hooks.sources import find_hooks

        found = find_hooks(scope.root, user_config_dir())
        if found.empty and not any(item.check_command for item in scope.session.todos.items):
            return None
        if self._hook_service is None:
            from ..hooks.service import HookService

            self._hook_service = HookService(user_config_dir())
        return self._hook_service.observer(scope, found)

    # -- checkpoints: what each plan item changed, and taking it back --------------------

    def checkpoints(self, session_id: str) -> SessionCheckpoints:
        """The session's checkpoints, for a front end to ask directly (changes, file
        versions, revert, undo; CheckpointError when one cannot be done)."""
        session = self.get(session_id)
        root = self._root()
        if root is None:
            raise SessionError(NO_WORKSPACE)
        events = SessionEvents(self._listener, session.id)
        return SessionCheckpoints(
            self.checkpoint_service,
            session,
            root,
            self._documents,
            max_bytes=lambda: self._settings(root).max_file_bytes,
            events=events,
            save=lambda: self.save(session, events, durable=True),
        )

    def _tools_of(self, session: Session) -> Mapping[str, Tool]:
        """The fixed tools, then those that come and go: bash_output and bash_stop once the
        session has a background command, the MCP servers' tools."""
        extra = self._session_tools
        background = self.background

        def more() -> Mapping[str, Tool]:
            tools = dict(BACKGROUND_TOOLS) if background.has_commands(session.id) else {}
            if extra is not None:
                tools.update(extra(session.id))
            return tools

        return LiveTools(self._tools, more)

    async def stop_language_servers(self) -> None:
        """Stop the language servers the agent started (the agent is ending)."""
        await self.code_intel.stop()

    async def stop_background(self, session_id: str, note: str = STOPPED_BY_CLEAR) -> list[str]:
        """Stop the session's background commands (its /clear, a headless run's end); the
        ids of those stopped."""
        return [c.id for c in await self.background.stop(session_id, note=note)]

    def _observers(self, scope: RunScope) -> tuple[RunObserver, ...]:
        built = (factory(scope) for factory in self._observer_factories)
        return tuple(observer for observer in built if observer is not None)

    @staticmethod
    def _result(
        session: Session,
        stop: StopReason,
        state: RunState,
        error: str | None = None,
        cost: contract.CostEstimate | None = None,
    ) -> RunResult:
        return RunResult(
            session_id=session.id,
            stop_reason=stop,
            text=state.text,
            todos=session.todos.items,
            usage=state.usage,
            error=error,
            cost=cost,
        )


def _reporting(events: SessionEvents, observers: tuple[RunObserver, ...]) -> Callable[..., None]:
    """How the run's approvals report a question: its approval event, and the observers
    told when the agent starts to wait for the user."""

    def report(**fields: Any) -> None:
        events.emit(p.EVENT_APPROVAL, **fields)
        if fields.get("status") == "waiting":
            tell_all(observers, "waiting", str(fields.get("message", "")))

    return report


def protect_host_programs(root: Path, settings: AgentSettings) -> None:
    """What this run's sandboxed commands may write (the workspace; the real package caches
    and the sandbox.writablePaths folders when the user allows them) is never where the
    agent looks for git or an MCP server's program (shared/host_programs.py), from before
    its first checkpoint or server start."""
    host_programs.protect(root)
    if settings.sandbox_mode == "off":
        return
    from ..sandbox.policy import real_cache_dirs, setting_folders

    home = os.path.expanduser("~")
    host_programs.protect(*setting_folders(settings.sandbox_writable_paths, home))
    if settings.sandbox_real_caches:
        host_programs.protect(*real_cache_dirs(home))

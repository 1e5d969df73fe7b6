"""The ACP agent: each request becomes a call on the agent core, each result an answer.

One ACP session is one core session in one workspace: its `cwd` (absolute, an existing
folder) is the workspace root every path of the session stays inside. Each session gets
its own SessionManager, so the approvals and file access it plugs in know which session
they ask the client about; the managers share one model client. A session is saved as
soon as `session/new` makes it, so a client may end this process and `session/load` the
id later, before any prompt. `session/list` without `cwd` lists the agent's own working
directory (clients start it in the project) and the folders of this connection's sessions.

Stop reasons: end_turn → end_turn, max_turns → max_turn_requests, budget (the token cap)
→ max_tokens, cancelled → cancelled; a run that ended in an error (no API key, the model
API failing) answers `session/prompt` with a JSON-RPC error carrying the message. At a
limit the agent's text ends with the way on (`continue_hint`): a follow-up prompt goes on
in the same session, with turns and a token budget of its own.

Modes (modes.py): a prompt runs in the session's mode. A plan-mode run that ends with a
plan (`planReady`) asks the user about it (plan_question.py) within the same prompt turn:
"Run this plan" switches the session to `ask` and runs it in act mode as
workspaceAgent/approvePlan `run` does, "Keep planning" has it revised in plan mode (and
asks again), a reject ends the turn with the plan kept.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp import PROTOCOL_VERSION, RequestError, update_agent_message_text
from acp.interfaces import Client
from acp.schema import (
    AgentCapabilities,
    ClientCapabilities,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    SessionCapabilities,
    SessionConfigOptionSelect,
    SessionInfo,
    SessionListCapabilities,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
    StopReason,
    UsageUpdate,
)

from .. import __version__
from .. import protocol as p
from ..agent.errors import SessionError
from ..agent.front_end import (
    NO_OPTIONS,
    StartOptions,
    limit_reason,
    plan_as_it_is,
    sandbox_notice,
    session_manager,
)
from ..agent.model import cached_anthropic_models
from ..agent.store import SessionStore
from ..conversation.recorder import recording
from ..protocol import ApprovePlanParams, PlanAction, RunRequest, RunResult
from ..shared.session import Session
from .asker import AcpAsker
from .commands import NOT_OVER_ACP, CommandList
from .diff_log import DiffLog
from .documents import AcpDocuments
from .edit_texts import EditTexts
from .mcp_servers import session_mcp
from .model_options import MODEL, THOUGHT_LEVEL, ModelOptions
from .modes import ASK, SessionModes
from .modes import CONFIG_ID as MODE_OPTION
from .plan_question import PlanQuestion
from .prompt import PromptError, read_prompt
from .replay import replay
from .updates import AcpUpdates, Post

if TYPE_CHECKING:
    from ..agent.sessions import SessionManager
    from ..mcp.runtime import McpRuntime

log = logging.getLogger(__name__)

STOP_REASONS: dict[str, StopReason] = {
    "end_turn": "end_turn",
    "stop_sequence": "end_turn",
    "cancelled": "cancelled",
    "max_turns": "max_turn_requests",
    "budget": "max_tokens",
    "refusal": "refusal",
}
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
RESOURCE_NOT_FOUND = -32002


def continue_hint(stop: str, max_turns: int) -> str | None:
    """What to do after a run that a limit stopped (None for any other end)."""
    limit = limit_reason(stop, max_turns)
    if limit is None:
        return None
    why, more = limit
    how = 'Send another prompt, such as "continue", to go on where it stopped'
    return f"{why} {how}: it gets {more}."


@dataclass
class AcpSession:
    id: str
    root: Path
    manager: SessionManager
    mcp: McpRuntime | None = None


class WorkspaceAgent:
    """Implements the agent side of ACP (acp.interfaces.Agent) over the agent core."""

    def __init__(self, post: Post, options: StartOptions = NO_OPTIONS) -> None:
        self.updates = AcpUpdates(post)
        self.models = ModelOptions()
        self.modes = SessionModes(self.updates, self._model_options)
        self._prompting: set[str] = set()
        """Sessions in a prompt turn (its runs, and the plan question between them)."""
        self._stopping: set[str] = set()
        """Sessions whose prompt turn was cancelled: no plan question is asked then."""
        self._plan_question: PlanQuestion | None = None
        self._options = options
        """--yes and its kin: what the person who started the agent allowed up front."""
        self._settings = options.settings()
        self._told_sandbox: set[str] = set()
        """Sessions told that the sandbox cannot start (once each)."""
        self._models = cached_anthropic_models()
        self._client: Client | None = None
        self._capabilities = ClientCapabilities()
        self._sessions: dict[str, AcpSession] = {}
        self._stores: dict[Path, SessionStore] = {}
        """One per workspace: a store remembers what it listed, to read only what changed."""
        self._listing = asyncio.Lock()
        self.commands = CommandList(self.updates.send)

    def on_connect(self, conn: Client) -> None:
        self._client = conn
        self._plan_question = PlanQuestion(conn, self.updates)

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        self._capabilities = client_capabilities or ClientCapabilities()
        if client_info is not None:
            log.info("client: %s %s", client_info.name, client_info.version)
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,  # the one version this agent speaks
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(
                    image=True, audio=False, embedded_context=True
                ),
                session_capabilities=SessionCapabilities(list=SessionListCapabilities()),
                mcp_capabilities=McpCapabilities(http=True, sse=False),
            ),
            agent_info=Implementation(
                name="workspace-agent", title="Workspace Agent", version=__version__
            ),
            auth_methods=[],
        )

    async def new_session(
        self,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[Any] | None = None,
        **kwargs: Any,
    ) -> NewSessionResponse:
        session = self._open(_workspace(cwd), None, mcp_servers)
        await asyncio.to_thread(self._save_new, session.root, session.manager.get(session.id))
        # After the answer, which tells the client the session's id.
        asyncio.get_running_loop().call_soon(self.commands.refresh, session.id, session.root)
        return NewSessionResponse(
            session_id=session.id,
            modes=self.modes.state(session.id),
            config_options=[*self.modes.all_options(session.id)],
        )

    async def load_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: list[Any] | None = None,
        additional_directories: list[str] | None = None,
        **kwargs: Any,
    ) -> LoadSessionResponse:
        root = _workspace(cwd)
        known = self._sessions.get(session_id)
        running = _core(known) if known is not None else None
        if running is not None and running.busy:
            raise RequestError(INVALID_PARAMS, f"session {session_id} is running a prompt")
        same = known is not None and known.root == root
        if known is not None and same:
            session = known
        else:
            if known is not None and known.mcp is not None:
                await known.mcp.shutdown()
            session = self._open(root, session_id, mcp_servers)
        core = session.manager.get(session_id)
        diffs = await asyncio.to_thread(DiffLog(root, session_id).read)
        for update in replay(core, root, diffs):
            self.updates.send(session_id, update)
        self.updates.remember_plan(session_id, core.todos.items)
        self._report_usage(session)
        self.commands.refresh(session_id, root)
        return LoadSessionResponse(
            modes=self.modes.state(session_id),
            config_options=[*self.modes.all_options(session_id)],
        )

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        if cwd:
            roots = [_workspace(cwd)]
        else:  # the agent's own folder (where the client started it), and this connection's
            roots = sorted({*_own_folder(), *(s.root for s in self._sessions.values())})
        found: list[SessionInfo] = []
        for root in roots:
            store = self._store(root)
            async with self._listing:  # a store lists one listing at a time
                stored, problems = await asyncio.to_thread(store.list)
            for problem in problems:
                log.warning("%s", problem)
            found += [
                SessionInfo(
                    session_id=s.session_id,
                    cwd=str(root),
                    title=s.title,
                    updated_at=s.to_wire(running=False)["updatedAt"],
                )
                for s in stored
            ]
        found.sort(key=lambda info: info.updated_at or "", reverse=True)
        return ListSessionsResponse(sessions=found)

    async def set_session_mode(
        self, session_id: str, mode_id: str, **kwargs: Any
    ) -> SetSessionModeResponse:
        self._session(session_id)
        self.modes.set(session_id, mode_id)
        return SetSessionModeResponse()

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: Any
    ) -> SetSessionConfigOptionResponse:
        session = self._session(session_id)
        if self.models.handles(config_id):
            offer = session.manager.models
            if self.models.set_option(session_id, config_id, value, lambda pick: offer(pick=pick)):
                self.modes.report_options(session_id)
        elif config_id == MODE_OPTION:
            self.modes.set_option(session_id, config_id, value)
        else:
            raise RequestError(
                INVALID_PARAMS,
                f"there is no config option {config_id!r}: the options are "
                f"{MODE_OPTION!r}, {MODEL!r} and {THOUGHT_LEVEL!r}",
            )
        return SetSessionConfigOptionResponse(config_options=[*self.modes.all_options(session_id)])

    def _model_options(self, session_id: str) -> list[SessionConfigOptionSelect]:
        """The session's `model` and `thought_level` options (none before it is open)."""
        session = self._sessions.get(session_id)
        if session is None:
            return []
        offer = session.manager.models
        return self.models.options(session_id, lambda pick: offer(pick=pick))

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        session = self._session(session_id)
        try:
            read = read_prompt(prompt, session.root)
        except PromptError as exc:
            raise RequestError(INVALID_PARAMS, str(exc)) from None
        text = read.text
        if not text.strip() and (read.images or read.linked or read.embedded):
            text = "(The user sent only what is attached.)"  # only an image or a file
        if not text.strip():
            raise RequestError(INVALID_PARAMS, "the prompt has no text")
        if session_id in self._prompting:
            raise RequestError(
                INVALID_PARAMS,
                f"session {session_id} is busy with another prompt; cancel it or wait for it "
                "to finish",
            )
        self._prompting.add(session_id)
        self._stopping.discard(session_id)
        try:
            await self._tell_sandbox(session)
            self.commands.refresh(session_id, session.root)
            mode = self.modes.run_mode(session_id)
            params = RunRequest(
                text,
                session_id,
                mode=mode,
                pick=self.models.pick(session_id),
                images=tuple(read.images),
                linked=tuple(read.linked),
                embedded=tuple(read.embedded),
            )
            stop = await self._turn(session, params)
            self.commands.refresh(session_id, session.root)  # the run may have added one
        finally:
            self._prompting.discard(session_id)
            self._stopping.discard(session_id)
        return PromptResponse(stop_reason=stop)

    async def _turn(self, session: AcpSession, params: RunRequest) -> StopReason:
        """One prompt turn: the run, and while it ends with a plan, what the user wants
        done with it (run it, revise it, or stop here with the plan kept)."""
        result = await self._run(session, session.manager.run(params))
        while result.stop_reason == "planReady":
            if session.id in self._stopping:  # cancelled as the run ended: nothing to ask
                return "cancelled"
            assert self._plan_question is not None  # connected, as the session exists
            choice = await self._plan_question.ask(session.id, result.text, result.todos)
            if choice in ("reject", "cancelled"):
                return "end_turn" if choice == "reject" else "cancelled"
            action: PlanAction = "run" if choice == "run" else "revise"
            if action == "run":
                self.modes.set(session.id, ASK)  # the plan runs in act mode
            items = plan_as_it_is(result.todos)
            approval = ApprovePlanParams(session.id, items, (), action, params.pick)
            result = await self._run(session, session.manager.approve_plan(approval))
        hint = continue_hint(result.stop_reason, session.manager.settings_now().max_turns)
        if hint is not None:
            self.updates.send(session.id, update_agent_message_text(f"\n\n> {hint}\n\n"))
        return STOP_REASONS[result.stop_reason]

    async def _run(self, session: AcpSession, running: Awaitable[RunResult]) -> RunResult:
        try:
            result = await running
        except SessionError as exc:  # busy with a run started elsewhere
            raise RequestError(INVALID_PARAMS, str(exc)) from None
        self._report_usage(session)
        if result.stop_reason == "error":
            raise RequestError(INTERNAL_ERROR, result.error or "the run failed")
        return result

    async def _tell_sandbox(self, session: AcpSession) -> None:
        """Where commands cannot be sandboxed although the mode wants it, say so (with the
        reason and the fix) once in the session, before its first run."""
        if session.id in self._told_sandbox:
            return
        self._told_sandbox.add(session.id)
        from ..sandbox.status import sandbox_status

        mode = self._settings(session.root).sandbox_mode
        status = await sandbox_status(mode, session.root)
        if (not status.active and mode != "off") or self._options.yes:
            line = sandbox_notice(status, self._options)
            self.updates.send(session.id, update_agent_message_text(f"> {line}\n\n"))

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        self.cancel_now(session_id)

    def cancel_now(self, session_id: str) -> None:
        """Stop the session's run, if any (session/cancel, $/cancel_request)."""
        if session_id in self._prompting:
            self._stopping.add(session_id)
        if self._plan_question is not None:
            self._plan_question.cancel(session_id)  # the plan question, if it is open
        session = self._sessions.get(session_id)
        if session is not None:
            with contextlib.suppress(SessionError):  # nothing to stop
                session.manager.cancel(session_id)

    async def shutdown(self, timeout: float = 5.0) -> None:
        """Cancel every run and wait for them to end (their commands are killed), and stop
        every background command."""
        await self.commands.close()
        running = []
        for session in self._sessions.values():
            core = _core(session)
            if core is not None and core.busy and core.task is not None:
                running.append(core.task)
                core.task.cancel()
        if running:
            await asyncio.wait(running, timeout=timeout)
        # Background commands: SIGTERM, SIGKILL to what is left a second later.
        stops = [s.manager.background.stop_all() for s in self._sessions.values()]
        ends = [s.manager.stop_language_servers() for s in self._sessions.values()]
        await asyncio.gather(*stops, *ends, return_exceptions=True)
        servers = [s.mcp.shutdown() for s in self._sessions.values() if s.mcp is not None]
        await asyncio.gather(*servers, return_exceptions=True)  # no server process left

    def _open(
        self, root: Path, session_id: str | None, mcp_servers: list[Any] | None = None
    ) -> AcpSession:
        """A manager for one session in `root`: a new session, or the saved one."""
        if self._client is None:
            raise RequestError(INTERNAL_ERROR, "not connected")
        fs = self._capabilities.fs
        documents = AcpDocuments(
            self._client,
            can_read=bool(fs and fs.read_text_file),
            can_write=bool(fs and fs.write_text_file),
        )
        asker = AcpAsker(self._client, self.updates)
        opened: list[str] = []
        mcp = session_mcp(mcp_servers, root, lambda line: self._mcp_notice(opened, line))
        manager = session_manager(
            recording(self.updates, lambda: root),
            root,
            self._settings,
            model_factory=self._models,
            documents=documents,
            asker=asker,
            grants=self._options.grants,
            unavailable=NOT_OVER_ACP,
            observers=[
                lambda scope: EditTexts(scope, documents, self.updates.whole_texts.__setitem__),
                *([mcp.observer] if mcp else []),
            ],
            session_tools=(lambda _session: mcp.tools()) if mcp else None,
        )
        if session_id is None:
            core = manager.new_session()
        else:
            try:
                core = manager.get(session_id)
            except SessionError as exc:
                raise RequestError(RESOURCE_NOT_FOUND, f"{exc} in {root}") from None
        documents.session_id = asker.session_id = core.id
        self.updates.diff_logs[core.id] = DiffLog(root, core.id)
        opened.append(core.id)
        session = AcpSession(core.id, root, manager, mcp)
        if mcp is not None:
            mcp.refresh(root)  # the servers start now, in the background
        self._sessions[core.id] = session
        return session

    def _mcp_notice(self, opened: list[str], line: str) -> None:
        """An MCP server's new state, as a notice line of the session (once it exists)."""
        if opened:
            self.updates.on_event(opened[0], p.EVENT_NOTICE, {"message": line})

    def _store(self, root: Path) -> SessionStore:
        return self._stores.setdefault(root, SessionStore(root))

    def _save_new(self, root: Path, core: Session) -> None:
        """Save the session before its first prompt, so a client that ends this process
        can still `session/load` the id it was given (listings leave it out until it has
        a conversation). Best effort: the first prompt saves it again."""
        try:
            self._store(root).sync(core)
        except OSError as exc:
            log.warning("could not save the new session %s: %s", core.id, exc)

    def _session(self, session_id: str) -> AcpSession:
        session = self._sessions.get(session_id)
        if session is None:
            raise RequestError(
                RESOURCE_NOT_FOUND,
                f"there is no session {session_id!r} on this connection: start one with "
                "session/new or open a saved one with session/load",
            )
        return session

    def _report_usage(self, session: AcpSession) -> None:
        """`usage_update`: how full the context window is after the last model call."""
        core = _core(session)
        if core is None or not core.last_input_tokens:
            return
        window = self._settings(session.root).context_window
        self.updates.send(
            session.id,
            UsageUpdate(session_update="usage_update", used=core.last_input_tokens, size=window),
        )


def _core(session: AcpSession) -> Session | None:
    """The core's session, if it still has it (in memory or on disk)."""
    try:
        return session.manager.get(session.id)
    except SessionError:
        return None


def _workspace(cwd: str) -> Path:
    """The session's workspace root: `cwd`, which must be an absolute path to a folder."""
    path = Path(cwd)
    if not path.is_absolute():
        raise RequestError(INVALID_PARAMS, f"cwd must be an absolute path, got {cwd!r}")
    if not path.is_dir():
        raise RequestError(INVALID_PARAMS, f"cwd {cwd!r} is not a folder")
    return path.resolve()


def _own_folder() -> list[Path]:
    """The agent's working directory, unless it is gone."""
    try:
        return [Path.cwd().resolve()]
    except OSError:
        return []

"""The language server: a thin pygls adapter over the agent core.

This is the only module that registers LSP features and commands. Each handler turns
wire params into core calls and core results (or errors) back into wire answers.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from dataclasses import replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from .. import __version__
from .. import protocol as p
from ..agent.errors import SessionError
from ..config import AgentSettings, editor_section, resolve_settings
from ..protocol import (
    ApprovePlanParams,
    BackgroundOutputParams,
    BackgroundStopParams,
    CancelParams,
    FileVersionParams,
    ProtocolError,
    RevertParams,
    RunRequest,
    SessionParams,
    UndoRevertParams,
)
from ..shared.errors import CheckpointError, ToolError
from .code_actions import KINDS, ActionRequest, ActionScope, code_actions, workspace_path
from .current_session import CurrentSession
from .editor_diagnostics import EditorDiagnostics, workspace_problems
from .features import LanguageFeature
from .file_watch import EditorFileWatch
from .follow import FollowEdits
from .lifetime import Lifetime
from .mcp_servers import LspMcp
from .methods import COMMANDS, REQUESTS, Request
from .notifier import LspNotifier
from .progress import RunProgress
from .sandbox_status import SandboxStatusPublisher
from .wire import AgentProtocol, to_plain

if TYPE_CHECKING:
    from .. import contract

    Revert = contract.RevertOutcome | contract.UndoRevertResult
    from ..agent.sessions import SessionManager
    from ..conversation.histories import Histories
    from ..conversation.pages import (
        HistoryImageParams,
        HistoryParams,
        ToolImageParams,
        ToolOutputParams,
    )
    from ..guard.approvals import Asker
    from ..shared.observers import RunObserver, RunScope
    from ..shared.session import Session

log = logging.getLogger(__name__)

REQUEST_FAILED = p.REQUEST_FAILED  # LSP ErrorCodes.RequestFailed (the contract's)
T = TypeVar("T")


class AgentLanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("workspace-agent", __version__, protocol_cls=AgentProtocol)
        self.editor_settings: dict[str, Any] = {}
        self._settings_pull: asyncio.Future[None] | None = None
        self.shutting_down = False
        """`shutdown` was received: `exit` then ends the process with status 0."""
        self.lifetime = Lifetime(shutdown_received=lambda: self.shutting_down)
        """Every way the process ends, each killing the running commands first."""
        self.notifier = LspNotifier(self)
        self.current = CurrentSession()
        self._quick_settings: tuple[dict[str, Any], AgentSettings] | None = None
        self.sandbox_status = SandboxStatusPublisher(self)
        self.mcp = LspMcp(self, asker=self._editor_asker)
        """The user's MCP servers (nothing loads until one is configured)."""
        follow = FollowEdits(self, enabled=lambda: self.quick_settings().follow_agent)
        self.notifier.follow = follow
        self.file_watch = EditorFileWatch(
            lambda: self.client_capabilities,
            self.client_register_capability_async,
            lambda: self.agent.checkpoint_service,
        )
        """The editor's watcher as the checkpoints' change feed, when the client offers it."""
        self.features: tuple[LanguageFeature, ...] = (
            self.sandbox_status,
            self.mcp,
            follow,
            self.file_watch,
        )
        """Called in this order at each point of the lifecycle (lsp/features.py)."""
        self.lifetime.before_kill.append(self.cut_off_runs)
        self.lifetime.on_end.append(self.shutdown_features)

    @cached_property
    def agent(self) -> SessionManager:
        """The agent core, loaded once `initialize` is answered (start-up stays quick)."""
        from ..agent.sessions import SessionManager
        from ..conversation.recorder import HistoryRecorder
        from .documents import EditorAsker, EditorDocuments
        from .editor_code_intel import editor_intel

        return SessionManager(
            HistoryRecorder(self.notifier, self.histories),
            root=self.workspace_root,
            settings=self.settings_for,
            documents=EditorDocuments(self),
            asker=EditorAsker(self),
            observers=[self._problems_observer, self.mcp.observer],
            session_tools=self.mcp.tools,
            problems=lambda: workspace_problems(EditorDiagnostics(self), self.workspace_root()),
            editor_intel=lambda: editor_intel(self),
        )

    @cached_property
    def histories(self) -> Histories:
        """The sessions' histories (workspaceAgent/history), recorded as runs go."""
        from ..conversation.histories import Histories

        return Histories(self.workspace_root)

    def _problems_observer(self, scope: RunScope) -> RunObserver | None:
        """The new-problems observer of a run, for clients that report diagnostics."""
        from .problems_observer import ProblemsObserver

        editor = EditorDiagnostics(self)
        protocol = self.protocol
        assert isinstance(protocol, AgentProtocol)
        return ProblemsObserver(scope, editor, protocol.documents) if editor.supported() else None

    def _editor_asker(self) -> Asker:
        from .documents import EditorAsker

        return EditorAsker(self)

    def notify(self, method: str, payload: Any) -> None:
        self.protocol.notify(method, payload)

    # -- The features' lifecycle (lsp/features.py): each hook on every feature, in order.

    def initialized_features(self) -> None:
        """At `initialized`: the settings are asked for when the client sent none (and can
        be asked); the features hear `settings_changed` once they are known."""
        pending = not self.editor_settings and self._can_pull_settings()
        if pending:
            self._settings_pull = asyncio.ensure_future(self._pull_settings())
        for feature in self.features:
            feature.initialized()
        if not pending:
            self.settings_changed()

    def settings_changed(self) -> None:
        for feature in self.features:
            feature.settings_changed()

    async def cut_off_runs(self) -> None:
        """The server ends without `shutdown` (its input closed, the client's process gone,
        `exit` alone, a signal): the runs still going record that the server stopped."""
        if "agent" in self.__dict__:
            await self.agent.cut_off("serverStopped")

    async def shutdown_features(self) -> None:
        for feature in self.features:
            await feature.shutdown()

    def workspace_root(self) -> Path | None:
        """The LSP root, else the first workspace folder; None when no folder is open."""
        workspace = self.workspace
        if workspace.root_path:
            return Path(workspace.root_path)
        folders = list(workspace.folders.values())
        if folders:
            path = to_fs_path(folders[0].uri)
            return Path(path) if path else None
        return None

    def settings_for(self, root: Path) -> AgentSettings:
        return resolve_settings(root, self.editor_settings)

    def quick_settings(self) -> AgentSettings:
        """The settings from the editor and the environment, without reading the
        workspace's .env: for requests that must not touch the disk (code actions).
        Worked out again only when the editor's settings change."""
        editor = self.editor_settings
        if self._quick_settings is None or self._quick_settings[0] is not editor:
            self._quick_settings = (editor, resolve_settings(None, editor))
        return self._quick_settings[1]

    def pull_settings(self) -> None:
        """Ask the client for the settings section (clients that push nothing). A run that
        starts meanwhile waits for the answer, so it never uses the old settings."""
        if self._can_pull_settings():
            self._settings_pull = asyncio.ensure_future(self._pull_settings())
        else:
            self.settings_changed()

    def _can_pull_settings(self) -> bool:
        workspace = self.client_capabilities.workspace
        return bool(workspace and workspace.configuration)

    async def _pull_settings(self) -> None:
        answer = await self.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section=p.SETTINGS_SECTION)])
        )
        if answer:
            self.editor_settings = editor_section(answer[0])
        self.settings_changed()

    async def settings_ready(self) -> None:
        pull, self._settings_pull = self._settings_pull, None
        if pull is not None:
            try:
                await pull
            except Exception as exc:  # the client could not answer: keep what we have
                log.warning("could not read the editor settings: %s", exc)

    # -- The custom requests' handlers: `on_<method>`, called with the params as the
    # contract's parser made them (lsp/methods.py, generated; create_server registers it).

    async def on_run(self, params: RunRequest) -> contract.RunResult:
        await self.settings_ready()
        with _as_request_failed():
            self.agent.check_pick(params.pick)
            session = self.agent.session_for(params)
            with self.current.running(session.id):
                async with self._progress(session, params.prompt):
                    result = await self.agent.run(replace(params, session_id=session.id))
        return result.to_wire()

    async def on_approve_plan(self, params: ApprovePlanParams) -> contract.RunResult:
        """workspaceAgent/approvePlan: the run of the plan as the user left it (or of its
        revision), reported and cancelled like any run."""
        await self.settings_ready()
        title = "Running the plan" if params.action == "run" else "Revising the plan"
        with _as_request_failed():
            self.agent.check_pick(params.pick)
            session = self.agent.plan_session(params)
            with self.current.running(session.id):
                async with self._progress(session, title):
                    result = await self.agent.approve_plan(params)
        return result.to_wire()

    @asynccontextmanager
    async def _progress(self, session: Session, prompt: str) -> AsyncIterator[None]:
        """Work-done progress around one run (the run's end event closes it)."""
        progress = RunProgress(self, on_cancel=lambda: self.agent.cancel(session.id))
        if self.notifier.progress.setdefault(session.id, progress) is not progress:
            yield  # another run on this session reports already; it will be refused
            return
        try:
            await progress.begin("Workspace Agent", _first_line(prompt))
            progress.report(session.todos.items)
            yield
        finally:
            self.notifier.progress.pop(session.id, None)
            progress.end("Stopped")

    async def on_models(self, raw: Any) -> contract.ModelsResult:
        """workspaceAgent/models: what a model picker offers, with the settings' choice."""
        extra = raw.get("model") if isinstance(raw, dict) else None
        fits = raw is None or isinstance(raw, dict)
        if not fits or (extra is not None and not (isinstance(extra, str) and extra.strip())):
            raise JsonRpcInvalidParams("params must be absent or {model?: a non-empty model id}")
        await self.settings_ready()
        return self.agent.models(extra.strip() if extra else None)

    async def on_sessions(self) -> contract.SessionsResult:
        return await self.agent.list_sessions()

    async def on_commands(self) -> contract.CommandsResult:
        return await asyncio.to_thread(self.agent.list_commands)

    # The checkpoint requests go straight to the session's checkpoints (checkpoints/requests.py).

    async def on_changes(self, params: SessionParams) -> contract.ChangesResult:
        with _as_request_failed():
            changes = await self.agent.checkpoints(params.session_id).changes()
        return {"sessionId": params.session_id, **changes}

    async def on_file_version(self, params: FileVersionParams) -> contract.FileVersionResult:
        with _as_request_failed():
            text = await self.agent.checkpoints(params.session_id).file_version(params)
        return {"text": text}

    # The background commands' requests go straight to the session manager's registry
    # (tools/background.py): list them, read one's output, stop one or all.

    async def on_background(self, params: SessionParams) -> contract.BackgroundList:
        with _as_request_failed():
            self._agent_session(params.session_id)
            return self.agent.background.listing(params.session_id)

    async def on_background_output(
        self, params: BackgroundOutputParams
    ) -> contract.BackgroundOutputResult:
        with _as_request_failed():
            self._agent_session(params.session_id)
            background = self.agent.background
            return background.read(params.session_id, params.command_id, params.offset)

    async def on_background_stop(self, params: BackgroundStopParams) -> contract.BackgroundList:
        with _as_request_failed():
            self._agent_session(params.session_id)
            await self.agent.background.stop(params.session_id, params.command_id)
            return self.agent.background.listing(params.session_id)

    def _agent_session(self, session_id: str) -> None:
        if not self.agent.known(session_id):
            raise SessionError(f"there is no session {session_id!r}")

    # -- The commands' handlers: `on_<name>_command` (lsp/methods.py's COMMANDS).

    async def on_run_command(self, params: RunRequest) -> contract.RunResult:
        return await self.on_run(params)

    def on_cancel_command(self, params: CancelParams) -> contract.CancelResult:
        with _as_request_failed():
            return {"cancelled": self.agent.cancel(params.session_id, params.cause)}

    def on_get_todos_command(self, params: SessionParams) -> contract.TodosPayload:
        with _as_request_failed():
            session = self.agent.get(params.session_id)
        return p.todos_payload(session.id, session.todos.items)

    async def on_revert_command(self, params: RevertParams) -> Revert:
        with _as_request_failed():
            return await self.agent.checkpoints(params.session_id).revert(params)

    async def on_undo_revert_command(self, params: UndoRevertParams) -> Revert:
        with _as_request_failed():
            return await self.agent.checkpoints(params.session_id).undo_revert(params)

    def on_new_session_command(self) -> contract.NewSessionResult:
        session = self.agent.new_session()
        self.current.named(session.id)
        return {"sessionId": session.id}

    def code_actions(self, raw: Any) -> list[dict[str, Any]] | None:
        """Fix / Ask actions for a `file:` document of the workspace the client has open;
        none while the client's current session has a run going, or when turned off."""
        settings = self.quick_settings()
        protocol = self.protocol
        assert isinstance(protocol, AgentProtocol)
        try:
            request = ActionRequest.from_wire(raw)
            if not settings.code_actions_enabled or self.current.busy:
                return None
            path = workspace_path(request.uri, self.workspace_root())
            document = protocol.documents.get(request.uri)
            if path is None or document is None:
                return None
            scope = ActionScope(document, path, self.current.id, settings.context_max_chars)
            return code_actions(request, scope) or None
        except ProtocolError as exc:
            raise JsonRpcInvalidParams(str(exc)) from None

    async def on_history(self, params: HistoryParams) -> dict[str, Any]:
        from ..conversation.pages import history_page

        self._known_session(params.session_id)
        return _parsed(lambda _: history_page(self.histories, params), None)

    async def on_tool_output(self, params: ToolOutputParams) -> contract.ToolOutputResult:
        from ..conversation.pages import tool_output

        self._known_session(params.session_id)
        text = tool_output(self.histories, params)
        if text is None:
            raise JsonRpcException(
                f"there is no tool call {params.tool_use_id!r} in session {params.session_id}",
                code=REQUEST_FAILED,
            )
        return {"text": text}

    async def on_history_image(self, params: HistoryImageParams) -> contract.HistoryImageResult:
        from ..conversation.pages import history_image

        self._known_session(params.session_id)
        image = history_image(self.histories, params)
        if image is None:
            raise JsonRpcException(
                f"image {params.index + 1} of entry {params.seq} of session "
                f"{params.session_id} was not kept (a session saved before its history kept "
                "images, or no such image); its record still names its type and size",
                code=REQUEST_FAILED,
            )
        return {"mediaType": image["mediaType"], "data": image["data"]}

    async def on_tool_image(self, params: ToolImageParams) -> contract.HistoryImageResult:
        from ..conversation.pages import tool_image

        self._known_session(params.session_id)
        image = tool_image(self.histories, params)
        if image is None:
            raise JsonRpcException(
                f"image {params.index + 1} of the result of tool call {params.tool_use_id!r} "
                f"of session {params.session_id} was not kept (no such call or image, or a "
                "session saved before its history kept tool images); its record still names "
                "its type and size",
                code=REQUEST_FAILED,
            )
        return {"mediaType": image["mediaType"], "data": image["data"]}

    def _known_session(self, session_id: str) -> None:
        if not (self.agent.known(session_id) or self.histories.recorded(session_id)):
            raise JsonRpcException(f"there is no session {session_id!r}", code=REQUEST_FAILED)

    async def on_set_item_check(self, params: p.ItemCheckParams) -> contract.TodosPayload:
        """workspaceAgent/setItemCheck: a plan item's own check (Add Check…)."""
        with _as_request_failed():
            session = self.agent.set_item_check(params)
        return p.todos_payload(session.id, session.todos.items)

    async def on_mcp_restart(self, params: p.McpServerParams) -> contract.McpServersPayload:
        return await self._mcp_action(p.MCP_RESTART_REQUEST, params)

    async def on_mcp_trust(self, params: p.McpServerParams) -> contract.McpServersPayload:
        return await self._mcp_action(p.MCP_TRUST_REQUEST, params)

    async def on_mcp_set_enabled(self, params: p.McpServerParams) -> contract.McpServersPayload:
        return await self._mcp_action(p.MCP_SET_ENABLED_REQUEST, params)

    async def _mcp_action(
        self, method: str, params: p.McpServerParams
    ) -> contract.McpServersPayload:
        """workspaceAgent/mcpRestart, mcpTrust, mcpSetEnabled: an error says what to do
        instead, in its message and as `data.nextStep`."""
        from ..mcp.runtime import McpActionError

        try:
            return await self.mcp.act(method, params)
        except McpActionError as exc:
            raise JsonRpcException(
                str(exc), code=REQUEST_FAILED, data={"nextStep": exc.next_step}
            ) from None


def create_server() -> AgentLanguageServer:
    """Build the server and wire every LSP feature and command to it."""
    server = AgentLanguageServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: AgentLanguageServer, params: types.InitializeParams) -> None:
        ls.editor_settings = editor_section(params.initialization_options)
        ls.lifetime.started(client_pid=params.process_id)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: AgentLanguageServer, params: types.InitializedParams) -> None:
        from ..agent import preload

        ls.agent  # noqa: B018 (load the core now, on the event loop, not in the first run)
        preload.start()  # then the SDK's, in a thread (both at once took longer: preload.py)
        ls.initialized_features()

    @server.feature(types.SHUTDOWN)
    async def shutdown(ls: AgentLanguageServer, params: None) -> None:
        ls.shutting_down = True
        if "agent" in ls.__dict__:
            # Before pygls cancels the pending requests: each run still going records
            # why it stopped (the client's `reload` or `restart` when it said so).
            await ls.agent.cut_off("serverStopped")
            await ls.agent.background.stop_all()  # TERM, then KILL; `exit` kills what is left
            await ls.agent.stop_language_servers()
            await ls.agent.checkpoint_service.shutdown()  # its upkeep after the last run
        await ls.shutdown_features()  # no MCP server process outlives the server

    @server.feature(types.EXIT)
    async def exit_process(ls: AgentLanguageServer, params: None) -> None:
        await ls.lifetime.end()

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(
        ls: AgentLanguageServer, params: types.DidChangeWatchedFilesParams
    ) -> None:
        ls.file_watch.changed(params)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(
        ls: AgentLanguageServer, params: types.DidChangeConfigurationParams
    ) -> None:
        pushed = editor_section(params.settings)
        if pushed:
            ls.editor_settings = pushed
            ls.settings_changed()
        else:
            ls.pull_settings()

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=list(KINDS))
    )
    def code_action(ls: AgentLanguageServer, params: Any) -> list[dict[str, Any]] | None:
        return ls.code_actions(params)

    for request in REQUESTS:  # generated from the contract (lsp/methods.py)
        server.feature(request.method)(_answer(request))

    for command in COMMANDS:  # generated from the contract too
        server.command(command.method)(_answer_command(command))

    return server


def _answer(request: Request) -> Callable[..., Awaitable[Any]]:
    """The pygls handler of one custom request: its params parsed (a ProtocolError is
    InvalidParams), then its `on_<method>` handler called with them. pygls reads the
    handlers' annotations at run time (typing.get_type_hints), and the contract's
    TypedDicts exist for mypy only: the handlers return Mappings."""
    parse, plain = request.parse, request.plain

    async def handler(ls: AgentLanguageServer, params: Any) -> Mapping[str, Any]:
        answer = getattr(ls, request.handler)
        if not request.takes_params:
            return await answer()  # type: ignore[no-any-return]
        params = params if plain else to_plain(params)
        argument = params if parse is None else _parsed(parse, params)
        return await answer(argument)  # type: ignore[no-any-return]

    handler.__name__ = request.handler
    return handler


def _answer_command(command: Request) -> Callable[..., Any]:
    """The pygls handler of one command: its argument list parsed (a ProtocolError is
    InvalidParams), then `on_<name>_command` called with it; sync when that handler is,
    so it answers in the order the messages came."""
    parse = command.parse

    def argument(args: tuple[Any, ...]) -> tuple[Any, ...]:
        if not command.takes_params:
            return ()
        return (_parsed(parse, list(args)),) if parse is not None else (list(args),)

    if inspect.iscoroutinefunction(getattr(AgentLanguageServer, command.handler)):

        async def answer_async(ls: AgentLanguageServer, *args: Any) -> Mapping[str, Any]:
            return await getattr(ls, command.handler)(*argument(args))  # type: ignore[no-any-return]

        return answer_async

    def answer(ls: AgentLanguageServer, *args: Any) -> Mapping[str, Any]:
        return getattr(ls, command.handler)(*argument(args))  # type: ignore[no-any-return]

    return answer


@contextmanager
def _as_request_failed() -> Iterator[None]:
    """The core's refusals (SessionError: an unknown or busy session; CheckpointError: a
    checkpoint request that cannot be done; ToolError: no such background command) as an
    LSP RequestFailed error with the same message."""
    try:
        yield
    except (SessionError, CheckpointError, ToolError) as exc:
        raise JsonRpcException(str(exc), code=REQUEST_FAILED) from None


def _parsed(parse: Callable[[Any], T], raw: Any) -> T:
    try:
        return parse(raw)
    except ProtocolError as exc:
        raise JsonRpcInvalidParams(str(exc)) from None


def _first_line(text: str, limit: int = 80) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"

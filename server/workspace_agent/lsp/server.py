"""The language server: a thin pygls adapter over the agent core.

This is the only module that registers LSP features and commands. Each handler turns
wire params into core calls and core results (or errors) back into wire answers.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
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
    FileVersionParams,
    ProtocolError,
    RevertParams,
    RunParams,
    SessionParams,
    UndoRevertParams,
)
from ..shared.errors import CheckpointError
from .code_actions import KINDS, ActionRequest, ActionScope, code_actions, workspace_path
from .current_session import CurrentSession
from .editor_diagnostics import EditorDiagnostics, workspace_problems
from .follow import FollowEdits
from .lifetime import Lifetime
from .mcp_servers import LspMcp
from .notifier import LspNotifier
from .progress import RunProgress
from .sandbox_status import SandboxStatusPublisher
from .wire import AgentProtocol, to_plain

if TYPE_CHECKING:
    from .. import contract

    Revert = contract.RevertOutcome | contract.UndoRevertResult
    from ..agent.sessions import SessionManager
    from ..conversation.histories import Histories
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
        self.notifier.follow = FollowEdits(self, enabled=lambda: self.quick_settings().follow_agent)
        self.current = CurrentSession()
        self.mcp = LspMcp(self)
        """The user's MCP servers (nothing loads until one is configured)."""
        self.lifetime.on_end.append(self.mcp.shutdown)
        self._quick_settings: tuple[dict[str, Any], AgentSettings] | None = None
        self.sandbox_status = SandboxStatusPublisher(self)

    @cached_property
    def agent(self) -> SessionManager:
        """The agent core, loaded once `initialize` is answered (start-up stays quick)."""
        from ..agent.sessions import SessionManager
        from ..conversation.recorder import HistoryRecorder
        from .documents import EditorAsker, EditorDocuments

        return SessionManager(
            HistoryRecorder(self.notifier, self.histories),
            root=self.workspace_root,
            settings=self.settings_for,
            documents=EditorDocuments(self),
            asker=EditorAsker(self),
            observers=[self._problems_observer, self.mcp.observer],
            session_tools=self.mcp.tools,
            problems=lambda: workspace_problems(EditorDiagnostics(self), self.workspace_root()),
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
        workspace = self.client_capabilities.workspace
        if workspace and workspace.configuration:
            self._settings_pull = asyncio.ensure_future(self._pull_settings())
        else:
            self.sandbox_status.publish()

    async def _pull_settings(self) -> None:
        answer = await self.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section=p.SETTINGS_SECTION)])
        )
        if answer:
            self.editor_settings = editor_section(answer[0])
        self.sandbox_status.publish()
        self.mcp.start()

    async def settings_ready(self) -> None:
        pull, self._settings_pull = self._settings_pull, None
        if pull is not None:
            try:
                await pull
            except Exception as exc:  # the client could not answer: keep what we have
                log.warning("could not read the editor settings: %s", exc)

    async def run(self, raw: Any) -> contract.RunResult:
        try:
            params = RunParams.from_wire(raw)
        except ProtocolError as exc:
            raise JsonRpcInvalidParams(str(exc)) from None
        await self.settings_ready()
        with _as_request_failed():
            self.agent.check_pick(params.pick)
            session = self.agent.session_for(params)
            with self.current.running(session.id):
                async with self._progress(session, params.prompt):
                    result = await self.agent.run(replace(params, session_id=session.id))
        return result.to_wire()

    async def approve_plan(self, raw: Any) -> contract.RunResult:
        """workspaceAgent/approvePlan: the run of the plan as the user left it (or of its
        revision), reported and cancelled like any run."""
        params = _parsed(ApprovePlanParams.from_wire, to_plain(raw))
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

    async def models(self, raw: Any) -> contract.ModelsResult:
        """workspaceAgent/models: what a model picker offers, with the settings' choice."""
        extra = raw.get("model") if isinstance(raw, dict) else None
        fits = raw is None or isinstance(raw, dict)
        if not fits or (extra is not None and not (isinstance(extra, str) and extra.strip())):
            raise JsonRpcInvalidParams("params must be absent or {model?: a non-empty model id}")
        await self.settings_ready()
        return self.agent.models(extra.strip() if extra else None)

    def cancel(self, raw: Any) -> contract.CancelResult:
        params = _session_params(raw, p.CANCEL_COMMAND)
        with _as_request_failed():
            return {"cancelled": self.agent.cancel(params.session_id)}

    def new_session(self) -> contract.NewSessionResult:
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

    def get_todos(self, raw: Any) -> contract.TodosPayload:
        params = _session_params(raw, p.GET_TODOS_COMMAND)
        with _as_request_failed():
            session = self.agent.get(params.session_id)
        return p.todos_payload(session.id, session.todos.items)

    async def history(self, raw: Any) -> dict[str, Any]:
        from ..conversation.pages import HistoryParams, history_page

        params = _parsed(HistoryParams.from_wire, raw)
        self._known_session(params.session_id)
        return _parsed(lambda _: history_page(self.histories, params), None)

    async def tool_output(self, raw: Any) -> contract.ToolOutputResult:
        from ..conversation.pages import ToolOutputParams, tool_output

        params = _parsed(ToolOutputParams.from_wire, raw)
        self._known_session(params.session_id)
        text = tool_output(self.histories, params)
        if text is None:
            raise JsonRpcException(
                f"there is no tool call {params.tool_use_id!r} in session {params.session_id}",
                code=REQUEST_FAILED,
            )
        return {"text": text}

    async def history_image(self, raw: Any) -> contract.HistoryImageResult:
        from ..conversation.pages import HistoryImageParams, history_image

        params = _parsed(HistoryImageParams.from_wire, raw)
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

    def _known_session(self, session_id: str) -> None:
        if not (self.agent.known(session_id) or self.histories.recorded(session_id)):
            raise JsonRpcException(f"there is no session {session_id!r}", code=REQUEST_FAILED)

    async def mcp_action(self, method: str, raw: Any) -> contract.McpServersPayload:
        """workspaceAgent/mcpRestart, mcpTrust, mcpSetEnabled: an error says what to do
        instead, in its message and as `data.nextStep`."""
        from ..mcp.runtime import McpActionError

        params = _parsed(lambda raw: p.McpServerParams.from_wire(raw, method), to_plain(raw))
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
        if not ls.editor_settings:
            ls.pull_settings()
        else:
            ls.sandbox_status.publish()
        # Configured MCP servers start in the background (with the settings known now; a
        # server from settings pulled later starts with the first run).
        ls.mcp.start()

    @server.feature(types.SHUTDOWN)
    async def shutdown(ls: AgentLanguageServer, params: None) -> None:
        ls.shutting_down = True
        if "agent" in ls.__dict__:  # the checkpoint store's upkeep after the last run
            await ls.agent.checkpoint_service.shutdown()
        await ls.mcp.shutdown()  # no MCP server process outlives the server

    @server.feature(types.EXIT)
    async def exit_process(ls: AgentLanguageServer, params: None) -> None:
        await ls.lifetime.end()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(
        ls: AgentLanguageServer, params: types.DidChangeConfigurationParams
    ) -> None:
        pushed = editor_section(params.settings)
        if pushed:
            ls.editor_settings = pushed
            ls.sandbox_status.publish()
            ls.mcp.start()  # a server added to (or removed from) mcp.servers: at once
        else:
            ls.pull_settings()

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=list(KINDS))
    )
    def code_action(ls: AgentLanguageServer, params: Any) -> list[dict[str, Any]] | None:
        return ls.code_actions(params)

    # pygls reads the handlers' annotations at run time (typing.get_type_hints), and the
    # contract's TypedDicts exist for mypy only: the handlers return Mappings.
    @server.feature(p.RUN_REQUEST)
    async def run_request(ls: AgentLanguageServer, params: Any) -> Mapping[str, Any]:
        return await ls.run(params)

    @server.feature(p.APPROVE_PLAN_REQUEST)
    async def approve_plan_request(ls: AgentLanguageServer, params: Any) -> Mapping[str, Any]:
        return await ls.approve_plan(params)

    @server.feature(p.SESSIONS_REQUEST)
    async def sessions_request(ls: AgentLanguageServer, params: Any) -> Mapping[str, Any]:
        return await ls.agent.list_sessions()

    @server.feature(p.COMMANDS_REQUEST)
    async def commands_request(ls: AgentLanguageServer, params: Any) -> Mapping[str, Any]:
        return await asyncio.to_thread(ls.agent.list_commands)

    @server.feature(p.MODELS_REQUEST)
    async def models_request(ls: AgentLanguageServer, params: Any) -> Mapping[str, Any]:
        return await ls.models(to_plain(params))

    # The checkpoint requests go straight to the session's checkpoints (checkpoints/requests.py).

    @server.feature(p.CHANGES_REQUEST)
    async def changes_request(ls: AgentLanguageServer, params: Any) -> Mapping[str, Any]:
        session_id = _session_params(to_plain(params), p.CHANGES_REQUEST).session_id
        with _as_request_failed():
            return {"sessionId": session_id, **await ls.agent.checkpoints(session_id).changes()}

    @server.feature(p.FILE_VERSION_REQUEST)
    async def file_version_request(ls: AgentLanguageServer, params: Any) -> Mapping[str, Any]:
        version = _parsed(FileVersionParams.from_wire, params)
        with _as_request_failed():
            text = await ls.agent.checkpoints(version.session_id).file_version(version)
        return {"text": text}

    @server.feature(p.HISTORY_REQUEST)
    async def history_request(ls: AgentLanguageServer, params: Any) -> dict[str, Any]:
        return await ls.history(to_plain(params))

    @server.feature(p.HISTORY_IMAGE_REQUEST)
    async def history_image_request(ls: AgentLanguageServer, params: Any) -> Mapping[str, Any]:
        return await ls.history_image(to_plain(params))

    @server.feature(p.TOOL_OUTPUT_REQUEST)
    async def tool_output_request(ls: AgentLanguageServer, params: Any) -> Mapping[str, Any]:
        return await ls.tool_output(to_plain(params))

    for method in (p.MCP_RESTART_REQUEST, p.MCP_TRUST_REQUEST, p.MCP_SET_ENABLED_REQUEST):

        def mcp_request(name: str) -> Any:
            async def handler(ls: AgentLanguageServer, params: Any) -> Mapping[str, Any]:
                return await ls.mcp_action(name, params)

            return handler

        server.feature(method)(mcp_request(method))

    @server.command(p.REVERT_COMMAND)
    async def revert_command(ls: AgentLanguageServer, *args: Any) -> Mapping[str, Any]:
        revert = _parsed(RevertParams.from_wire, list(args))
        with _as_request_failed():
            return await ls.agent.checkpoints(revert.session_id).revert(revert)

    @server.command(p.UNDO_REVERT_COMMAND)
    async def undo_revert_command(ls: AgentLanguageServer, *args: Any) -> Mapping[str, Any]:
        undo = _parsed(UndoRevertParams.from_wire, list(args))
        with _as_request_failed():
            return await ls.agent.checkpoints(undo.session_id).undo_revert(undo)

    @server.command(p.RUN_COMMAND)
    async def run_command(ls: AgentLanguageServer, *args: Any) -> Mapping[str, Any]:
        return await ls.run(list(args))

    @server.command(p.CANCEL_COMMAND)
    def cancel_command(ls: AgentLanguageServer, *args: Any) -> Mapping[str, Any]:
        return ls.cancel(list(args))

    @server.command(p.NEW_SESSION_COMMAND)
    def new_session_command(ls: AgentLanguageServer, *args: Any) -> Mapping[str, Any]:
        return ls.new_session()

    @server.command(p.GET_TODOS_COMMAND)
    def get_todos_command(ls: AgentLanguageServer, *args: Any) -> Mapping[str, Any]:
        return ls.get_todos(list(args))

    return server


@contextmanager
def _as_request_failed() -> Iterator[None]:
    """The core's refusals (SessionError: an unknown or busy session; CheckpointError: a
    checkpoint request that cannot be done) as an LSP RequestFailed error with the same
    message."""
    try:
        yield
    except (SessionError, CheckpointError) as exc:
        raise JsonRpcException(str(exc), code=REQUEST_FAILED) from None


def _session_params(raw: Any, what: str) -> SessionParams:
    try:
        return SessionParams.from_wire(raw, what)
    except ProtocolError as exc:
        raise JsonRpcInvalidParams(str(exc)) from None


def _parsed(parse: Callable[[Any], T], raw: Any) -> T:
    try:
        return parse(raw)
    except ProtocolError as exc:
        raise JsonRpcInvalidParams(str(exc)) from None


def _first_line(text: str, limit: int = 80) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"

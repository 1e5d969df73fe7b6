"""The LSP client the tests drive the real server with, and the one way a session starts.

`RecordingClient` is pytest-lsp's LanguageClient (its own recording of diagnostics,
progress, messages and logs included) plus what our server sends of its own, recorded
from the start, in order, as plain dicts with typed accessors: no attribute is patched
onto a client. `start_session` is the `initialize` every LSP test sends; `session_fixture`
makes the pytest-lsp fixtures (tests/lsp/conftest.py) from that one setup.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import register_lsp_features

from workspace_agent import protocol as p
from workspace_agent.lsp.wire import to_plain
from workspace_agent.testing.scripted_model import ScriptedModelServer

from tests.support.editor_double import EditorDouble
from tests.support.file_watcher import WatcherDouble
from tests.support.server import SERVER, SERVER_COLD, SERVER_ENV

DEFAULT_SETTINGS: dict[str, Any] = {"bashTimeoutSeconds": 20, "approvals": {"bash": "allow"}}
"""The workspaceAgent settings of a test session besides `baseUrl`: bash allowed, short
command timeout."""

# How long a server may take from `shutdown` to its exit (a loaded CI machine included).
SHUTDOWN_LIMIT_S = 30.0


class RecordingClient(LanguageClient):
    def __init__(self) -> None:
        super().__init__(converter_factory=default_converter)
        register_lsp_features(self)  # what pytest-lsp's own client factory registers
        self.events: list[dict[str, Any]] = []
        """workspaceAgent/event params, in order, each with `_at`: when it arrived
        (time.monotonic())."""
        self.todos: list[dict[str, Any]] = []
        """workspaceAgent/todos params, in order."""
        self.changes: list[dict[str, Any]] = []
        """workspaceAgent/changes params, in order."""
        self.sandbox: list[dict[str, Any]] = []
        """workspaceAgent/sandbox params, in order."""
        self.meters: list[dict[str, Any]] = []
        """workspaceAgent/contextMeter params, in order."""
        self.arrivals: list[str] = []
        """The order events, todos, changes and meters arrived in: the event's kind,
        "todos", "changes" or "contextMeter"."""
        self._double: EditorDouble | None = None
        self._root: Path | None = None
        self._initialize_result: types.InitializeResult | None = None
        self.registrations: list[types.Registration] = []
        """client/registerCapability registrations, in order."""
        self.on_register: Callable[[types.RegistrationParams], None] | None = None
        """What takes a registration: a file-watcher double (tests/support/file_watcher.py),
        made for the workspace on the first registration when none was set."""
        self.watcher: WatcherDouble | None = None

        def register(params: types.RegistrationParams) -> None:
            self.registrations += params.registrations
            if self.on_register is None:
                assert self._root is not None, "a registration before initialize"
                self.watcher = WatcherDouble(self, self._root)
                self.on_register = self.watcher.register
            self.on_register(params)

        self.feature(types.CLIENT_REGISTER_CAPABILITY)(register)
        for method, record in (
            (p.EVENT_NOTIFICATION, self._on_event),
            (p.TODOS_NOTIFICATION, self._on_todos),
            (p.CHANGES_NOTIFICATION, self._on_changes),
            (p.SANDBOX_NOTIFICATION, self._on_sandbox),
            (p.CONTEXT_METER_NOTIFICATION, self._on_meter),
        ):
            self.feature(method)(_handler(record))

    def _on_event(self, params: Any) -> None:
        self.events.append({**to_plain(params), "_at": time.monotonic()})
        self.arrivals.append(self.events[-1]["kind"])

    def _on_todos(self, params: Any) -> None:
        self.todos.append(to_plain(params))
        self.arrivals.append("todos")

    def _on_changes(self, params: Any) -> None:
        self.changes.append(to_plain(params))
        self.arrivals.append("changes")

    def _on_sandbox(self, params: Any) -> None:
        self.sandbox.append(to_plain(params))

    def _on_meter(self, params: Any) -> None:
        self.meters.append(to_plain(params))
        self.arrivals.append("contextMeter")

    async def initialize_session(self, params: types.InitializeParams) -> types.InitializeResult:
        if params.root_uri:
            self._root = Path(params.root_uri.removeprefix("file://"))
        self._initialize_result = await super().initialize_session(params)
        return self._initialize_result

    async def shutdown_session(self) -> None:
        """`shutdown` and `exit`, bounded: a server that does not end within
        SHUTDOWN_LIMIT_S fails the test and is killed, rather than holding its worker."""
        try:
            await asyncio.wait_for(super().shutdown_session(), SHUTDOWN_LIMIT_S)
        except asyncio.TimeoutError:
            if self._server is not None and self._server.returncode is None:
                self._server.kill()
            raise AssertionError(
                f"the server did not end within {SHUTDOWN_LIMIT_S:.0f} s of `shutdown`"
            ) from None

    async def stop(self) -> None:
        """pygls's stop waits for the server to exit, unbounded; a server stuck before its
        `exit` (a failed test's) gets its stdin closed, then is killed after SHUTDOWN_LIMIT_S."""
        if self.watcher is not None:
            self.watcher.close()
            self.watcher = None
        server = self._server
        if server is not None and server.returncode is None:
            if server.stdin is not None:
                server.stdin.close()
            try:
                await asyncio.wait_for(asyncio.shield(server.wait()), SHUTDOWN_LIMIT_S)
            except asyncio.TimeoutError:
                server.kill()
        await super().stop()

    @property
    def initialize_result(self) -> types.InitializeResult:
        """The server's answer to `initialize`."""
        assert self._initialize_result is not None, "the session is not initialized"
        return self._initialize_result

    @property
    def double(self) -> EditorDouble:
        """The editor this client plays (a session started with one)."""
        assert self._double is not None, "this client plays no editor"
        return self._double

    def events_of(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["kind"] == kind]


def _handler(record: Callable[[Any], None]) -> Callable[[Any], None]:
    """A plain function for pygls's feature registry (it marks handlers with attributes,
    which a bound method cannot carry)."""

    def handle(params: Any) -> None:
        record(params)

    return handle


def server_config(env: dict[str, str] = SERVER_ENV, cold: bool = False) -> ClientServerConfig:
    """The real server (`python -m workspace_agent`, forked warm unless `cold`) with `env`,
    driven by a RecordingClient."""
    command = SERVER_COLD if cold else SERVER
    return ClientServerConfig(
        server_command=command, server_env=env, client_factory=RecordingClient
    )


async def start_server(env: dict[str, str] = SERVER_ENV, cold: bool = False) -> RecordingClient:
    """A server process of the test's own (one a test may kill), not yet initialized;
    `cold`: exec'd, not forked warm (a test about its pid, memory or signals)."""
    client = await server_config(env, cold).start()
    assert isinstance(client, RecordingClient)
    return client


async def start_session(
    client: RecordingClient,
    workspace: Path,
    model: ScriptedModelServer,
    capabilities: types.ClientCapabilities | None = None,
    double: EditorDouble | None = None,
    settings: dict[str, Any] = DEFAULT_SETTINGS,
) -> types.InitializeResult:
    """initialize + initialized with `workspace` as the folder and the scripted model as
    the API; the client plays `double`'s editor (its capabilities unless given) if one."""
    if capabilities is None:
        capabilities = (
            double.capabilities()
            if double is not None
            else pytest_lsp.client_capabilities("visual-studio-code")
        )
        if client.on_register is None and capabilities.workspace is not None:
            # VS Code's, less the file watching this client does not do for the server
            # (tests/lsp/test_lsp_file_watch.py plays a client that does).
            capabilities.workspace.did_change_watched_files = None
    result = await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities,
            root_uri=workspace.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="ws")],
            initialization_options={"workspaceAgent": {"baseUrl": model.url, **settings}},
        )
    )
    if double is not None:
        double.initialized(result)
        client._double = double
    return result


def session_fixture(
    name: str,
    *,
    env: dict[str, str] = SERVER_ENV,
    editor: dict[str, Any] | None = None,
    editor_from_param: bool = False,
    settings: dict[str, Any] = DEFAULT_SETTINGS,
    cold: bool = False,
) -> Callable[..., Any]:
    """A pytest-lsp fixture `name`: a server with `env`, a session started on the test's
    `workspace` and `model`, shut down after the test. With `editor`, the client plays an
    EditorDouble with those options (updated from the test's indirect parameter with
    `editor_from_param`)."""

    async def session(
        lsp_client: RecordingClient,
        workspace: Path,
        model: ScriptedModelServer,
        request: pytest.FixtureRequest,
    ) -> AsyncIterator[None]:
        double = None
        if editor is not None:
            options = {**editor, **(request.param if editor_from_param else {})}
            double = EditorDouble(lsp_client, **options)
        await start_session(lsp_client, workspace, model, double=double, settings=settings)
        yield
        await lsp_client.shutdown_session()

    return pytest_lsp.fixture(config=server_config(env, cold), name=name)(session)  # type: ignore[no-any-return]


@contextlib.asynccontextmanager
async def another_server(workspace: Path) -> AsyncIterator[RecordingClient]:
    """A second server process on the same workspace (as after a restart)."""
    client = await start_server()
    with ScriptedModelServer({"conversations": []}) as model:
        await start_session(client, workspace, model)
        try:
            yield client
        finally:
            await client.shutdown_session()

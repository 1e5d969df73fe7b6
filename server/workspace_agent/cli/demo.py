"""`workspace-agent demo`: a real session, offline, with a scripted model.

Everything but the model is real: the language server runs as its own process and is
driven over LSP (stdio) like an editor would, the tools really run against a throwaway
copy of a small sample project, and the anthropic SDK talks HTTP to the project's
scripted stand-in for the Messages API, which replays a fixed script. No API key is
needed and no Claude model is called.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from .. import __version__
from .. import protocol as p
from ..demo.client_io import connected
from ..demo.script import DEMO_TASK, demo_script
from ..lsp.wire import to_plain
from ..protocol import TodoItem
from ..testing.scripted_model import ScriptedModelServer
from .terminal import TerminalRenderer, usage_line

BANNER = """\
Workspace Agent demo: the model is SCRIPTED.
A local test double of the Anthropic Messages API replays a fixed script; no Claude model
is called and no API key is used. The language server, the agent loop and the tools are
real and work on a throwaway copy of a sample project: {workspace}
"""


async def run_demo(keep: bool, pace: float) -> int:
    workspace = Path(tempfile.mkdtemp(prefix="workspace-agent-demo-"))
    sample = resources.files("workspace_agent.demo") / "sample_project"
    with resources.as_file(sample) as sample_dir:
        shutil.copytree(sample_dir, workspace, dirs_exist_ok=True)
    renderer = TerminalRenderer()
    print(BANNER.format(workspace=workspace), flush=True)
    try:
        with ScriptedModelServer(demo_script(pace=pace)) as model:
            result = await _drive_server(workspace, model.url, renderer)
        _show_result(result, workspace)
        return 0 if result.get("stopReason") == "end_turn" else 1
    finally:
        if keep:
            print(f"\nThe demo workspace is kept at {workspace}")
        else:
            shutil.rmtree(workspace, ignore_errors=True)


async def _drive_server(
    workspace: Path, model_url: str, renderer: TerminalRenderer
) -> dict[str, Any]:
    client = LanguageClient("workspace-agent-demo", __version__)

    @client.feature(p.EVENT_NOTIFICATION)
    def on_event(params: Any) -> None:
        fields = to_plain(params)
        renderer.on_event(fields.pop("sessionId", ""), fields.pop("kind", ""), fields)

    @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    def on_question(params: types.ShowMessageRequestParams) -> types.MessageActionItem:
        # The demo plays the user too: it answers "Allow for this session" once.
        renderer.on_event(
            "",
            p.EVENT_NOTICE,
            {"message": f"{params.message} (demo answers: Allow for this session)"},
        )
        return types.MessageActionItem(title="Allow for this session")

    @client.feature(p.TODOS_NOTIFICATION)
    def on_todos(params: Any) -> None:
        payload = to_plain(params)
        renderer.on_todos(payload["sessionId"], [TodoItem(**item) for item in payload["items"]])

    @client.feature(p.CHANGES_NOTIFICATION)
    def on_changes(params: Any) -> None:
        payload = to_plain(params)
        renderer.on_changes(payload.pop("sessionId", ""), payload)

    env = {
        **os.environ,
        "ANTHROPIC_BASE_URL": model_url,
        "ANTHROPIC_API_KEY": "scripted-demo-key",  # the scripted server accepts any key
    }
    async with connected(client, workspace, [sys.executable, "-m", "workspace_agent"], env):
        result = await client.protocol.send_request_async(p.RUN_REQUEST, {"prompt": DEMO_TASK})
    return to_plain(result)


def _show_result(result: dict[str, Any], workspace: Path) -> None:
    print(
        f"\nResult: stopReason={result.get('stopReason')}, "
        f"{len(result.get('todos', []))} todos, {usage_line(result.get('usage', {}))} "
        "(token counts are the scripted server's estimates)"
    )
    fixed = (workspace / "wordstats.py").read_text(encoding="utf-8")
    line = next((ln.strip() for ln in fixed.splitlines() if "return len(" in ln), "")
    print(f"wordstats.py now says: {line}")

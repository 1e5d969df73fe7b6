"""Neovim, headless, as a plain LSP client with its built-in client and no plugin: the
quick fix on a diagnostic is offered (direct textDocument/codeAction), and picking it
in vim.lsp.buf.code_action() starts a run whose first message carries the diagnostic."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text

from tests.support.server import SERVER_ENV

NVIM = shutil.which("nvim")
CHECK = Path(__file__).with_name("neovim_check.lua")
APP = "def port(address):\n    host, _, text = address.rpartition(':')\n    return int(value)\n"


@pytest.mark.skipif(
    NVIM is None, reason="needs Neovim (Debian's neovim package; .ci/run installs it)"
)
def test_neovim_offers_the_quickfix_and_runs_it(
    tmp_path: Path, workspace: Path, model: ScriptedModelServer
):
    assert NVIM is not None
    model.load(script_of(reply(text("Use `text`, not `value`."))))
    source = workspace / "app.py"
    source.write_text(APP)
    output = tmp_path / "nvim-result.json"
    config = tmp_path / "nvim-config.json"
    config.write_text(
        json.dumps(
            {
                "cmd": [sys.executable, "-m", "workspace_agent"],
                "root": str(workspace),
                "file": str(source),
                "base_url": model.url,
                "output": str(output),
            }
        )
    )

    done = subprocess.run(
        [NVIM, "--headless", "-n", "-i", "NONE", "-u", str(CHECK)],
        cwd=workspace,
        env={**SERVER_ENV, "WA_NVIM_CONFIG": str(config), "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=180,
    )

    seen = json.loads(output.read_text()) if output.exists() else {}
    assert done.returncode == 0 and not seen.get("error"), (done, seen)
    assert seen["code_action_provider"]
    fix, ask = seen["direct"]
    assert fix["title"] == "Fix with Workspace Agent: undefined name 'value'"
    assert fix["kind"] == "quickfix"
    assert fix["command"]["command"] == "workspaceAgent.run"
    (arguments,) = fix["command"]["arguments"]
    assert arguments["prompt"] == (
        "Fix the problem the editor reports in app.py at line 3: undefined name 'value'"
    )
    assert arguments["context"]["diagnostics"] == [
        {
            "path": "app.py",
            "range": {"start": {"line": 2, "character": 11}, "end": {"line": 2, "character": 16}},
            "message": "undefined name 'value'",
            "severity": 1,
            "source": "pyflakes",
            "code": "F821",
        }
    ]
    assert ask["title"] == "Ask Workspace Agent about this…" and ask["kind"] == "refactor"
    assert ask["command"]["arguments"][0]["context"]["selection"]["text"] == (
        "    return int(value)\n"
    )

    # The menu of vim.lsp.buf.code_action() on the cursor's line: the quick fix only
    # (no range selected); picking it ran workspaceAgent.run with its context.
    assert seen["menu"] == ["Fix with Workspace Agent: undefined name 'value'"]
    assert seen["events"][0] == "runStart" and seen["events"][-1] == "runEnd"
    (request,) = model.requests
    block, prompt = [b["text"] for b in request.body["messages"][0]["content"]]
    assert prompt == arguments["prompt"]
    assert "- app.py:3:12 error: undefined name 'value' [pyflakes F821]" in block

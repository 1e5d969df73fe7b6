"""The server answers `initialize` before it loads the agent core (the start-up benchmark,
bench/startup.py).

The tools, the checkpoints, the loop and the anthropic SDK load after `initialized`
(lsp/server.py); a module of the LSP layer that imports one of them at the top puts its
import time in front of every editor's first answer. This checks what importing the
entry point loads, in a fresh interpreter.
"""

from __future__ import annotations

import json
import subprocess
import sys

LATE = (
    "anthropic",
    "httpx",
    "httpx2",  # the SDK's HTTP client
    "jsonschema",
    "tree_sitter",
    "workspace_agent.tools",
    "workspace_agent.checkpoints",
    "workspace_agent.agent.loop",
    "workspace_agent.agent.sessions",
    "workspace_agent.acp",
    "workspace_agent.mcp",
    "workspace_agent.hooks",
    "mcp",
    "workspace_agent.skills",
    "workspace_agent.subagents",
    "workspace_agent.code_intel",
    "workspace_agent.explore",
    "workspace_agent.web",
    "yaml",
    "pathspec",  # the search walker's .gitignore rules
    "markdownify",  # web_fetch's HTML to Markdown, and the two below
    "bs4",
    "pypdf",
)

PROBE = """
import json, sys
import workspace_agent.cli.main, workspace_agent.lsp.server
print(json.dumps(sorted(sys.modules)))
"""


def test_the_entry_point_imports_nothing_that_loads_after_initialized():
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60, check=True
    )
    loaded = json.loads(done.stdout)
    early = [m for m in loaded if any(m == late or m.startswith(late + ".") for late in LATE)]
    assert early == [], f"imported before `initialize` is answered: {early}"

"""search, find_files, web_fetch and web_search through the real server over LSP: the two
workspace tools of one answer run side by side and come back as the model reads them,
each call's event says its kind (`search`, `fetch`); the fetch's host is asked about in
place (its own sentence), the first web search of the session too (kind `web`; the
second is not asked), a search the API could not make is a clear error, and the run's
usage counts the search. The page is a loopback server's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from workspace_agent import protocol as p
from workspace_agent.testing.scripted_model import (
    ScriptedModelServer,
    cited,
    reply,
    text,
    tool,
    web_search,
)
from workspace_agent.web.search import SYSTEM

from tests.support.client import RecordingClient
from tests.support.lsp import events_of, run, tool_results
from tests.support.web_site import WebSite

IN_PLACE = pytest.mark.parametrize("configured_editor", [{"approvals": True}], indirect=True)


@pytest.fixture
def site() -> Iterator[WebSite]:
    served = WebSite()
    yield served
    served.close()


@IN_PLACE
async def test_finding_code_and_reading_the_web(
    configured_editor: RecordingClient, model: ScriptedModelServer, workspace: Path, site: WebSite
):
    editor = configured_editor
    (workspace / "src").mkdir()
    (workspace / "src" / "app.py").write_text("def handler():\n    return 'ok'\n")
    (workspace / ".gitignore").write_text("*.log\n")
    (workspace / "trace.log").write_text("def handler(): from a log\n")
    editor.double.approval_answers = [{"decision": "allow"}, {"decision": "allow"}]
    model.load(
        {
            "conversations": [
                {
                    "match_system": SYSTEM,
                    "replies": [
                        reply(
                            *web_search("handler docs", [{"title": "Handlers", "url": site.url}]),
                            cited("Handlers return strings.", site.url, "Handlers", "return a str"),
                        ),
                        reply(*web_search("handler errors", "max_uses_exceeded")),
                    ],
                },
                {
                    "replies": [
                        reply(
                            tool("search", {"pattern": r"def \w+\(", "glob": "**/*.py"}),
                            tool("find_files", {"pattern": "*.py"}),
                        ),
                        reply(tool("web_fetch", {"url": f"{site.url}/docs"})),
                        reply(tool("web_search", {"query": "handler docs"})),
                        reply(tool("web_search", {"query": "handler errors"})),
                        reply(text("Found it.")),
                    ]
                },
            ]
        }
    )
    result = await run(editor, "Where is the handler?")

    assert result["stopReason"] == "end_turn"
    assert all(r.rejected is None for r in model.requests)
    calls = {e["name"]: e["toolKind"] for e in events_of(editor, p.EVENT_TOOL_CALL)}
    assert calls == {
        "search": "search",
        "find_files": "search",
        "web_fetch": "fetch",
        "web_search": "search",
    }
    searched, listed = tool_results(model.requests[1].body)
    assert searched["content"] == (
        "1 match for the pattern `def \\w+\\(` in files matching `**/*.py` in 1 file:\n\n"
        "src/app.py:1: def handler():"
    )
    assert listed["content"] == "1 file matches `*.py`:\nsrc/app.py"
    (fetched,) = tool_results(model.requests[2].body)
    assert "# Install" in fetched["content"] and site.paths == ["/docs"]
    (found,) = tool_results(model.requests[4].body)
    assert found["content"].startswith("Web search for `handler docs` (1 search, 1 result):")
    assert '- "return a str"' in found["content"]
    (failed,) = tool_results(model.requests[6].body)
    assert failed["is_error"] and failed["content"] == (
        "web search for 'handler errors' failed: the search used up its searches"
    )
    kinds = [(a["kind"], a["message"]) for a in editor.double.approvals]  # the first search only
    assert kinds == [
        ("network", f"Allow the agent to fetch from `{site.host}` ({site.url}/docs)?"),
        ("web", "Workspace Agent wants to search the web for `handler docs`."),
    ]
    assert result["usage"]["webSearches"] == 1

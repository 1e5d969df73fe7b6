"""web_search through the session manager and the scripted Messages API: the model's call
becomes a request of its own with the web search server tool, whose paused answer goes
back unchanged (the scripted server's strict rules check the server_tool_use,
web_search_tool_result and citations), and the calling model gets the results' titles,
URLs and cited passages; the searches and tokens count in the run's usage and cost.
Where the provider has no such tool (Bedrock), or the web is off, it is not offered."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from workspace_agent.agent.run_extras import RunExtras
from workspace_agent.agent.sessions import SessionManager
from workspace_agent.config import AgentSettings, resolve_settings
from workspace_agent.protocol import RunRequest
from workspace_agent.testing.scripted_model import (
    ScriptedModelServer,
    cited,
    reply,
    text,
    tool,
    web_search,
)
from workspace_agent.web.search import SYSTEM

URL = "https://pygls.example/releases/2.0"


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    def on_event(self, session_id: str, kind: str, fields: dict[str, Any]) -> None:
        self.events.append((kind, fields))

    def on_todos(self, session_id: str, items: list[Any]) -> None: ...

    def on_context(self, session_id: str, meter: dict[str, Any]) -> None: ...

    def on_changes(self, session_id: str, changes: dict[str, Any]) -> None: ...


def system_of(body: dict[str, Any]) -> str:
    return "".join(block["text"] for block in body["system"])


async def test_a_search_is_its_own_request_and_its_results_come_back(
    workspace: Path, model: ScriptedModelServer
):
    found = [
        {"title": "pygls 2.0 released", "url": URL, "page_age": "March 3, 2025"},
        {"title": "pygls on PyPI", "url": "https://pypi.example/project/pygls"},
    ]
    model.load(
        {
            "conversations": [
                {
                    "match_system": SYSTEM,
                    "replies": [
                        reply(
                            text("Searching."),
                            *web_search("pygls 2 release date", found),
                            stop_reason="pause_turn",
                        ),
                        reply(
                            cited(
                                "pygls 2.0 came out in March 2025.",
                                URL,
                                "pygls 2.0 released",
                                "pygls 2.0 was released on 3 March 2025",
                            )
                        ),
                    ],
                },
                {
                    "match": "when did pygls 2",
                    "replies": [
                        reply(
                            tool(
                                "web_search",
                                {"query": "pygls 2 release", "allowed_domains": ["pygls.example"]},
                            )
                        ),
                        reply(text("March 2025.")),
                    ],
                },
            ]
        }
    )
    listener = Recorder()
    settings = {"baseUrl": model.url, "web": "allow", "sandbox": {"mode": "off"}}
    agent = SessionManager(
        listener,
        root=lambda: workspace,
        settings=lambda root: resolve_settings(root, settings, {"ANTHROPIC_API_KEY": "k"}),
    )

    result = await agent.run(RunRequest("when did pygls 2 come out?"))

    assert result.stop_reason == "end_turn"
    assert [r.rejected for r in model.requests] == [None, None, None, None]
    main_first, search, resumed, main_last = (r.body for r in model.requests)
    names = [t["name"] for t in main_first["tools"]]
    assert "web_search" in names and "web_fetch" in names
    assert SYSTEM in system_of(search)
    (server_tool,) = search["tools"]
    assert {k: server_tool[k] for k in ("type", "name", "max_uses", "allowed_domains")} == {
        "type": "web_search_20250305",
        "name": "web_search",
        "max_uses": 3,
        "allowed_domains": ["pygls.example"],
    }
    assert "thinking" not in search or search["thinking"].get("type") == "disabled"
    # the paused answer went back as the server sent it (the strict rules compared it)
    echoed = resumed["messages"][1]["content"]
    assert [b["type"] for b in echoed] == ["text", "server_tool_use", "web_search_tool_result"]
    assert all(r["encrypted_content"] for r in echoed[2]["content"])
    (answer,) = [b for b in main_last["messages"][-1]["content"] if b["type"] == "tool_result"]
    assert answer["content"] == "\n".join(
        [
            "Web search for `pygls 2 release` (1 search, 2 results):",
            "1. pygls 2.0 released (March 3, 2025)",
            f"   {URL}",
            "2. pygls on PyPI",
            "   https://pypi.example/project/pygls",
            "",
            "Summary:",
            "Searching.pygls 2.0 came out in March 2025.",
            "",
            "Cited passages:",
            f'- "pygls 2.0 was released on 3 March 2025" ({URL})',
            "",
            "Read a page in full with web_fetch.",
        ]
    )
    assert result.usage.web_searches == 1
    (end,) = [fields for kind, fields in listener.events if kind == "runEnd"]
    assert end["usage"]["webSearches"] == 1
    tokens = sum(
        end["usage"][k]
        for k in ("inputTokens", "outputTokens", "cacheWriteTokens", "cacheReadTokens")
    )
    assert tokens == result.usage.total and result.usage.total > 0


async def test_an_edited_search_result_sent_back_is_refused(model: ScriptedModelServer):
    """The strict rules: a web_search_tool_result not as the server sent it is a 400."""
    import httpx2

    model.load(
        {"conversations": [{"replies": [reply(*web_search("q", [{"title": "t", "url": URL}]))]}]}
    )
    body = {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "q"}]}
    async with httpx2.AsyncClient() as client:
        first = (await client.post(f"{model.url}/v1/messages", json=body)).json()
        edited = [dict(b) for b in first["content"]]
        edited[1]["content"] = [{**edited[1]["content"][0], "title": "changed"}]
        again = {
            **body,
            "messages": [
                *body["messages"],
                {"role": "assistant", "content": edited},
                {"role": "user", "content": "more"},
            ],
        }
        refused = await client.post(f"{model.url}/v1/messages", json=again)
    assert first["usage"]["server_tool_use"] == {"web_search_requests": 1}
    assert refused.status_code == 400
    assert "`web_search_tool_result` block does not match what the server sent" in refused.text


def test_web_tools_are_offered_where_they_work():
    def offered(**settings: Any) -> list[str]:
        scope = SimpleNamespace(settings=AgentSettings(**settings))
        extras = RunExtras(scope, None, None, "", "", None, None, (), ())  # type: ignore[arg-type]
        return sorted(extras.web_tools())

    assert offered() == ["web_fetch", "web_search"]
    assert offered(provider="vertex") == ["web_fetch", "web_search"]
    assert offered(provider="bedrock") == ["web_fetch"]
    assert offered(web="off") == []


async def test_a_search_the_api_refuses_is_a_clear_result_and_the_run_goes_on(
    workspace: Path, model: ScriptedModelServer
):
    refusal = {"error": {"status": 400, "message": "web search is not enabled for this org"}}
    model.load(
        {
            "conversations": [
                {"match_system": SYSTEM, "replies": [refusal]},
                {
                    "replies": [
                        reply(tool("web_search", {"query": "anything"})),
                        reply(text("I could not search.")),
                    ]
                },
            ]
        }
    )
    settings = {"baseUrl": model.url, "web": "allow", "sandbox": {"mode": "off"}}
    agent = SessionManager(
        Recorder(),
        root=lambda: workspace,
        settings=lambda root: resolve_settings(root, settings, {"ANTHROPIC_API_KEY": "k"}),
    )

    result = await agent.run(RunRequest("search for anything"))

    assert result.stop_reason == "end_turn" and result.text == "I could not search."
    (answer,) = [b for b in model.requests[-1].body["messages"][-1]["content"]]
    assert answer["is_error"] and answer["content"].startswith("the web search request failed: ")
    assert "web search is not enabled for this org" in answer["content"]
    assert "turn web search on in its console" in answer["content"]

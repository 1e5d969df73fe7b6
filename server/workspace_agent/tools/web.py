"""`web_search` and `web_fetch`: the model looks things up on the web (web/).

Offered by the run (agent/run_extras.py) unless the `web` setting is `off`; web_search
only where the provider has the server tool (the Anthropic API and Vertex AI, not
Bedrock). Both are read-only: they change nothing in the workspace, take no checkpoint
scan and run side by side with other reads.

`web` `ask` (the default): the first web search of a session is asked about (kind
"web"), and each new host a fetch reaches, a redirect's too, is asked about once a
session, as a sandboxed command's host is (hosts on `sandbox.allowedDomains` are not;
"Always allow" as there; a plain Allow lets later fetches from that host go, never a
sandboxed command).
`allow`: no question. Metadata and link-local addresses are refused either way.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from ..guard.approvals import Details
from ..protocol import Usage
from ..shared.errors import ToolError
from ..shared.verdicts import HostVerdict
from .base import Tool, ToolContext

MAX_CHARS = 60_000
"""The most of a page's text the model gets from one fetch."""
SEARCH_MAX_TOKENS = 2048


class Answer(Protocol):
    """What a model turn gives back (agent/model.py's ModelTurn)."""

    content: list[dict[str, Any]]
    stop_reason: str | None
    usage: Usage


AskModel = Callable[[str, list[dict[str, Any]], list[dict[str, Any]]], Awaitable[Answer]]
"""(system, tools, messages) -> the answer of one request to the run's model."""


async def _fetch(ctx: ToolContext, args: dict[str, Any]) -> str:
    from ..web.convert import kind_of, to_text
    from ..web.fetch import fetch

    url = str(args["url"]).strip()

    async def decide(host: str, target: str) -> HostVerdict:
        key = f"web_fetch:{host}"
        if ctx.settings.web == "allow" or key in ctx.approvals.allowed_for_session:
            return "allowed"
        verdict = await ctx.approvals.ask_host(
            host,
            f"web_fetch {target}",
            message=f"Allow the agent to fetch from `{host}` ({target})?",
        )
        if verdict == "allowed":  # a host is asked about once a session (for fetches only)
            ctx.approvals.allowed_for_session.add(key)
        return verdict

    page = await fetch(url, decide, tuple(ctx.settings.sandbox_allowed_domains))
    kind = kind_of(page.content_type, page.body, page.url)
    shown_type = page.content_type.split(";", 1)[0] or "no content type"
    head = f"{page.url} (HTTP {page.status}, {shown_type}, {len(page.body):,} bytes"
    head += f"{' read' if page.cut else ''})"
    lines = [head]
    if page.redirects:
        lines.append(f"Redirected from {url}.")
    if page.cut:
        total = f" of {page.total:,}" if page.total else ""
        lines.append(f"[Only the first {len(page.body):,} bytes{total} were read.]")
    if kind == "binary":
        lines.append(f"Not text ({shown_type}): nothing to show.")
        return "\n".join(lines)
    text = to_text(kind, page.body, page.content_type)
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS] + (f"\n\n[Cut at {MAX_CHARS:,} of {len(text):,} characters.]")
    return "\n".join([*lines, "", text or "(empty)"])


WEB_FETCH = Tool(
    name="web_fetch",
    description=(
        "Fetch a web page (http or https) and read it: HTML as Markdown, PDFs as text, "
        f"other text as it is, at most {MAX_CHARS:,} characters. The user may be asked "
        "about the host first. Use it for documentation, issues and pages web_search found."
    ),
    input_schema={
        "type": "object",
        "properties": {"url": {"type": "string", "minLength": 1, "description": "The URL."}},
        "required": ["url"],
        "additionalProperties": False,
    },
    handler=_fetch,
    summarize=lambda args: str(args.get("url", "")),
    kind="fetch",
    plan_safe=True,
    read_only=True,
    reach="nothing",
    aliases=("WebFetch",),
)


def web_search_tool(ask: AskModel, count: Callable[[Usage], None]) -> Tool:
    """The web_search tool of one run: `ask` makes its request with the run's model,
    `count` adds what that request cost to the run and the session."""
    from ..web import search as web

    async def search(ctx: ToolContext, args: dict[str, Any]) -> str:
        query = str(args["query"]).strip()
        if not query:
            raise ToolError("query must not be empty")
        allowed, blocked = args.get("allowed_domains"), args.get("blocked_domains")
        tool = web.server_tool(allowed, blocked)
        if ctx.settings.web != "allow":
            await ctx.approvals.require(
                "web", f"search the web for `{query}`", details=Details(command=query)
            )
            ctx.approvals.allowed_for_session.add("web")  # the first search is asked, once
        messages: list[dict[str, Any]] = [{"role": "user", "content": web.prompt(query)}]
        results, searches = web.Results(), 0
        for _ in range(web.MAX_CONTINUATIONS + 1):
            answer = await ask(web.SYSTEM, [tool], messages)
            count(answer.usage)
            searches += answer.usage.web_searches
            results.read(answer.content)
            if answer.stop_reason != "pause_turn":
                break
            messages = [*messages, {"role": "assistant", "content": answer.content}]
        return results.render(query, searches)

    return Tool(
        name="web_search",
        description=(
            "Search the web (through the model provider's web search) for current "
            "information: documentation, error messages, releases. Returns result titles, "
            "URLs and a cited summary; read a page in full with web_fetch. "
            "allowed_domains or blocked_domains (not both) narrow where results come from."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1},
                "allowed_domains": {
                    "type": "array",
                    "items": {"type": "string", "minLength": 1},
                    "description": "Only results from these domains (`docs.python.org`).",
                },
                "blocked_domains": {
                    "type": "array",
                    "items": {"type": "string", "minLength": 1},
                    "description": "Never results from these domains.",
                },
            },
            "required": ["query"],
            "additionalProperties": False,
        },
        handler=search,
        summarize=lambda args: str(args.get("query", "")),
        kind="search",
        plan_safe=True,
        read_only=True,
        reach="nothing",
        aliases=("WebSearch",),
    )


def web_search_shape() -> Tool:
    """web_search as a saved call of it is shown (session/load): its schema and kind; its
    handler is never run."""

    async def never(
        _system: str, _tools: list[dict[str, Any]], _messages: list[dict[str, Any]]
    ) -> Answer:
        raise ToolError("web_search is not offered here")

    return web_search_tool(never, lambda _usage: None)


def search_settings(settings: Any) -> Any:
    """The run's settings for a search's request: no thinking, a small answer."""
    return dataclasses.replace(
        settings, thinking="off", max_tokens=min(settings.max_tokens, SEARCH_MAX_TOKENS)
    )

"""web_search through the Messages API's web search server tool, in a request of its own.

The run's model is asked, with the server tool alone, to search for the query and say
what it found. The API runs the searches (`server_tool_use`, then a
`web_search_tool_result` with each result's title, URL and age) and answers with text
whose `citations` quote the pages. A `pause_turn` answer is sent back as it came (the
API continues it) at most MAX_CONTINUATIONS times. The result for the calling model lists
the results (titles, URLs, ages), the answer, and the cited passages as snippets; its
tokens and searches are counted by the caller.

The tool's version and shape are the API's documented ones (`web_search_20250305`:
`max_uses`, `allowed_domains` or `blocked_domains`, never both).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..shared.errors import ToolError

TOOL_TYPE = "web_search_20250305"
MAX_USES = 3
MAX_CONTINUATIONS = 2
SYSTEM = (
    "You search the web for another agent. Search for what the user message asks, then "
    "answer briefly with the facts found, citing the pages. Do not ask questions back."
)
ERRORS = {
    "too_many_requests": "the web search is rate limited; try again in a while",
    "invalid_input": "the query was not accepted; rephrase it",
    "max_uses_exceeded": "the search used up its searches",
    "query_too_long": "the query is too long; shorten it",
    "unavailable": "the web search is unavailable right now",
}


def server_tool(allowed: list[str] | None, blocked: list[str] | None) -> dict[str, Any]:
    if allowed and blocked:
        raise ToolError("give allowed_domains or blocked_domains, not both (the API takes one)")
    tool: dict[str, Any] = {"type": TOOL_TYPE, "name": "web_search", "max_uses": MAX_USES}
    if allowed:
        tool["allowed_domains"] = allowed
    if blocked:
        tool["blocked_domains"] = blocked
    return tool


def prompt(query: str) -> str:
    return f"Search the web for: {query}"


@dataclass
class Results:
    queries: list[str] = field(default_factory=list)
    pages: list[dict[str, str]] = field(default_factory=list)
    """{title, url, page_age} of every result, first seen first, no URL twice."""
    answer: list[str] = field(default_factory=list)
    snippets: list[dict[str, str]] = field(default_factory=list)
    """{url, title, cited_text} of each citation."""
    errors: list[str] = field(default_factory=list)

    def read(self, content: list[dict[str, Any]]) -> None:
        """Take in the blocks of one answer."""
        seen = {page["url"] for page in self.pages}
        for block in content:
            kind = block.get("type")
            if kind == "server_tool_use":
                query = (block.get("input") or {}).get("query")
                if query:
                    self.queries.append(str(query))
            elif kind == "web_search_tool_result":
                found = block.get("content")
                if isinstance(found, dict):  # web_search_tool_result_error
                    code = str(found.get("error_code", "unavailable"))
                    self.errors.append(ERRORS.get(code, code))
                    continue
                for result in found or []:
                    url = str(result.get("url", ""))
                    if result.get("type") == "web_search_result" and url and url not in seen:
                        seen.add(url)
                        self.pages.append(
                            {
                                "title": str(result.get("title", "")),
                                "url": url,
                                "page_age": str(result.get("page_age") or ""),
                            }
                        )
            elif kind == "text":
                self.answer.append(str(block.get("text", "")))
                for citation in block.get("citations") or []:
                    if citation.get("type") == "web_search_result_location":
                        self.snippets.append(
                            {
                                "url": str(citation.get("url", "")),
                                "title": str(citation.get("title", "")),
                                "cited_text": str(citation.get("cited_text", "")),
                            }
                        )

    def render(self, query: str, searches: int) -> str:
        if not self.pages and self.errors:
            raise ToolError(f"web search for {query!r} failed: {'; '.join(self.errors)}")
        said = f"{searches} search{'es' if searches != 1 else ''}"
        count = f"{len(self.pages)} result{'s' if len(self.pages) != 1 else ''}"
        lines = [f"Web search for `{query}` ({said}, {count}):"]
        for n, page in enumerate(self.pages, 1):
            age = f" ({page['page_age']})" if page["page_age"] else ""
            lines.append(f"{n}. {page['title'] or page['url']}{age}\n   {page['url']}")
        answer = "".join(self.answer).strip()
        if answer:
            lines += ["", "Summary:", answer]
        if self.snippets:
            lines += ["", "Cited passages:"]
            for snippet in self.snippets:
                text = " ".join(snippet["cited_text"].split())
                lines.append(f'- "{text}" ({snippet["url"]})')
        if self.errors:
            lines += ["", "Not every search succeeded: " + "; ".join(self.errors)]
        lines += ["", "Read a page in full with web_fetch."]
        return "\n".join(lines)

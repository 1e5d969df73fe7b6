"""web_fetch called as the loop calls it, against a loopback web site: what the model
reads, which hosts the user is asked about (a redirect to another host asked again), what
is refused without a question. No request leaves the loopback interface."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from workspace_agent.config import AgentSettings
from workspace_agent.guard.approvals import Approvals
from workspace_agent.shared.todo import TodoList
from workspace_agent.tools.base import ToolContext, ToolError, output_text
from workspace_agent.tools.web import WEB_FETCH

from tests.support.web_site import PAGE, WebSite


class Asker:
    """Answers network questions by host; records each question's sentence."""

    def __init__(self, answers: dict[str, str]) -> None:
        self.answers = answers
        self.asked: list[str] = []

    async def ask(self, kind: str, action: str, reason: str | None = None) -> str | None:
        self.asked.append(action)
        return next((a for host, a in self.answers.items() if f"reach {host} " in action), "deny")


@pytest.fixture
def site() -> Iterator[WebSite]:
    served = WebSite()
    yield served
    served.close()


def fetch(
    root: Path, url: str, asker: Asker | None = None, approvals: Approvals | None = None, **settings
) -> str:
    ctx_settings = replace(AgentSettings(), **settings)
    approvals = approvals or Approvals(asker=asker)  # type: ignore[arg-type]
    ctx = ToolContext(root, ctx_settings, TodoList(), approvals)
    WEB_FETCH.validate({"url": url})
    return output_text(asyncio.run(WEB_FETCH.handler(ctx, {"url": url})))


def test_html_comes_as_markdown_after_the_host_is_allowed(tmp_path: Path, site: WebSite):
    asker = Asker({site.host: "allow_session"})
    out = fetch(tmp_path, f"{site.url}/docs", asker)
    assert out.splitlines()[0] == f"{site.url}/docs (HTTP 200, text/html, {len(PAGE)} bytes)"
    assert out.splitlines()[2:5] == ["Title: Docs", "", "# Install"]
    assert "Run `pip install thing`, then read [the guide](https://example.org/guide)." in out
    assert "* fast" in out and "alert" not in out and "color: red" not in out
    assert asker.asked == [f"let `web_fetch {site.url}/docs` reach {site.host} from the sandbox"]


def test_a_host_is_asked_about_once_a_session(tmp_path: Path, site: WebSite):
    asker = Asker({site.host: "allow"})
    session = Approvals(asker=asker)  # type: ignore[arg-type]
    fetch(tmp_path, f"{site.url}/docs", approvals=session)
    fetch(tmp_path, f"{site.url}/paper.pdf", approvals=session)
    assert len(asker.asked) == 1 and site.paths == ["/docs", "/paper.pdf"]
    assert "network:" + site.host not in session.allowed_for_session  # commands still ask


def test_a_redirect_to_another_host_is_asked_again(tmp_path: Path, site: WebSite):
    asker = Asker({site.host: "allow", site.other: "deny"})
    with pytest.raises(ToolError, match=f"the user declined access to {site.other}"):
        fetch(tmp_path, f"{site.url}/moved", asker)
    assert [a.split(" reach ")[1] for a in asker.asked] == [
        f"{site.host} from the sandbox",
        f"{site.other} from the sandbox",
    ]
    assert site.paths == ["/moved"]  # the other host was never reached
    asker = Asker({site.host: "allow", site.other: "allow"})
    out = fetch(tmp_path, f"{site.url}/moved", asker)
    assert out.splitlines()[:2] == [
        f"http://localhost:{site.port}/docs (HTTP 200, text/html, {len(PAGE)} bytes)",
        f"Redirected from {site.url}/moved.",
    ]


def test_a_50_mb_body_is_read_only_up_to_the_bound(tmp_path: Path, site: WebSite):
    out = fetch(tmp_path, f"{site.url}/big", web="allow")
    lines = out.splitlines()
    assert lines[0] == f"{site.url}/big (HTTP 200, text/plain, 5,242,880 bytes read)"
    assert lines[1] == "[Only the first 5,242,880 bytes of 52,428,800 were read.]"
    assert lines[-1] == "[Cut at 60,000 of 5,242,880 characters.]"


def test_a_pdf_comes_as_text_and_an_image_as_nothing(tmp_path: Path, site: WebSite):
    out = fetch(tmp_path, f"{site.url}/paper.pdf", web="allow")
    assert "[page 1]\nHello from a PDF" in out
    image = fetch(tmp_path, f"{site.url}/logo.png", web="allow")
    assert image.splitlines()[-1] == "Not text (image/png): nothing to show."


def test_listed_hosts_go_ahead_and_refusals_are_clear(tmp_path: Path, site: WebSite):
    asker = Asker({})
    out = fetch(tmp_path, f"{site.url}/docs", asker, sandbox_allowed_domains=(site.host,))
    assert "# Install" in out and asker.asked == []
    with pytest.raises(ToolError, match=f"the user declined access to {site.host}"):
        fetch(tmp_path, f"{site.url}/docs", Asker({}))
    with pytest.raises(ToolError, match="an instance-metadata address"):
        fetch(tmp_path, "http://169.254.169.254/latest/meta-data/", asker, web="allow")
    with pytest.raises(ToolError, match="instance-metadata"):
        fetch(tmp_path, "http://metadata.google.internal/", asker)
    assert asker.asked == []  # refused by rule, never a question
    with pytest.raises(ToolError, match="no one could be asked"):
        fetch(tmp_path, f"{site.url}/docs")
    with pytest.raises(ToolError, match="only http:// and https:// URLs"):
        fetch(tmp_path, "file:///etc/passwd")
    assert site.paths == ["/docs"]

"""`workspace-agent run` with search and web_fetch: the calls and their results' gists in
the terminal; under --yes a host is fetched only when --allow-host names it (a loopback
server here), and the refusal otherwise says how to allow it."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text, tool

from tests.support.cli import CLI, cli_env
from tests.support.lsp import tool_results
from tests.support.web_site import WebSite


@pytest.fixture
def site() -> Iterator[WebSite]:
    served = WebSite()
    yield served
    served.close()


def run_cli(model: ScriptedModelServer, workspace: Path, site: WebSite, *options: str) -> str:
    model.load(
        script_of(
            reply(tool("search", {"pattern": "TODO", "literal": True})),
            reply(tool("web_fetch", {"url": f"{site.url}/docs"})),
            reply(text("All read.")),
        )
    )
    done = subprocess.run(
        [*CLI, "run", "Read up", "--workspace", str(workspace), "--yes", *options],
        env=cli_env(model),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_search_and_a_fetch_of_an_allowed_host(
    model: ScriptedModelServer, workspace: Path, site: WebSite
):
    (workspace / "main.py").write_text("x = 1  # TODO: name it\n")
    out = run_cli(model, workspace, site, "--allow-host", site.host)

    assert "search TODO" in out and "1 match for the text `TODO` in 1 file:" in out
    assert f"web_fetch {site.url}/docs" in out and "All read." in out
    (searched,) = tool_results(model.requests[1].body)
    assert searched["content"].endswith("main.py:1: x = 1  # TODO: name it")
    (fetched,) = tool_results(model.requests[2].body)
    assert "# Install" in fetched["content"] and site.paths == ["/docs"]


def test_under_yes_an_unlisted_host_is_refused_with_how_to_allow_it(
    model: ScriptedModelServer, workspace: Path, site: WebSite
):
    run_cli(model, workspace, site)

    (fetched,) = tool_results(model.requests[2].body)
    assert fetched["is_error"] and fetched["content"] == (
        f"not fetched: --yes does not open the network; allow {site.host} with --allow-host "
        f"{site.host} or sandbox.allowedDomains in your settings file"
    )
    assert site.paths == []

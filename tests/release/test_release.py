"""One version for everything that ships, and the contract's version at `initialize`."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types

from workspace_agent import __version__
from workspace_agent import protocol as p
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text

from tests.support.client import RecordingClient, server_config
from tests.support.lsp import events_of, run

ROOT = Path(__file__).resolve().parents[2]


def test_the_extension_has_the_python_package_version():
    manifest = json.loads((ROOT / "vscode-extension" / "package.json").read_text("utf-8"))
    assert manifest["version"] == __version__
    lock = json.loads((ROOT / "vscode-extension" / "package-lock.json").read_text("utf-8"))
    assert lock["version"] == lock["packages"][""]["version"] == __version__


def test_the_changelog_starts_with_this_version():
    changelog = (ROOT / "CHANGELOG.md").read_text("utf-8")
    first = re.search(r"^## \[?([^\]\s]+)", changelog, flags=re.M)
    assert first is not None and first.group(1) == __version__


def test_pyproject_takes_the_version_from_the_package_and_declares_its_license():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    project = pyproject["project"]
    assert "version" not in project and project["dynamic"] == ["version"]
    dynamic = pyproject["tool"]["setuptools"]["dynamic"]["version"]
    assert dynamic == {"attr": "workspace_agent.__version__"}
    # SPDX license with its file (setuptools >= 77); no license classifier next to it.
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text("utf-8").startswith("MIT License")
    assert not [c for c in project["classifiers"] if c.startswith("License ::")]
    assert "setuptools>=77" in pyproject["build-system"]["requires"]
    assert {"Repository", "Issues", "Changelog"} <= set(project["urls"])


def test_the_command_prints_its_version():
    done = subprocess.run(
        [sys.executable, "-m", "workspace_agent", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"workspace-agent {__version__}\n"


@pytest_lsp.fixture(config=server_config())
async def priced_client(
    lsp_client: RecordingClient,
    tmp_path: Path,
    model: ScriptedModelServer,
    request: pytest.FixtureRequest,
):
    """A client whose runs name the model of the test's parameter (default: one with a
    list price); keeps the initialize result."""
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=pytest_lsp.client_capabilities("visual-studio-code"),
            root_uri=workspace.as_uri(),
            initialization_options={
                "workspaceAgent": {
                    "baseUrl": model.url,
                    "model": getattr(request, "param", "claude-sonnet-4-5"),
                }
            },
        )
    )
    yield
    await lsp_client.shutdown_session()


async def test_initialize_announces_the_protocol_version_and_server_version(
    priced_client: RecordingClient,
):
    result: types.InitializeResult = priced_client.initialize_result
    assert result.capabilities.experimental == {
        "workspaceAgent": {
            "protocolVersion": 1,
            "revertDryRun": True,
            "revertOnly": True,
            "sandbox": {"mode": "auto"},
        }
    }
    assert p.PROTOCOL_VERSION == 1
    assert result.server_info == types.ServerInfo(name="workspace-agent", version=__version__)
    # What pygls computes is still there: the commands, the sync kind, the encoding.
    assert result.capabilities.execute_command_provider is not None
    assert sorted(result.capabilities.execute_command_provider.commands) == sorted(p.COMMANDS)
    assert result.capabilities.text_document_sync is not None
    assert result.capabilities.position_encoding is not None


async def test_a_run_reports_its_estimated_cost_in_the_result_and_the_run_end_event(
    priced_client: RecordingClient, model: ScriptedModelServer
):
    model.load(script_of(reply(text("Hello."))))
    result = await run(priced_client, "Say hello")

    usage = result["usage"]
    assert usage["inputTokens"] + usage["cacheWriteTokens"] > 0 and usage["outputTokens"] > 0
    expected = (
        usage["inputTokens"] * 3
        + usage["cacheWriteTokens"] * 3.75
        + usage["cacheReadTokens"] * 0.3
        + usage["outputTokens"] * 15
    ) / 1_000_000
    assert result["cost"] == {
        "usd": pytest.approx(expected, abs=1e-6),
        "model": "claude-sonnet-4-5",
    }
    [end] = events_of(priced_client, p.EVENT_RUN_END)
    assert end["cost"] == result["cost"]
    assert end["usage"] == usage


@pytest.mark.parametrize("priced_client", ["my-local-model"], indirect=True)
async def test_a_model_without_a_price_gets_no_cost(
    priced_client: RecordingClient, model: ScriptedModelServer
):
    model.load(script_of(reply(text("Hello."))))
    result = await run(priced_client, "Say hello")
    assert result["stopReason"] == "end_turn"
    assert model.requests[0].body["model"] == "my-local-model"
    assert "cost" in result and result["cost"] is None
    assert events_of(priced_client, p.EVENT_RUN_END)[0]["cost"] is None


def test_the_protocol_version_is_documented():
    doc = (ROOT / "docs" / "protocol.md").read_text("utf-8")
    path = f"capabilities.experimental.{p.SETTINGS_SECTION}.{p.PROTOCOL_VERSION_CAPABILITY}"
    assert f"`{path}`: {p.PROTOCOL_VERSION} is the version this document describes" in doc

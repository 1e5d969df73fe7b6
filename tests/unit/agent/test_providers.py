"""Choosing a provider (agent/providers.py): what keeps a run from starting is said
before anything is imported or sent (no key, an extra not installed), each cloud
provider's missing region, project or credentials in a sentence naming the setting, and
no cost estimate off the Anthropic API."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import anthropic
import pytest

from workspace_agent.agent import providers
from workspace_agent.agent.pricing import estimate_cost
from workspace_agent.config import AgentSettings, resolve_settings
from workspace_agent.protocol import Usage

from tests.support.providers import cloud_unset, isolated_env


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in cloud_unset():
        monkeypatch.delenv(name, raising=False)
    for name, value in isolated_env(tmp_path).items():
        monkeypatch.setenv(name, value)


def test_the_anthropic_api_needs_a_key_or_a_bearer_token():
    assert providers.missing(AgentSettings()) == providers.MISSING_KEY
    assert "ANTHROPIC_AUTH_TOKEN" in providers.MISSING_KEY
    assert providers.missing(AgentSettings(auth_token="t")) is None
    assert providers.missing(AgentSettings(api_key="k")) is None


def test_a_cloud_provider_needs_no_anthropic_key():
    assert providers.missing(AgentSettings(provider="bedrock")) is None
    assert providers.missing(AgentSettings(provider="vertex")) is None


def test_an_extra_not_installed_says_what_to_install(monkeypatch: pytest.MonkeyPatch):
    real = providers.importlib.util.find_spec

    def without_google(name: str, *args: object):
        if name.startswith("google"):
            raise ModuleNotFoundError(name)
        return None if name == "boto3" else real(name, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(providers.importlib.util, "find_spec", without_google)
    bedrock = providers.missing(AgentSettings(provider="bedrock"))
    assert bedrock is not None and "(boto3 not installed)" in bedrock
    assert f"`{sys.executable} -m pip install 'workspace-agent[bedrock]'`" in bedrock
    assert "workspaceAgent.provider" in bedrock
    vertex = providers.missing(AgentSettings(provider="vertex"))
    assert vertex is not None and "Google Vertex AI needs" in vertex
    assert "'workspace-agent[vertex]'" in vertex


def test_bedrock_without_a_region_or_credentials(clean_env: None):
    with pytest.raises(
        providers.Unusable, match=r"set workspaceAgent\.bedrock\.region \(or AWS_REGION\)"
    ):
        asyncio.run(providers.client(anthropic, AgentSettings(provider="bedrock")))
    with pytest.raises(providers.Unusable, match="No AWS credentials were found") as found:
        asyncio.run(
            providers.client(
                anthropic, AgentSettings(provider="bedrock", bedrock_region="us-east-1")
            )
        )
    assert "AWS_BEARER_TOKEN_BEDROCK" in str(found.value)


def test_a_bedrock_api_key_needs_no_aws_credentials(
    clean_env: None, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "bedrock-api-key")
    settings = AgentSettings(provider="bedrock", bedrock_region="us-west-2")
    client = asyncio.run(providers.client(anthropic, settings))
    assert isinstance(client, anthropic.AsyncAnthropicBedrock)
    assert (client.aws_region, client.api_key) == ("us-west-2", "bedrock-api-key")


def test_vertex_without_a_region_or_credentials(clean_env: None):
    with pytest.raises(
        providers.Unusable, match=r"set workspaceAgent\.vertex\.region \(or CLOUD_ML_REGION\)"
    ):
        asyncio.run(providers.client(anthropic, AgentSettings(provider="vertex")))
    settings = AgentSettings(provider="vertex", vertex_region="us-east5")
    with pytest.raises(providers.Unusable, match="No Google Cloud credentials were found") as found:
        asyncio.run(providers.client(anthropic, settings))
    assert "GOOGLE_APPLICATION_CREDENTIALS" in str(found.value)


def test_errors_name_the_provider_and_where():
    assert providers.where(AgentSettings()) == "the Anthropic API"
    assert providers.where(AgentSettings(base_url="http://gw")) == "http://gw"
    assert providers.where(AgentSettings(provider="bedrock", bedrock_region="eu-west-3")) == (
        "Amazon Bedrock, eu-west-3"
    )
    vertex = AgentSettings(provider="vertex", vertex_project_id="p", vertex_region="global")
    assert providers.where(vertex) == "Google Vertex AI, p, global"


def test_no_cost_estimate_off_the_anthropic_api():
    usage = Usage(1000, 1000)
    assert estimate_cost("claude-sonnet-4-5", usage) is not None
    assert estimate_cost("claude-sonnet-4-5", usage, "bedrock") is None
    assert estimate_cost("claude-sonnet-4-5@20250929", usage, "vertex") is None


def test_provider_settings_from_the_editor_and_the_environment(tmp_path: Path):
    settings = resolve_settings(
        tmp_path,
        {"provider": "vertex", "vertex": {"projectId": "p1", "region": "us-east5"}},
        {
            "ANTHROPIC_AUTH_TOKEN": "gw-secret-token",
            "ANTHROPIC_CUSTOM_HEADERS": "X-A: 1\nX-B:  two ",
        },
    )
    assert (settings.provider, settings.vertex_project_id, settings.vertex_region) == (
        "vertex",
        "p1",
        "us-east5",
    )
    assert settings.auth_token == "gw-secret-token"
    assert settings.custom_headers == (("X-A", "1"), ("X-B", "two"))
    assert "gw-secret-token" not in repr(settings) and "two" not in repr(settings)
    editor = resolve_settings(
        tmp_path, {"customHeaders": {"X-Gw": "v"}}, {"AWS_REGION": "eu-west-1"}
    )
    assert editor.custom_headers == (("X-Gw", "v"),) and editor.bedrock_region == "eu-west-1"


def test_bad_provider_settings_are_skipped(tmp_path: Path):
    settings = resolve_settings(
        tmp_path, {"provider": "azure", "customHeaders": {"bad header": "x"}}, {}
    )
    assert settings.provider == "anthropic" and settings.custom_headers == ()


def test_a_workspace_env_file_may_not_choose_the_provider(tmp_path: Path):
    (tmp_path / ".env").write_text("WORKSPACE_AGENT_PROVIDER=bedrock\nAWS_REGION=us-east-2\n")
    settings = resolve_settings(tmp_path, {}, {})
    assert settings.provider == "anthropic" and settings.bedrock_region == "us-east-2"

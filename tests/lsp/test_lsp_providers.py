"""The editor's `provider` setting over LSP: a run on Amazon Bedrock and on Google Vertex
AI with the region and project from the editor's settings, through the real SDK clients
to the scripted server's Bedrock, Vertex and OAuth routes (fake accounts, nothing leaves
the machine); what arrived, the answer the editor gets, no cost estimate; and a run that
cannot start names the setting to open."""

from __future__ import annotations

from pathlib import Path

from workspace_agent import protocol as p
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text

from tests.support.client import start_server, start_session
from tests.support.lsp import events_of, run
from tests.support.providers import (
    BEDROCK_MODEL,
    PROJECT,
    VERTEX_MODEL,
    accounts,
    bedrock_env,
    cloud_unset,
    service_account,
    vertex_env,
)
from tests.support.server import server_env


def env_of(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in server_env().items() if k not in cloud_unset()}
    # the provider, region, project and model come from the editor's settings here
    for name in ("WORKSPACE_AGENT_PROVIDER", "AWS_REGION", "CLOUD_ML_REGION", "MODEL_ID"):
        extra.pop(name, None)
    env.update(extra)
    return env


async def session(env: dict[str, str], workspace: Path, api: ScriptedModelServer, **settings):
    client = await start_server(env)
    await start_session(client, workspace, api, settings=settings)
    return client


async def test_a_run_on_bedrock_with_the_region_from_the_editor(
    model: ScriptedModelServer, workspace: Path, tmp_path: Path
):
    model.load(script_of(reply(text("Hello from Bedrock.")), **accounts()))
    client = await session(
        env_of(bedrock_env(model, tmp_path)),
        workspace,
        model,
        provider="bedrock",
        model=BEDROCK_MODEL,
        bedrock={"region": "eu-west-3"},
        customHeaders={"X-Team": "editor"},
    )
    try:
        result = await run(client, "Say hello")
    finally:
        await client.shutdown_session()

    assert result["stopReason"] == "end_turn" and result["text"] == "Hello from Bedrock."
    assert result["cost"] is None  # Bedrock's prices are not Anthropic's list prices
    (end,) = events_of(client, p.EVENT_RUN_END)
    assert end["cost"] is None
    (call,) = model.requests
    assert call.path == f"/model/{BEDROCK_MODEL}/invoke-with-response-stream"
    assert call.rejected is None
    assert "/eu-west-3/bedrock/aws4_request" in call.headers["authorization"]
    assert call.headers["x-team"] == "editor"


async def test_a_run_on_vertex_with_the_project_and_region_from_the_editor(
    model: ScriptedModelServer, workspace: Path, tmp_path: Path
):
    key_file, public = service_account(tmp_path, model, project="project-of-the-key")
    model.load(script_of(reply(text("Hello from Vertex.")), **accounts(public)))
    client = await session(
        env_of(vertex_env(model, key_file, tmp_path)),
        workspace,
        model,
        provider="vertex",
        model=VERTEX_MODEL,
        vertex={"projectId": PROJECT, "region": "europe-west1"},
    )
    try:
        result = await run(client, "Say hello")
    finally:
        await client.shutdown_session()

    assert result["text"] == "Hello from Vertex." and result["cost"] is None
    token, call = model.requests
    assert token.path == "/token" and token.rejected is None
    assert call.path == (
        f"/v1/projects/{PROJECT}/locations/europe-west1/publishers/anthropic/models/"
        f"{VERTEX_MODEL}:streamRawPredict"
    )
    assert call.rejected is None and call.headers["authorization"].startswith("Bearer ya29.")


async def test_vertex_without_a_region_names_the_setting_to_open(
    model: ScriptedModelServer, workspace: Path, tmp_path: Path
):
    key_file, public = service_account(tmp_path, model)
    model.load(script_of(reply(text("never sent")), **accounts(public)))
    client = await session(
        env_of(vertex_env(model, key_file, tmp_path)), workspace, model, provider="vertex"
    )
    try:
        result = await run(client, "Say hello")
    finally:
        await client.shutdown_session()

    assert result["stopReason"] == "error"
    assert "set workspaceAgent.vertex.region (or CLOUD_ML_REGION)" in result["error"]
    assert model.requests == []

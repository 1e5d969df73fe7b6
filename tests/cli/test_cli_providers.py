"""`workspace-agent run` on Amazon Bedrock, Google Vertex AI and a gateway, as a user runs
it: the real SDK clients (AsyncAnthropicBedrock, AsyncAnthropicVertex) over real HTTP to
the scripted server's Bedrock, Vertex and OAuth routes, with fake accounts (nothing
leaves the machine). What arrived (path, model id, signature, token, headers) and what
the terminal shows; the errors that say what to set."""

from __future__ import annotations

import subprocess
from pathlib import Path

from workspace_agent.testing.scripted_model import (
    ScriptedModelServer,
    reply,
    script_of,
    text,
    tool,
)

from tests.support.cli import CLI, cli_env
from tests.support.providers import (
    AWS_KEY,
    BEDROCK_MODEL,
    PROJECT,
    VERTEX_MODEL,
    accounts,
    bedrock_env,
    cloud_unset,
    service_account,
    vertex_env,
)


def run(model: ScriptedModelServer, workspace: Path, env: dict[str, str]):
    full = {k: v for k, v in cli_env(model).items() if k not in cloud_unset()}
    for name in [k for k, v in env.items() if v == ""]:
        full.pop(name, None)
        del env[name]
    full.update(env)
    return subprocess.run(
        [*CLI, "run", "Write notes", "--workspace", str(workspace)],
        env=full,
        capture_output=True,
        text=True,
        timeout=90,
    )


def two_turns(**keys: object) -> dict[str, object]:
    return script_of(
        reply(tool("write_file", {"path": "notes.md", "content": "# Notes\n"})),
        reply(text("Wrote notes.md.")),
        **keys,
    )


def test_bedrock_signs_each_call_and_streams_the_answer(
    model: ScriptedModelServer, workspace: Path, tmp_path: Path
):
    model.load(two_turns(**accounts()))
    done = run(
        model,
        workspace,
        bedrock_env(model, tmp_path, ANTHROPIC_CUSTOM_HEADERS="X-Team: tools"),
    )

    assert done.returncode == 0, done.stderr
    assert "✓ Created notes.md" in done.stdout and "Wrote notes.md." in done.stdout
    assert "■ end_turn" in done.stdout and "estimate" not in done.stdout  # no Anthropic prices
    assert (workspace / "notes.md").read_text() == "# Notes\n"
    calls = model.requests
    assert [r.path for r in calls] == [f"/model/{BEDROCK_MODEL}/invoke-with-response-stream"] * 2
    assert all(r.rejected is None for r in calls)  # SigV4 checked against the secret
    first = calls[0]
    assert (
        first.headers["authorization"].startswith(f"AWS4-HMAC-SHA256 Credential={AWS_KEY}/")
        and "/us-east-1/bedrock/aws4_request" in first.headers["authorization"]
    )
    assert first.headers["x-team"] == "tools"
    assert "model" not in first.body and "stream" not in first.body
    assert isinstance(first.body["anthropic_version"], str)
    assert "x-api-key" not in first.headers  # no Anthropic key goes to AWS


def test_bedrock_with_a_wrong_secret_gets_aws_refusal_and_what_to_check(
    model: ScriptedModelServer, workspace: Path, tmp_path: Path
):
    model.load(two_turns(**accounts()))
    done = run(model, workspace, bedrock_env(model, tmp_path, AWS_SECRET_ACCESS_KEY="wrong"))

    assert done.returncode != 0
    out = done.stdout + done.stderr
    assert "The model API (Amazon Bedrock, us-east-1) refused access (403)" in out
    assert "signature we calculated does not match" in out
    assert "Check the AWS credentials" in out
    assert len(model.requests) == 1  # a 403 is not retried


def test_bedrock_without_credentials_or_region_says_what_to_set(
    model: ScriptedModelServer, workspace: Path, tmp_path: Path
):
    model.load(two_turns(**accounts()))
    env = bedrock_env(model, tmp_path, AWS_ACCESS_KEY_ID="", AWS_SECRET_ACCESS_KEY="")
    done = run(model, workspace, env)
    assert done.returncode != 0
    assert "No AWS credentials were found for Amazon Bedrock" in done.stdout + done.stderr
    assert "AWS_ACCESS_KEY_ID" in done.stdout + done.stderr

    done = run(model, workspace, bedrock_env(model, tmp_path, AWS_REGION=""))
    out = done.stdout + done.stderr
    assert done.returncode != 0
    assert "Amazon Bedrock needs an AWS region: set workspaceAgent.bedrock.region" in out
    assert "AWS_REGION" in out
    assert model.requests == []  # nothing was sent


def test_vertex_gets_a_token_for_its_service_account_and_streams_the_answer(
    model: ScriptedModelServer, workspace: Path, tmp_path: Path
):
    key_file, public = service_account(tmp_path, model)
    model.load(two_turns(**accounts(public)))
    done = run(model, workspace, vertex_env(model, key_file, tmp_path))

    assert done.returncode == 0, done.stderr
    assert "Wrote notes.md." in done.stdout and "estimate" not in done.stdout
    token, *calls = model.requests
    assert token.path == "/token" and token.rejected is None  # RS256 checked
    assert token.body == {"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer"}
    where = f"/v1/projects/{PROJECT}/locations/us-east5/publishers/anthropic/models/{VERTEX_MODEL}"
    assert [r.path for r in calls] == [f"{where}:streamRawPredict"] * 2
    assert all(r.rejected is None for r in calls)
    assert calls[0].headers["authorization"] == "Bearer ya29.scripted-0001"
    assert "model" not in calls[0].body and calls[0].body["stream"] is True


def test_vertex_without_a_region_or_a_project_says_what_to_set(
    model: ScriptedModelServer, workspace: Path, tmp_path: Path
):
    key_file, public = service_account(tmp_path, model, project=None)
    model.load(two_turns(**accounts(public)))
    done = run(model, workspace, vertex_env(model, key_file, tmp_path))
    out = done.stdout + done.stderr
    assert done.returncode != 0
    assert "Google Vertex AI needs a project: set workspaceAgent.vertex.projectId" in out
    assert "ANTHROPIC_VERTEX_PROJECT_ID" in out

    done = run(model, workspace, vertex_env(model, key_file, tmp_path, CLOUD_ML_REGION=""))
    out = done.stdout + done.stderr
    assert "Google Vertex AI needs a region: set workspaceAgent.vertex.region" in out
    assert "CLOUD_ML_REGION" in out
    assert model.requests == []


def test_vertex_whose_key_google_does_not_know_says_so(
    model: ScriptedModelServer, workspace: Path, tmp_path: Path
):
    key_file, _ = service_account(tmp_path, model)
    _, other = service_account(tmp_path / "..", model)  # the script knows another key
    model.load(two_turns(**accounts(other)))
    done = run(model, workspace, vertex_env(model, key_file, tmp_path))
    out = done.stdout + done.stderr

    assert done.returncode != 0
    assert "Google Cloud did not give an access token for Vertex AI" in out
    assert "Invalid JWT Signature" in out and "GOOGLE_APPLICATION_CREDENTIALS" in out
    assert [r.path for r in model.requests] == ["/token"]


def test_with_both_a_key_and_a_token_the_run_uses_the_key_and_says_so(
    model: ScriptedModelServer, workspace: Path
):
    """The user's ANTHROPIC_API_KEY beside a workspace .env holding a gateway's token:
    anthropic 2.17 refuses a client given both (a traceback before), so the key is used,
    the token goes nowhere, and one line says which."""
    (workspace / ".env").write_text("ANTHROPIC_AUTH_TOKEN=project-token-456\n")
    model.load(two_turns())
    done = run(model, workspace, {"ANTHROPIC_API_KEY": "sk-user-key-789"})

    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "ValueError" not in done.stderr
    assert "Wrote notes.md." in done.stdout
    said = done.stdout + done.stderr
    assert (
        "Both ANTHROPIC_API_KEY (the environment) and ANTHROPIC_AUTH_TOKEN (the workspace's "
        ".env file) are set: the API key is used and the token is left out" in said
    )
    sent = [value for r in model.requests for value in r.headers.values()]
    assert any("sk-user-key-789" in value for value in sent)
    assert not any("project-token-456" in value for value in sent)


def test_a_gateway_gets_the_bearer_token_and_the_custom_headers(
    model: ScriptedModelServer, workspace: Path
):
    model.load(two_turns())
    done = run(
        model,
        workspace,
        {
            "ANTHROPIC_API_KEY": "",
            "ANTHROPIC_AUTH_TOKEN": "gateway-token-123",
            "ANTHROPIC_CUSTOM_HEADERS": "X-Team: tools\nX-Route: eu",
        },
    )

    assert done.returncode == 0, done.stderr
    assert "Wrote notes.md." in done.stdout
    first = model.requests[0]
    assert first.path == "/v1/messages"
    assert first.headers["authorization"] == "Bearer gateway-token-123"
    assert "x-api-key" not in first.headers
    assert (first.headers["x-team"], first.headers["x-route"]) == ("tools", "eu")

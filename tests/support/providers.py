"""Fake cloud accounts for the provider tests: AWS keys the scripted server checks SigV4
signatures with, a Google service-account key file (a fresh RSA key, `token_uri` at the
scripted server) whose assertions it verifies, and an environment in which the SDKs find
only these: no AWS or gcloud config of the machine, no instance-metadata lookups (AWS
IMDS, the GCE metadata server), so nothing leaves the machine."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from workspace_agent.testing.scripted_model import ScriptedModelServer

AWS_KEY = "AKIASCRIPTEDTEST0001"
AWS_SECRET = "scripted/secret/not/a/real/key/0123456789"
SERVICE_ACCOUNT = "agent-tests@scripted-project.iam.gserviceaccount.com"
PROJECT = "scripted-project"
BEDROCK_MODEL = "anthropic.claude-sonnet-4-5-20250929-v1:0"
VERTEX_MODEL = "claude-sonnet-4-5@20250929"


def isolated_env(home: Path) -> dict[str, str]:
    """Variables that keep both SDKs' credential chains to what a test gives them."""
    return {
        "AWS_CONFIG_FILE": str(home / "no-aws-config"),
        "AWS_SHARED_CREDENTIALS_FILE": str(home / "no-aws-credentials"),
        "AWS_EC2_METADATA_DISABLED": "true",
        "CLOUDSDK_CONFIG": str(home / "no-gcloud"),
        "GCE_METADATA_HOST": "127.0.0.1:9",
        "GCE_METADATA_IP": "127.0.0.1:9",
        "NO_GCE_CHECK": "True",
    }


def cloud_unset() -> tuple[str, ...]:
    """The machine's variables a provider test must not inherit."""
    return (
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AWS_PROFILE",
        "AWS_REGION",
        "AWS_DEFAULT_REGION",
        "AWS_BEARER_TOKEN_BEDROCK",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "CLOUD_ML_REGION",
        "WORKSPACE_AGENT_PROVIDER",
    )


def service_account(folder: Path, model: ScriptedModelServer, project: str | None = PROJECT):
    """Write a service-account key file whose `token_uri` is the scripted server's token
    endpoint; returns (its path, the public key's PEM for the script)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    public = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    info: dict[str, Any] = {
        "type": "service_account",
        "private_key_id": "scripted-key-1",
        "private_key": private,
        "client_email": SERVICE_ACCOUNT,
        "client_id": "100000000000000000001",
        "token_uri": f"{model.url}/token",
    }
    if project:
        info["project_id"] = project
    path = folder / "service-account.json"
    path.write_text(json.dumps(info), encoding="utf-8")
    return path, public


def accounts(public_key: str | None = None) -> dict[str, Any]:
    """Script keys: the AWS key the server knows, and the service account's public key."""
    keys: dict[str, Any] = {"aws_credentials": {AWS_KEY: AWS_SECRET}}
    if public_key:
        keys["google_public_keys"] = {SERVICE_ACCOUNT: public_key}
    return keys


def bedrock_env(model: ScriptedModelServer, home: Path, **extra: str) -> dict[str, str]:
    return {
        **isolated_env(home),
        "WORKSPACE_AGENT_PROVIDER": "bedrock",
        "ANTHROPIC_BEDROCK_BASE_URL": model.url,
        "AWS_ACCESS_KEY_ID": AWS_KEY,
        "AWS_SECRET_ACCESS_KEY": AWS_SECRET,
        "AWS_REGION": "us-east-1",
        "MODEL_ID": BEDROCK_MODEL,
        **extra,
    }


def vertex_env(model: ScriptedModelServer, key_file: Path, home: Path, **extra: str):
    return {
        **isolated_env(home),
        "WORKSPACE_AGENT_PROVIDER": "vertex",
        "ANTHROPIC_VERTEX_BASE_URL": f"{model.url}/v1",
        "GOOGLE_APPLICATION_CREDENTIALS": str(key_file),
        "CLOUD_ML_REGION": "us-east5",
        "MODEL_ID": VERTEX_MODEL,
        **extra,
    }

"""Lean start-up with the cloud extras installed: a run on the Anthropic API builds its
client without importing boto3, botocore or google-auth (a fresh interpreter, since
other tests of this process may have imported them)."""

from __future__ import annotations

import subprocess
import sys

CODE = """
import asyncio, sys, anthropic
from workspace_agent.agent import providers
from workspace_agent.config import AgentSettings
for name in ("boto3", "google.auth"):
    assert providers._installed(name), name  # installed, so not imported only by absence
asyncio.run(providers.client(anthropic, AgentSettings(api_key="k")))
print(sorted(m for m in ("boto3", "botocore", "google.auth") if m in sys.modules))
"""


def test_the_anthropic_api_imports_no_cloud_sdk():
    done = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "[]", done.stderr

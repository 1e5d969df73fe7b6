"""The anthropic SDK's import runs in a background thread (agent/preload.py), and the
first request waits for it without stopping the event loop. Each check runs in a fresh
interpreter, where the SDK is not loaded yet."""

from __future__ import annotations

import json
import subprocess
import sys

LOOP_FREE = """
import asyncio, json, time
from workspace_agent.agent.model import AnthropicModel
from workspace_agent.config import AgentSettings
from workspace_agent.testing.scripted_model import ScriptedModelServer, reply, script_of, text

async def main(url):
    gaps, stop = [], False
    async def tick():
        last = time.monotonic()
        while not stop:
            await asyncio.sleep(0.005)
            now = time.monotonic()
            gaps.append(now - last)
            last = now
    ticker = asyncio.create_task(tick())
    await asyncio.sleep(0.05)
    started = time.monotonic()
    model = AnthropicModel(AgentSettings(api_key="k", base_url=url, max_retries=0))
    turn = await model.respond(
        system="s", tools=[], on_text=lambda _: None, on_retry=lambda *a: None,
        messages=[{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
    )
    stop = True
    await ticker
    return turn.text, time.monotonic() - started, max(gaps)

with ScriptedModelServer(script_of(reply(text("answered")))) as server:
    print(json.dumps(asyncio.run(main(server.url))))
"""


def probe(code: str) -> list:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    return json.loads(done.stdout.splitlines()[-1])


def test_the_first_request_waits_for_the_import_without_stopping_the_event_loop():
    answer, first_answer_seconds, longest_stall = probe(LOOP_FREE)
    assert answer == "answered"
    # The first answer takes as long as the import (0.8 s and more here); importing on
    # the event loop stalled it for nearly all of that.
    assert longest_stall < first_answer_seconds / 2, (longest_stall, first_answer_seconds)


REST_LATER = """
import asyncio, json, sys, time
from workspace_agent.agent import preload

async def main(answer):
    preload.IDLE_SECONDS = 30.0 if answer else 0.2
    await preload.sdk()
    loaded_with_the_sdk = "jsonschema" in sys.modules
    await asyncio.sleep(0.3)
    before_the_answer = "jsonschema" in sys.modules
    if answer:
        preload.request_answered()
    deadline = time.monotonic() + 20
    while "jsonschema" not in sys.modules and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    return [loaded_with_the_sdk, before_the_answer, "jsonschema" in sys.modules]

print(json.dumps(asyncio.run(main(ANSWER))))
"""


def test_what_only_a_tool_call_needs_is_imported_once_the_first_request_is_answered():
    # jsonschema (input validation) competed with the first request for the GIL; it now
    # waits for the answer, then loads while the model writes.
    assert probe(REST_LATER.replace("ANSWER", "True")) == [False, False, True]


def test_a_server_that_gets_no_request_imports_the_rest_once_idle():
    assert probe(REST_LATER.replace("ANSWER", "False")) == [False, True, True]

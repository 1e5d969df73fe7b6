"""Every status the Messages API documents gets a plain sentence that says what to do
(agent/api_status.py), through model.describe_api_error as the user reads it."""

from __future__ import annotations

import importlib
from typing import Any

import anthropic
import pytest

from workspace_agent.agent.api_status import STATUS_WORDS
from workspace_agent.agent.model import describe_api_error
from workspace_agent.config import AgentSettings


def _http() -> Any:
    """The SDK's HTTP library: httpx2 in newer SDKs, httpx before."""
    try:
        return importlib.import_module("httpx2")
    except ImportError:
        return importlib.import_module("httpx")


http = _http()
DOCUMENTED = (400, 401, 402, 403, 404, 413, 429, 500, 504, 529)


def api_error(status: int, message: str, kind: str = "error") -> anthropic.APIStatusError:
    request = http.Request("POST", "https://api.anthropic.com/v1/messages")
    response = http.Response(status, request=request)
    body = {"type": "error", "error": {"type": kind, "message": message}}
    return anthropic.APIStatusError(message, response=response, body=body)


def test_every_documented_status_has_words():
    assert set(DOCUMENTED) <= set(STATUS_WORDS)


def test_529_is_anthropics_load_not_the_users_setup():
    said = describe_api_error(api_error(529, "Overloaded"), AgentSettings())
    assert said == (
        "Anthropic's API is overloaded (529); this is not your setup. Retry, or try again in "
        'a minute. The API said "Overloaded".'
    )


def test_529_of_another_endpoint_names_it():
    settings = AgentSettings(base_url="http://127.0.0.1:9")
    said = describe_api_error(api_error(529, "Overloaded"), settings)
    assert said.startswith("The model API (http://127.0.0.1:9) is overloaded (529); this")


@pytest.mark.parametrize(
    ("status", "words"),
    [
        (400, "refused the request as invalid (400). If it names a setting"),
        (402, "refused the request for billing (402). Check the account's plan"),
        (413, "is too large for the model API (the Anthropic API) (413): it takes "
         "at most 32 MB. Attach fewer or smaller images or files, or start a new session"),
        (429, "is rate limiting requests (429): the account hit its rate or spend "
         "limit. Wait a minute and Retry."),
        (500, "had an internal error (500); this is not your setup. Retry"),
        (504, "timed out while answering (504); this is not your setup. Retry"),
    ],
)  # fmt: skip
def test_each_status_says_what_to_do(status: int, words: str):
    said = describe_api_error(api_error(status, "bad field."), AgentSettings())
    assert words in said and said.endswith('. The API said "bad field".')


def test_a_streams_error_event_is_known_by_its_type():
    said = describe_api_error(api_error(200, "Overloaded", "overloaded_error"), AgentSettings())
    assert said.startswith("Anthropic's API is overloaded (529); this")


def test_an_undocumented_status_keeps_the_apis_own_words():
    said = describe_api_error(api_error(503, "still unavailable"), AgentSettings())
    assert said == "The model API (the Anthropic API) answered 503: still unavailable"

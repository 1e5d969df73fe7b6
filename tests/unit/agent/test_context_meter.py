"""The context meter's figure and words (agent/context_meter.py), and the CLI's status
line that shows it."""

from __future__ import annotations

import io

import pytest

from workspace_agent import protocol as p
from workspace_agent.agent.context_meter import context_fields, context_meter, tokens_short
from workspace_agent.cli.terminal import TerminalRenderer


@pytest.mark.parametrize(
    ("n", "said"),
    [(0, "0"), (999, "999"), (1000, "1 k"), (62_400, "62 k"), (200_000, "200 k"),
     (1_000_000, "1 M"), (1_500_000, "1.5 M")],
)  # fmt: skip
def test_counts_are_short(n: int, said: str):
    assert tokens_short(n) == said


def test_the_fields_say_the_figure_the_threshold_and_what_compact_does():
    fields = context_fields(62_400, 200_000)
    assert {k: fields[k] for k in ("used", "window", "compactAt", "near", "label")} == {
        "used": 62_400,
        "window": 200_000,
        "compactAt": 160_000,
        "near": False,
        "label": "62 k / 200 k",
    }
    assert fields["detail"] == (
        "Context: 62,400 of 200,000 tokens (31%), as the last request used. From 80% "
        "(160,000 tokens) the conversation is compacted before the next request: old tool "
        "results become short stubs, then the oldest turns one summary. /compact does it now."
    )


def test_the_notification_is_the_fields_for_one_session():
    assert context_meter("s1", 62_400, 200_000) == {
        "sessionId": "s1",
        **context_fields(62_400, 200_000),
    }


def test_near_from_seventy_percent():
    assert context_fields(139_999, 200_000)["near"] is False
    assert context_fields(140_000, 200_000)["near"] is True


def test_the_cli_shows_the_meter_on_the_runs_last_line():
    out = io.StringIO()
    terminal = TerminalRenderer(out, color=False)
    usage = {"inputTokens": 10, "outputTokens": 5, "cacheReadTokens": 0, "cacheWriteTokens": 0}
    terminal.on_event("s1", p.EVENT_RUN_END, {"stopReason": "end_turn", "usage": usage})
    terminal.on_context("s1", context_meter("s1", 62_400, 200_000))
    terminal.on_event("s1", p.EVENT_RUN_END, {"stopReason": "end_turn", "usage": usage})
    first, second = out.getvalue().splitlines()
    assert "context" not in first  # no request measured yet
    assert second == "■ end_turn · 10 input / 5 output tokens · context 62 k / 200 k"

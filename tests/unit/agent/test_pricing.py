"""The estimated cost of a run: the price table's lookups and the arithmetic."""

from __future__ import annotations

import pytest

from workspace_agent.agent.pricing import PRICES, Price, estimate_cost, price_of
from workspace_agent.protocol import Usage


@pytest.mark.parametrize(
    ("model", "price"),
    [
        ("claude-sonnet-4-5", Price(3, 15)),
        ("claude-sonnet-4-5-20250929", Price(3, 15)),
        ("claude-sonnet-4-20250514", Price(3, 15)),
        ("claude-3-7-sonnet-latest", Price(3, 15)),
        ("claude-opus-4-5-20251101", Price(5, 25)),  # not Opus 4's 15/75
        ("claude-opus-4-1", Price(15, 75)),
        ("claude-opus-4-20250514", Price(15, 75)),
        ("claude-haiku-4-5", Price(1, 5)),
        ("claude-3-5-haiku-20241022", Price(0.8, 4)),
        # The server's default model: Sonnet 5 and 5.5 cost less than every Sonnet before.
        ("claude-sonnet-5-5", Price(2, 10)),
        ("claude-sonnet-5", Price(2, 10)),
        ("claude-opus-5", Price(5, 25)),
        ("claude-opus-4-7", Price(5, 25)),
    ],
)
def test_known_models_have_their_list_price(model: str, price: Price):
    assert price_of(model) == price


@pytest.mark.parametrize(
    "model",
    [
        "claude-opus-5-5",  # cache prices not checked
        "claude-haiku-5-5",  # priced by each request's prompt length
        "claude-sonnet-6",  # a newer Sonnet: prices changed with Sonnet 5, no guess
        "claude-haiku-5",
        "scripted-model",
        "gpt-4o",
        "",
        "claude-opus-4-1x",
    ],
)
def test_unknown_models_get_no_price_rather_than_a_guess(model: str):
    assert price_of(model) is None
    assert estimate_cost(model, Usage(1000, 1000)) is None


def test_every_token_kind_is_priced_as_the_api_bills_it():
    usage = Usage(
        input_tokens=1_000_000,
        output_tokens=1_000_000,
        cache_write_tokens=1_000_000,
        cache_read_tokens=1_000_000,
    )
    # Sonnet: $3 input, $15 output, writes 1.25 x input, reads 0.1 x input.
    assert estimate_cost("claude-sonnet-4-5", usage) == {
        "usd": pytest.approx(3 + 15 + 3.75 + 0.3),
        "model": "claude-sonnet-4-5",
    }
    assert estimate_cost("claude-sonnet-4-5", Usage()) == {"usd": 0.0, "model": "claude-sonnet-4-5"}


def test_small_runs_keep_their_cents():
    cost = estimate_cost("claude-haiku-4-5", Usage(input_tokens=1234, output_tokens=56))
    assert cost is not None
    assert cost["usd"] == pytest.approx((1234 * 1 + 56 * 5) / 1_000_000)


def test_table_prices_are_positive_and_output_costs_more():
    for model, price in PRICES.items():
        assert 0 < price.input < price.output, model

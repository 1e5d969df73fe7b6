"""What a run probably cost: the models' list prices in one table, and usage priced by it.

The prices are ESTIMATES: Anthropic's published list prices per million tokens, copied
here by hand (they change, and discounts, batch pricing, taxes and other providers behind
`baseUrl` are not known to the server). A model that is not in the table gets no cost at
all rather than a guess; front ends say "estimate" next to every number from here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..protocol import Usage

if TYPE_CHECKING:
    from .. import contract

CACHE_WRITE_FACTOR = 1.25
"""A prompt-cache write (5-minute cache, what the server asks for) costs 1.25x input."""
CACHE_READ_FACTOR = 0.1
"""A prompt-cache read costs a tenth of input."""
WEB_SEARCH_USD = 10 / 1000
"""The web search server tool's list price: $10 per 1,000 searches, beside the tokens."""


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens."""

    input: float
    output: float

    def of(self, usage: Usage) -> float:
        per_token_input = self.input / 1_000_000
        return (
            usage.input_tokens * per_token_input
            + usage.cache_write_tokens * per_token_input * CACHE_WRITE_FACTOR
            + usage.cache_read_tokens * per_token_input * CACHE_READ_FACTOR
            + usage.output_tokens * self.output / 1_000_000
            + usage.web_searches * WEB_SEARCH_USD
        )


PRICES: dict[str, Price] = {
    # Model ids as the Messages API takes them; a dated id (`-20250514`) or `-latest`
    # after one of these names has the same price. Checked against the model pages of
    # platform.claude.com/docs (Models & pricing) on 2026-12-01; every model here bills
    # cache writes at 1.25x and cache reads at 0.1x its input price.
    "claude-opus-5": Price(5, 25),
    "claude-opus-4-8": Price(5, 25),
    "claude-opus-4-7": Price(5, 25),
    "claude-opus-4-6": Price(5, 25),
    "claude-opus-4-5": Price(5, 25),
    "claude-opus-4-1": Price(15, 75),
    "claude-opus-4-0": Price(15, 75),
    "claude-opus-4": Price(15, 75),
    "claude-3-opus": Price(15, 75),
    "claude-sonnet-5-5": Price(2, 10),
    "claude-sonnet-5": Price(2, 10),
    "claude-sonnet-4-5": Price(3, 15),
    "claude-sonnet-4-0": Price(3, 15),
    "claude-sonnet-4": Price(3, 15),
    "claude-3-7-sonnet": Price(3, 15),
    "claude-3-5-sonnet": Price(3, 15),
    "claude-haiku-4-5": Price(1, 5),
    "claude-3-5-haiku": Price(0.8, 4),
    "claude-3-haiku": Price(0.25, 1.25),
    # Not here, so not estimated: models whose cache prices break the 1.25x / 0.1x rule
    # or that were not checked (Opus 5.5, Fable, Mythos), and Haiku 5.5, whose price
    # depends on each request's prompt length, which a run's summed usage does not keep.
}

_SUFFIX = re.compile(r"(-\d{8}|-latest)?")


def price_of(model: str) -> Price | None:
    """The list price of `model`, or None when the table does not know it."""
    for name, price in PRICES.items():
        if model.startswith(name) and _SUFFIX.fullmatch(model[len(name) :]):
            return price
    return None


def estimate_cost(
    model: str, usage: Usage, provider: str = "anthropic"
) -> contract.CostEstimate | None:
    """The wire form of a run's estimated cost (`{usd, model}`), or None (no price known).
    Bedrock and Vertex AI bill at their own prices, by region and contract, which this
    table does not know: their runs get None, never Anthropic's list price."""
    if provider != "anthropic":
        return None
    price = price_of(model)
    if price is None:
        return None
    return {"usd": round(price.of(usage), 6), "model": model}


def run_cost(
    model: str,
    usage: Usage,
    apart: Sequence[tuple[str, Usage]] = (),
    provider: str = "anthropic",
) -> contract.CostEstimate | None:
    """A run's estimated cost, `apart` the parts of `usage` made on another model (its
    subagents'), each priced at its model's price; None when one price is not known."""
    own = Usage(
        usage.input_tokens - sum(u.input_tokens for _m, u in apart),
        usage.output_tokens - sum(u.output_tokens for _m, u in apart),
        usage.cache_write_tokens - sum(u.cache_write_tokens for _m, u in apart),
        usage.cache_read_tokens - sum(u.cache_read_tokens for _m, u in apart),
        usage.web_searches - sum(u.web_searches for _m, u in apart),
    )
    parts = [estimate_cost(model, own, provider)]
    parts += [estimate_cost(other, part, provider) for other, part in apart]
    if any(part is None for part in parts):
        return None
    return {"usd": round(sum(part["usd"] for part in parts if part), 6), "model": model}

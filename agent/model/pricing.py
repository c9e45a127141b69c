"""What a run cost: a small price table for known models (USD per million tokens).

Anthropic's list prices (OpenRouter charges the same for these models): input, output, cache write
(5-minute TTL, 1.25x input) and cache read (0.1x input); each search of the provider's web search
costs $0.01 more. A model not in the table has no cost: we report null rather than guess. Update
the table when prices change.
"""

from __future__ import annotations

from agent.conversation import Usage

# model: (input, output, cache write, cache read), USD per million tokens
PRICES_PER_MTOK: dict[str, tuple[float, float, float, float]] = {
    "claude-haiku-4-5": (1.00, 5.00, 1.25, 0.10),
    "claude-sonnet-4-5": (3.00, 15.00, 3.75, 0.30),
    "claude-opus-4-5": (5.00, 25.00, 6.25, 0.50),
}


WEB_SEARCH_USD = 0.01  # one search of the provider's web search ($10 per 1,000), as Claude Code adds it


def price_key(model: str) -> str:
    """The table key for a provider's model id: `anthropic/claude-haiku-4.5` -> `claude-haiku-4-5`."""
    return model.removeprefix("anthropic/").replace(".", "-")


def cost_usd(model: str, usage: Usage) -> float | None:
    """The cost of `usage` on `model`, or None when the model's price is unknown."""
    prices = PRICES_PER_MTOK.get(price_key(model))
    if prices is None:
        return None
    counts = (usage.input_tokens, usage.output_tokens, usage.cache_write_tokens, usage.cache_read_tokens)
    tokens = sum(count * price for count, price in zip(counts, prices)) / 1_000_000
    return round(tokens + usage.web_search_requests * WEB_SEARCH_USD, 6)


def total_cost_usd(usage_by_model: dict[str, Usage]) -> float | None:
    """The cost of a run that used several models; None if any of them has no known price."""
    costs = [cost_usd(model, usage) for model, usage in usage_by_model.items()]
    if any(cost is None for cost in costs):
        return None
    return round(sum(costs), 6)

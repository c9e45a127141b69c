"""--max-budget-usd: what a run may spend, checked before each request against the cost of every
request so far (the main conversation's and every subagent's, priced by `agent.model.pricing`).

A budget that cannot be checked is treated as spent (fail closed): a run whose main or fallback
model has no known price is refused before any request (`unpriced`), and a request answered by a
model without a price (a subagent's) stops the run before the next one, with one warning.
"""

from __future__ import annotations

import logging
import math
import threading

from agent.conversation import Usage
from agent.model.pricing import cost_usd

log = logging.getLogger("agent")


class BudgetError(ValueError):
    """A --max-budget-usd value that is not a number greater than 0."""


def parse_usd(text: str) -> float:
    """The amount of `--max-budget-usd TEXT`, or BudgetError in Claude Code's words."""
    try:
        amount = float(text)
    except ValueError:
        amount = math.nan
    if not (math.isfinite(amount) and amount > 0):
        raise BudgetError(f"option '--max-budget-usd <amount>' argument '{text}' is invalid. "
                          "--max-budget-usd must be a number greater than 0")
    return amount


def usd_text(amount: float) -> str:
    """An amount as Claude Code prints a number: `0.05`, `2` (not `2.0`)."""
    return str(int(amount)) if amount.is_integer() and abs(amount) < 1e15 else repr(amount)


def unpriced(models: list[str]) -> list[str]:
    """The models of `models` whose price is not known, so no budget can be checked for them."""
    return [model for model in dict.fromkeys(models) if cost_usd(model, Usage()) is None]


class Budget:
    """The most a run may spend, in USD. `exhausted(client)` says whether it must send no more
    requests; `limit_text` is the amount as the messages print it."""

    def __init__(self, limit_usd: float) -> None:
        self.limit_usd = limit_usd
        self.limit_text = usd_text(limit_usd)
        self._warned = False
        self._lock = threading.Lock()  # subagents check it from their threads

    def exhausted(self, client) -> bool:
        """Whether the run's cost so far (`client.usage_so_far()`) has reached the limit, or cannot
        be known: a model without a price answered (said once, on stderr)."""
        costs = {model: cost_usd(model, used) for model, used in client.usage_so_far().items()}
        unknown = [model for model, cost in costs.items() if cost is None]
        if unknown:
            with self._lock:
                warn, self._warned = not self._warned, True
            if warn:
                log.warning("--max-budget-usd: no price is known for %s, so what the run spends cannot be checked "
                            "against the budget; it stops here", ", ".join(unknown))
            return True
        return sum(costs.values()) >= self.limit_usd

"""How long a reply may be: each model's output limit (`max_tokens`), the extended-thinking
budget, and the context window an error names.

A small table gives known models' maximum output and context window. A request asks for the
model's maximum up to Claude Code's default of 32,000 tokens (a non-streamed reply that long
already takes minutes); a model not in the table gets 4,096, which every model we know accepts
(8,192 is too many for some: "max_tokens: 8192 > 4096"). Claude Code's variables change it:
CLAUDE_CODE_MAX_OUTPUT_TOKENS sets the limit (never above a known model's maximum), and
MAX_THINKING_TOKENS (or --max-thinking-tokens, which wins) turns extended thinking on with that
budget. A model with adaptive thinking takes no budget: it decides how much to think, so a budget
only says that thinking is on, and is not checked against its output limit.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from agent.errors import UsageError
from agent.model.pricing import price_key

log = logging.getLogger("agent")
OUTPUT_VARIABLE = "CLAUDE_CODE_MAX_OUTPUT_TOKENS"
THINKING_VARIABLE = "MAX_THINKING_TOKENS"
DEFAULT_CAP = 32_000  # Claude Code's default output limit
UNKNOWN_MODEL_OUTPUT = 4_096
MIN_THINKING_BUDGET = 1_024  # the smallest budget the Messages API accepts

# model (longest matching prefix wins, dated ids included): (maximum output tokens, context window)
MODELS: dict[str, tuple[int, int]] = {
    "claude-opus-4-5": (64_000, 200_000),
    "claude-sonnet-4-5": (64_000, 200_000),
    "claude-haiku-4-5": (64_000, 200_000),
    "claude-opus-4-1": (32_000, 200_000),
    "claude-opus-4": (32_000, 200_000),
    "claude-sonnet-4": (64_000, 200_000),
    "claude-3-7-sonnet": (64_000, 200_000),
    "claude-3-5-sonnet": (8_192, 200_000),
    "claude-3-5-haiku": (8_192, 200_000),
    "claude-3-opus": (4_096, 200_000),
    "claude-3-haiku": (4_096, 200_000),
    "openai/gpt-4o": (16_384, 128_000),
}
# The models whose thinking is adaptive (`{"type": "adaptive"}`, no budget), as Claude Code 2.1.332 sends it.
ADAPTIVE_THINKING = ("claude-opus-4-6", "claude-sonnet-4-6", "claude-opus-4-7", "claude-opus-5-5", "claude-sonnet-5-5",
                     "claude-haiku-5-5")


def model_entry(table, model: str):
    """The entry of `table` (model prefix -> value, or a collection of prefixes) for `model`, its
    longest matching prefix winning (dated and OpenRouter ids included); None when none matches."""
    key = price_key(model)
    matches = [prefix for prefix in table if key == prefix or key.startswith(prefix + "-")]
    if not matches:
        return None
    prefix = max(matches, key=len)
    return table[prefix] if isinstance(table, dict) else prefix


def adaptive_thinking(model: str) -> bool:
    """Whether `model` thinks adaptively (it takes no thinking budget)."""
    return model_entry(ADAPTIVE_THINKING, model) is not None


def known_model(model: str) -> tuple[int, int] | None:
    """(maximum output, context window) of `model`, or None when it is not in the table."""
    return model_entry(MODELS, model)


def context_window(model: str) -> int | None:
    """The context window of `model` in tokens, when known."""
    known = known_model(model)
    return known[1] if known else None


@dataclass(frozen=True)
class Limits:
    """The run's output settings (the CLI reads and checks both variables with all the others)."""

    max_output: int | None = None  # CLAUDE_CODE_MAX_OUTPUT_TOKENS, if set
    thinking_budget: int = 0  # MAX_THINKING_TOKENS: 0 (off) or at least MIN_THINKING_BUDGET
    thinking_source: str = THINKING_VARIABLE  # where the budget came from, as an error names it
    _warned: set[str] = field(default_factory=set, compare=False, repr=False)  # models told thinking is off

    def max_tokens(self, model: str) -> int:
        """The output limit a request for `model` asks for."""
        known = known_model(model)
        if self.max_output is not None:
            return min(self.max_output, known[0]) if known else self.max_output
        return min(known[0], DEFAULT_CAP) if known else UNKNOWN_MODEL_OUTPUT

    def thinking(self, model: str, strict: bool = True) -> int:
        """The thinking budget for `model` (0: off). It must leave room for an answer: a budget at
        or above the output limit is a usage error, or, not `strict` (a subagent's or a switched-to
        model, mid-run), thinking off for that model with one warning. An adaptive model's budget is
        returned unchecked: it is never sent."""
        limit = self.max_tokens(model)
        if self.thinking_budget and self.thinking_budget >= limit and not adaptive_thinking(model):
            problem = (f"{self.thinking_source} ({self.thinking_budget}) must be below the output limit for {model} "
                       f"({limit} tokens)")
            if strict:
                raise UsageError(f"{problem}; lower it or raise {OUTPUT_VARIABLE}")
            if model not in self._warned:
                self._warned.add(model)
                log.warning(f"{problem}: {model} runs without extended thinking")
            return 0
        return self.thinking_budget

    def default_budget(self, model: str) -> int:
        """The budget thinking turned on without one (`--thinking enabled`) gets, as Claude Code
        gives it: all of the output limit but one token (0 when that is below the API's minimum)."""
        budget = self.max_tokens(model) - 1
        return budget if budget >= MIN_THINKING_BUDGET else 0

"""How hard each request asks the model to think, from the run's flags, as Claude Code 2.1.332
asks it: `--effort` (only on models with an effort control, each level clamped to the ones the
model takes), thinking on, off or adaptive (`--max-thinking-tokens`, `--thinking`,
`--thinking-display`), `--task-budget` and `--betas`. `Shaping.options(model, limits)` settles them
for one request's model (subagents may use other models), as `wire.options.RequestOptions`."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from agent.model.limits import Limits, adaptive_thinking, model_entry
from agent.model.wire.options import RequestOptions

log = logging.getLogger("agent")

EFFORT_LEVELS = ("low", "medium", "high", "xhigh", "max")
# model (longest matching prefix wins) -> the effort levels it takes; a model not here has no effort control
EFFORT_MODELS: dict[str, tuple[str, ...]] = {
    "claude-opus-4-5": ("low", "medium", "high"),
    "claude-opus-4-6": ("low", "medium", "high", "max"),
    "claude-sonnet-4-6": ("low", "medium", "high", "max"),
    "claude-opus-4-7": EFFORT_LEVELS,
    "claude-opus-5-5": EFFORT_LEVELS,
    "claude-sonnet-5-5": EFFORT_LEVELS,
    "claude-haiku-5-5": EFFORT_LEVELS,
}
SESSION_EFFORT = "session"  # an agent's effort that is the run's own (--effort, CLAUDE_CODE_EFFORT_LEVEL)
THINKING_MODES = ("adaptive", "enabled", "disabled")  # the Agent SDK's ThinkingConfig types
DISPLAYS = ("summarized", "omitted", "highlights")  # --thinking-display, as Claude Code takes it
ALLOWED_BETAS = ("context-1m-2025-08-07",)  # the only beta Claude Code 2.1.332 lets --betas send


def effort_level(value: str | None) -> str | None:
    """The --effort level `value` names (any case), or None: an unknown level is Claude Code's
    warning, and the run goes on without one."""
    if value is None:
        return None
    level = value.strip().lower()
    if level in EFFORT_LEVELS:
        return level
    log.warning(f"Unknown --effort value '{value}' — ignoring it and using the default effort. "
                f"Valid values: {', '.join(EFFORT_LEVELS)}.")
    return None


def model_effort(model: str, level: str | None) -> str | None:
    """The effort a request for `model` sends at `level`: None for a model without an effort
    control, else the level, or the highest one the model takes below it (max is high on opus 4.5)."""
    levels = model_entry(EFFORT_MODELS, model) if level else None
    if not levels:
        return None
    if level in levels:
        return level
    below = [taken for taken in levels if EFFORT_LEVELS.index(taken) < EFFORT_LEVELS.index(level)]
    return below[-1] if below else levels[0]


def allowed_betas(value: str | None) -> tuple[str, ...]:
    """The betas of a --betas value (names separated by commas or spaces) that Claude Code sends;
    each other one is its warning, and is left out."""
    names = (value or "").replace(",", " ").split()
    for name in names:
        if name not in ALLOWED_BETAS:
            log.warning(f"Beta header '{name}' is not allowed. Only the following betas are supported: "
                        f"{', '.join(ALLOWED_BETAS)}")
    return tuple(dict.fromkeys(name for name in names if name in ALLOWED_BETAS))


@dataclass(frozen=True)
class Shaping:
    """The run's flags that shape every request (all off by default: nothing extra is sent)."""

    effort: str | None = None  # a level of EFFORT_LEVELS (see effort_level)
    thinking: str | None = None  # --thinking: adaptive, enabled or disabled; None: on when there is a budget
    display: str | None = None  # --thinking-display
    task_budget: int | None = None  # --task-budget, tokens
    betas: tuple[str, ...] = ()  # --betas, those allowed
    pinned: bool = False  # CLAUDE_CODE_EFFORT_LEVEL set `effort` (None for auto): every agent's requests ask it

    def options(self, model: str, limits: Limits, effort: str | None = SESSION_EFFORT) -> RequestOptions:
        """What a request for `model` asks: thinking on with a budget (the limits', or the model's
        default for `--thinking enabled|adaptive`), adaptive on a model that thinks adaptively, or
        off (`--thinking disabled`, or no budget); the effort `model` takes of the agent's `effort`
        (SESSION_EFFORT: the run's; CLAUDE_CODE_EFFORT_LEVEL wins over any agent's); the task
        budget and the betas as given."""
        level = self.effort if self.pinned or effort == SESSION_EFFORT else effort
        kind, budget = None, 0
        if self.thinking != "disabled":
            budget = limits.thinking(model, strict=False)  # the main model was checked at the start
            if budget or self.thinking:
                kind = "adaptive" if adaptive_thinking(model) else "enabled"
                budget = 0 if kind == "adaptive" else budget or limits.default_budget(model)
                kind = kind if kind == "adaptive" or budget else None
        return RequestOptions(thinking=kind, budget=budget if kind == "enabled" else 0,
                              display=self.display if kind else None, effort=model_effort(model, level),
                              requested_effort=level, task_budget=self.task_budget, betas=self.betas)

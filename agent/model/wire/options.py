"""What one request asks beyond the conversation: thinking, effort, a task budget and beta
features, already settled for the request's model (`agent.model.reasoning` settles them), so each
wire format only spells them its own way. The default asks for nothing: a request without flags is
the same bytes as before any of them existed."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class WebSearch:
    """The provider's own web search, which a request made by the WebSearch tool must use once
    (Anthropic's server tool, forced; OpenRouter's web plugin, which searches on every request)."""

    allowed_domains: tuple[str, ...] = ()  # only results from these
    blocked_domains: tuple[str, ...] = ()  # never results from these
    max_uses: int = 8  # searches the provider may run for the one request, as Claude Code allows


@dataclass(frozen=True)
class RequestOptions:
    """The request's reasoning and beta settings (every field off by default)."""

    thinking: str | None = None  # "enabled" (with `budget`) or "adaptive"; None: nothing is sent
    budget: int = 0  # the thinking budget of "enabled" thinking
    display: str | None = None  # --thinking-display: how the thinking comes back (summarized, omitted, highlights)
    effort: str | None = None  # the level for a model with an effort control (the Messages API's output_config)
    requested_effort: str | None = None  # the level as given (OpenRouter's reasoning.effort takes every level)
    task_budget: int | None = None  # --task-budget: the tokens the whole task may take (output_config.task_budget)
    betas: tuple[str, ...] = ()  # --betas: Anthropic beta features asked for
    # a tool's own request (WebSearch's search) sets these, as Claude Code's do: temperature 1, no
    # cache breakpoints (it is sent once), and the provider's web search
    temperature: float | None = None
    cached: bool = True
    web_search: WebSearch | None = None


NO_OPTIONS = RequestOptions()

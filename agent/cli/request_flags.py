"""The flags that shape every request, read as Claude Code 2.1.332 reads them: `--tools` (the
built-in tools offered), `--effort`, `--max-thinking-tokens` / `--thinking` / `--thinking-display`,
`--task-budget` and `--betas`; and the Agent SDK's flags this agent cannot follow, each one clear
warning (the run goes on).

Observed (headless, against a scripted model): `--tools "Read,Bash"` offers exactly those built-ins,
names split on commas or spaces and matched exactly (Task is Agent); Skill, Agent and SendMessage
only when named, with the skill catalog and the agent types gone with their tools; MCP tools stay
whatever --tools says; subagents get only what the session offers. Claude Code drops an unknown
name without a word; here it is one warning. `--tools default` (alone) is every tool."""

from __future__ import annotations

import argparse
import logging

from agent.cli.environment import Environment
from agent.model.limits import THINKING_VARIABLE, Limits
from agent.model.reasoning import Shaping, allowed_betas, effort_level

log = logging.getLogger("agent")

SESSION_TOOLS = ("Skill", "Agent", "SendMessage")  # the built-ins the session adds to the six
ALIASES = {"Task": "Agent"}  # Claude Code's earlier name for the Agent tool


def builtin_names() -> list[str]:
    """Every built-in tool name --tools may name, in the order they are offered."""
    from agent.tools import builtin_tools

    return [tool.name for tool in builtin_tools()] + list(SESSION_TOOLS)


def tool_selection(value: str | None) -> frozenset[str] | None:
    """The built-in tools a --tools value offers (None: all of them, for no flag or `default`);
    names this agent has no tool of are one warning and offer nothing."""
    if value is None:
        return None
    names = value.replace(",", " ").split()
    if names == ["default"]:
        return None
    known = builtin_names()
    unknown = [name for name in names if ALIASES.get(name, name) not in known]
    if unknown:
        log.warning(f"--tools: no built-in tool named {', '.join(unknown)}; ignored (the built-in tools: "
                    f"{', '.join(known)})")
    return frozenset(ALIASES.get(name, name) for name in names) & frozenset(known)


def request_limits(args: argparse.Namespace, environment: Environment) -> Limits:
    """The output limit and thinking budget: --max-thinking-tokens does what MAX_THINKING_TOKENS
    does, and wins over it."""
    if args.max_thinking_tokens is not None:
        return Limits(environment["CLAUDE_CODE_MAX_OUTPUT_TOKENS"], args.max_thinking_tokens, "--max-thinking-tokens")
    return Limits(environment["CLAUDE_CODE_MAX_OUTPUT_TOKENS"], environment["MAX_THINKING_TOKENS"], THINKING_VARIABLE)


def request_shaping(args: argparse.Namespace, provider: str, limits: Limits, effort_variable: str | None = None) -> Shaping:
    """What the run's flags ask of every request on `provider`'s wire; what that wire cannot
    carry is said once (betas only with --verbose: OpenRouter sends none). CLAUDE_CODE_EFFORT_LEVEL
    (`effort_variable`) wins over --effort and every agent's own effort (auto: none at all)."""
    effort = effort_level(args.effort) if effort_variable is None else None if effort_variable == "auto" else effort_variable
    shaping = Shaping(effort=effort, thinking=args.thinking, display=args.thinking_display,
                      task_budget=args.task_budget, betas=allowed_betas(args.betas) if args.betas else (),
                      pinned=effort_variable is not None)
    if shaping.display and (shaping.thinking == "disabled" or (not shaping.thinking and not limits.thinking_budget)):
        log.warning("--thinking-display has no effect: thinking is off (turn it on with --max-thinking-tokens N "
                    "or --thinking adaptive)")
    if provider == "anthropic":
        return shaping
    if shaping.betas:
        log.info("--betas: OpenRouter takes no Anthropic beta headers; not sent")
    if shaping.task_budget:
        log.warning("--task-budget is not supported on OpenRouter (it is the Anthropic API's output_config."
                    "task_budget); the run goes on without it")
    if shaping.display:
        log.info("--thinking-display: OpenRouter has no such setting; the reasoning comes back as it does")
    if shaping.effort and (shaping.thinking or limits.thinking_budget) and shaping.thinking != "disabled":
        log.info("--effort: OpenRouter takes a reasoning budget or an effort; a model with a budget sends the budget")
    return Shaping(effort=shaping.effort, thinking=shaping.thinking, pinned=shaping.pinned)


def unsupported_flags(args: argparse.Namespace) -> None:
    """One warning for each flag given that this agent accepts but cannot follow, or that has no
    effect as given (the run goes on)."""
    if args.plugin_dirs:
        log.warning("--plugin-dir is not supported: plugins (their skills, agents, commands, hooks and MCP "
                    "servers) do not load; the run goes on without them")
    if args.fork_session and args.resume is None and not args.continue_session:
        log.warning("--fork-session has no effect without --resume or --continue: this is a new session")
    if args.session_mirror and args.output_format != "stream-json":
        log.warning("--session-mirror needs --output-format stream-json: the transcript is not mirrored")

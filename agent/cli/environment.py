"""Every environment variable the agent reads, in one table: what each accepts and means, parsed
and checked once at start. A malformed value is a one-line usage error naming the variable and
what it accepts, before any request is sent; `--help` lists the same table."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable, Mapping
from urllib.parse import urlparse

from agent.errors import UsageError
from agent.model.limits import DEFAULT_CAP, MIN_THINKING_BUDGET
from agent.model.reasoning import EFFORT_LEVELS
from agent.secrets.environ import take
from agent.secrets.redact import is_secret_name
from agent.tools.shell import SECRET_VARIABLES


def _text(value: str) -> str:
    return value


def _positive_int(value: str) -> int:
    if not (value.isascii() and value.isdigit() and int(value) > 0):
        raise ValueError
    return int(value)


def _whole_number(value: str) -> int:
    if not (value.isascii() and value.isdigit()):
        raise ValueError
    return int(value)


def _positive_number(value: str) -> float:
    number = float(value)  # ValueError for text
    if not (number > 0 and number != float("inf")):
        raise ValueError
    return number


def _thinking_budget(value: str) -> int:
    budget = _whole_number(value)
    if 0 < budget < MIN_THINKING_BUDGET:
        raise ValueError
    return budget


def _provider(value: str) -> str:
    if value not in ("openrouter", "anthropic"):
        raise ValueError
    return value


def _switch(value: str) -> bool:
    if value.lower() not in ("1", "0", "true", "false"):
        raise ValueError
    return value.lower() in ("1", "true")


def _effort(value: str) -> str:
    if value.lower() not in (*EFFORT_LEVELS, "auto"):
        raise ValueError
    return value.lower()


def _absolute(value: str) -> str:
    if not os.path.isabs(value):
        raise ValueError
    return value


def _url(value: str) -> str:
    parsed = urlparse(value)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise ValueError
    return value


@dataclass(frozen=True)
class Variable:
    """One environment variable: its name, what it accepts, what it means, and its parser."""

    name: str
    accepts: str
    meaning: str
    parse: Callable[[str], Any] = _text
    default: Any = None


VARIABLES = [
    Variable("OPENROUTER_API_KEY", "a key", "key for OpenRouter (OpenAI-compatible chat completions)"),
    Variable("OPENROUTER_BASE_URL", "an http(s) URL", "OpenRouter endpoint (default https://openrouter.ai/api/v1)", _url),
    Variable("ANTHROPIC_API_KEY", "a key", "key for the Anthropic Messages API"),
    Variable("ANTHROPIC_BASE_URL", "an http(s) URL", "Anthropic endpoint (default https://api.anthropic.com)", _url),
    Variable("AGENT_PROVIDER", "openrouter or anthropic", "the provider (--provider wins)", _provider),
    Variable("AGENT_MODEL", "a model id or alias", "the main model (--model wins)"),
    Variable("ANTHROPIC_DEFAULT_HAIKU_MODEL", "a model id", "what the alias haiku means"),
    Variable("ANTHROPIC_DEFAULT_SONNET_MODEL", "a model id", "what the alias sonnet means"),
    Variable("ANTHROPIC_DEFAULT_OPUS_MODEL", "a model id", "what the aliases opus and best mean"),
    Variable("API_TIMEOUT_MS", "a number of milliseconds > 0",
             "how long one reply may take, headers and body, per attempt (default 600000)", _positive_number, 600_000.0),
    Variable("AGENT_MAX_RETRIES", "a whole number >= 0", "retries of a failed request (default 6)", _whole_number, 6),
    Variable("CLAUDE_CODE_SUBAGENT_MODEL", "a model id or alias", "model for subagents that name none (not Explore or Plan)"),
    Variable("CLAUDE_CODE_SUBAGENT_MODEL_FORCE", "1 or 0", "1 runs every subagent on CLAUDE_CODE_SUBAGENT_MODEL (else "
             "the main model), whatever its definition or the call says", _switch, False),
    Variable("CLAUDE_CODE_EFFORT_LEVEL", f"one of {', '.join(EFFORT_LEVELS)} or auto",
             "the effort of every request, subagents' included (wins over --effort; auto: none)", _effort),
    Variable("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1 or 0", "1 turns agents' memory (their `memory` field) off",
             _switch, False),
    Variable("CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH", "a whole number > 0", "how deep subagents nest (default 3)",
             _positive_int, 3),
    Variable("CLAUDE_CODE_MAX_CONCURRENT_SUBAGENTS", "a whole number > 0", "subagents running at once (default 20)",
             _positive_int, 20),
    Variable("CLAUDE_CODE_DISABLE_EXPLORE_PLAN_AGENTS", "1 or 0", "1 removes the built-in Explore and Plan agents",
             _switch, False),
    Variable("CLAUDE_AGENT_SDK_DISABLE_BUILTIN_AGENTS", "1 or 0", "1 removes every built-in agent (Explore, Plan, "
             "general-purpose): only custom agents remain", _switch, False),
    Variable("CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD", "1 or 0", "1 loads the instruction files of the "
             "--add-dir folders too (CLAUDE.md, .claude/CLAUDE.md, .claude/rules/, CLAUDE.local.md)", _switch, False),
    Variable("CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS", "1 or 0", "1 leaves the git status snapshot out of every "
             "conversation, 0 keeps it (either wins over includeGitInstructions in the settings)", _switch),
    Variable("CLAUDE_CODE_FORK_SUBAGENT", "1 or 0", "0 turns fork mode off: the Agent tool offers no fork type "
             "(default 1)", _switch, True),
    Variable("CLAUDE_CODE_ENABLE_TASKS", "1 or 0", "0 offers TodoWrite in place of the task tools TaskCreate, "
             "TaskGet, TaskList and TaskUpdate (default 1)", _switch, True),
    Variable("CLAUDE_CODE_MAX_OUTPUT_TOKENS", "a whole number > 0",
             "output limit of each request, up to a known model's maximum (default: the model's, at most 32000)",
             _positive_int),
    Variable("MAX_THINKING_TOKENS", f"0 (off) or a whole number >= {MIN_THINKING_BUDGET}",
             "turns extended thinking on with this token budget (default off)", _thinking_budget, 0),
    Variable("SLASH_COMMAND_TOOL_CHAR_BUDGET", "a whole number > 0",
             "characters for the skill and agent catalogs together (default 12000)", _positive_int, 12_000),
    Variable("AGENT_TRUST_WORKSPACE", "1 or 0", "1 trusts this workspace's own settings and skills, as "
             "--trust-workspace does", _switch, False),
    Variable("MCP_TIMEOUT", "a number of milliseconds > 0", "how long an MCP server may take to start (default 30000)",
             _positive_number, 30_000.0),
    Variable("MCP_TOOL_TIMEOUT", "a number of milliseconds > 0", "how long one MCP tool call may take (default 600000)",
             _positive_number, 600_000.0),
    Variable("MAX_MCP_OUTPUT_TOKENS", "a whole number > 0", "the most an MCP tool's result may hold, in tokens "
             "(default 25000)", _positive_int, 25_000),
    Variable("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "a whole number of tokens > 0", "compact the conversation ahead of "
             "time within this window, 33000 tokens before it fills (--autocompact wins)", _positive_int),
    Variable("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "a whole number from 1 to 100", "compact at this percentage of the "
             "window instead, when that comes first", _positive_int),
    Variable("DISABLE_AUTO_COMPACT", "1 or 0", "1 never compacts: a request refused as too long ends the run "
             "(\"Prompt is too long\")", _switch, False),
    Variable("AGENT_WEB_FETCH_TIMEOUT_MS", "a number of milliseconds > 0", "how long one WebFetch may take "
             "(default 60000)", _positive_number, 60_000.0),
    Variable("NODE_EXTRA_CA_CERTS", "a PEM file", "extra certificate authorities WebFetch trusts, as Claude Code's "
             "runtime reads them"),
    Variable("XDG_CACHE_HOME", "an absolute folder", "where the frontmatter cache lives (default ~/.cache)"),
    Variable("AGENT_MANAGED_DIR", "an absolute folder", "the organisation's folder: its CLAUDE.md, .claude/rules and "
             ".claude/agents (default /etc/claude-code; no settings file can set it)", _absolute),
]
BY_NAME = {variable.name: variable for variable in VARIABLES}
# Our variables whose names say key, token or secret, and the keys commands never get.
SECRETS = tuple(dict.fromkeys([v.name for v in VARIABLES if is_secret_name(v.name)] + list(SECRET_VARIABLES)))


def run_environment() -> dict[str, str]:
    """The process's environment as this run reads it, once, at start. The secrets in it stay
    only in the returned copy (and in the redaction rule): they leave the process's own
    environment, and its /proc/<pid>/environ, so no command can read them back."""
    env = dict(os.environ)
    take(SECRETS)
    return env


class Environment:
    """The parsed values of the variables that are set (blank counts as unset), defaults for the rest."""

    def __init__(self, raw: Mapping[str, str]) -> None:
        self.raw = raw
        self.values: dict[str, Any] = {}
        for variable in VARIABLES:
            text = (raw.get(variable.name) or "").strip()
            if not text:
                continue
            try:
                self.values[variable.name] = variable.parse(text)
            except (ValueError, OverflowError):
                raise UsageError(f"{variable.name} must be {variable.accepts}, not {_shown(text)}") from None
        budget, cap = self["MAX_THINKING_TOKENS"], self["CLAUDE_CODE_MAX_OUTPUT_TOKENS"] or DEFAULT_CAP
        if budget >= cap:  # true for every model, so it is said before a cassette or a key is read
            raise UsageError(f"MAX_THINKING_TOKENS ({budget}) must be below the output limit ({cap} tokens); "
                             "lower it or raise CLAUDE_CODE_MAX_OUTPUT_TOKENS")

    def __getitem__(self, name: str) -> Any:
        return self.values.get(name, BY_NAME[name].default)


def help_text() -> str:
    """The environment table for --help."""
    width = max(len(variable.name) for variable in VARIABLES)
    return "\n".join(f"  {v.name:<{width}}  {v.meaning}" for v in VARIABLES)


def _shown(text: str) -> str:
    return repr(text) if len(text) <= 60 else repr(text[:57] + "...")

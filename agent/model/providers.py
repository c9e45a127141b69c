"""Which provider a run talks to, chosen from flags and the environment."""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Mapping

from agent.errors import UsageError
from agent.model.wire import chat, messages


@dataclass(frozen=True)
class Provider:
    """A model endpoint: where to send requests, how to authenticate, and which wire format it speaks."""

    name: str
    url: str
    headers: dict[str, str]
    wire: ModuleType
    default_model: str
    key_variable: str


@dataclass(frozen=True)
class _Kind:
    key_variable: str
    base_variable: str
    default_base: str
    default_model: str
    wire: ModuleType


KINDS = {
    "openrouter": _Kind(
        "OPENROUTER_API_KEY", "OPENROUTER_BASE_URL", "https://openrouter.ai/api/v1", "anthropic/claude-haiku-4.5", chat
    ),
    "anthropic": _Kind(
        "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "https://api.anthropic.com", "claude-haiku-4-5", messages
    ),
}


# The models Claude Code's family aliases name, per provider (ANTHROPIC_DEFAULT_<FAMILY>_MODEL overrides).
# `fable` is what Claude Code 2.1.332 sends for it on the Anthropic API; the others keep this
# agent's ids, which its cassettes were recorded with.
FAMILY_MODELS = {
    "openrouter": {"haiku": "anthropic/claude-haiku-4.5", "sonnet": "anthropic/claude-sonnet-4.5", "opus": "anthropic/claude-opus-4.5",
                   "fable": "anthropic/claude-fable-5.2"},
    "anthropic": {"haiku": "claude-haiku-4-5", "sonnet": "claude-sonnet-4-5", "opus": "claude-opus-4-5", "fable": "claude-fable-5-2"},
}
FAMILIES = ("sonnet", "opus", "haiku", "fable")  # the family aliases, in the order Claude Code lists them
ONE_MILLION = "[1m]"  # Claude Code's suffix for the 1M-token context beta, which this agent does not send


def model_aliases(provider: str, default_model: str, overrides: Mapping[str, str] = {}, plan_mode: bool = False) -> dict[str, str]:
    """Claude Code's model aliases for `provider`: `haiku`, `sonnet`, `opus` (each overridable by
    ANTHROPIC_DEFAULT_<FAMILY>_MODEL in `overrides`), `best` (opus), `default` (the provider's
    default model) and `opusplan` (opus in plan mode, sonnet otherwise)."""
    families = dict(FAMILY_MODELS.get(provider, {}))
    for family in families:
        families[family] = overrides.get(f"ANTHROPIC_DEFAULT_{family.upper()}_MODEL") or families[family]
    if not families:
        return {"default": default_model}
    return {**families, "best": families["opus"], "default": default_model,
            "opusplan": families["opus"] if plan_mode else families["sonnet"]}


def resolve_model(choices: list[str | None], aliases: Mapping[str, str], main_model: str) -> str:
    """The first model named in `choices` (highest priority first), an alias (any case) mapped
    through `aliases`, Claude Code's `[1m]` suffix dropped; `inherit` or nothing means `main_model`."""
    for choice in choices:
        if choice and choice.strip():
            choice = choice.strip()
            if choice.lower() == "inherit":
                return main_model
            choice = choice.removesuffix(ONE_MILLION)
            return aliases.get(choice.lower(), choice)
    return main_model


def pinned_aliases(overrides: Mapping[str, str]) -> frozenset[str]:
    """The families whose alias ANTHROPIC_DEFAULT_<FAMILY>_MODEL in `overrides` sets: in a call
    or a definition such an alias means that model, never the main model's version."""
    return frozenset(family for family in FAMILIES if overrides.get(f"ANTHROPIC_DEFAULT_{family.upper()}_MODEL"))


def model_family(model: str) -> str | None:
    """The family a model id belongs to, as Claude Code tells it: the family name anywhere in it
    (`claude-3-5-haiku-20241022` and `anthropic/claude-haiku-4.5` are haiku), or None."""
    low = model.lower()
    return next((family for family in FAMILIES if family in low), None)


def join_url(base: str, path: str) -> str:
    """`base` and `path` joined by exactly one slash (the tester's base URL ends in one)."""
    return base.rstrip("/") + "/" + path.lstrip("/")


def select_provider(env: Mapping[str, str], requested: str | None = None, dummy_key: str | None = None) -> Provider:
    """The provider for this run.

    `requested` (from --provider) wins, then AGENT_PROVIDER, then whichever key is set, OpenRouter
    first. `dummy_key` stands in for a missing key (replaying a cassette needs none).
    """
    name = requested or env.get("AGENT_PROVIDER") or ""
    if not name:
        name = next((n for n, kind in KINDS.items() if env.get(kind.key_variable)), "")
        if not name and dummy_key:
            name = "openrouter"
    if not name:
        raise UsageError("no API key: set OPENROUTER_API_KEY (or ANTHROPIC_API_KEY)")
    if name not in KINDS:
        raise UsageError(f"unknown provider {name!r}: use openrouter or anthropic")
    kind = KINDS[name]
    key = env.get(kind.key_variable) or dummy_key
    if not key:
        raise UsageError(f"{kind.key_variable} is not set")
    if name == "anthropic":
        headers = {"x-api-key": key, "anthropic-version": "2023-06-01"}
    else:
        headers = {"authorization": f"Bearer {key}"}
    base = env.get(kind.base_variable) or kind.default_base
    return Provider(name, join_url(base, kind.wire.PATH), headers, kind.wire, kind.default_model, kind.key_variable)

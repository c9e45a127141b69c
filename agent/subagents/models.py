"""Which model and effort a subagent runs at, by the rules of Claude Code's subagents page (as
2.1.332 was seen to follow them where the page is silent).

The model, highest priority first: the Agent call's `model` (an alias only: sonnet, opus, haiku or
fable), a forked skill's `model`, the definition's `model` (`inherit`: the main model), then
CLAUDE_CODE_SUBAGENT_MODEL (`inherit` counts as unset), then the main model. The variable alone is
only a default: the built-in Explore and Plan stay on the main model. With
CLAUDE_CODE_SUBAGENT_MODEL_FORCE=1 every subagent runs the variable's model (the main model when
it is unset), Explore and Plan, definitions and call parameters included; only a forked skill's
`model: inherit` keeps the main model. A family alias from a call or a definition (`haiku`) runs
the main model's exact version when the main model is of that family (`claude-haiku-4-5-20251001`),
unless ANTHROPIC_DEFAULT_<FAMILY>_MODEL says what the alias means; in the variable an alias always
means its own version.

The effort: CLAUDE_CODE_EFFORT_LEVEL wins over everything (the request side, agent.model.reasoning);
then the call's `effort`, then the definition's; an agent with neither runs at the session's effort
(--effort) on the main model, and at none on another.
"""

from __future__ import annotations

from typing import Any, Sequence

from agent.model.providers import FAMILIES, ONE_MILLION, model_family, resolve_model
from agent.model.reasoning import EFFORT_LEVELS, SESSION_EFFORT
from agent.tools.base import ToolError

CALL_MODELS = FAMILIES  # the Agent call's `model` takes these aliases, and nothing else
MAIN_MODEL_BUILTINS = ("Explore", "Plan")  # built-ins CLAUDE_CODE_SUBAGENT_MODEL alone leaves on the main model


def subagent_model(session, definition, requested: Sequence[str | None] = ()) -> str:
    """The model `definition` runs on when started with the `requested` models (highest priority
    first: a call's parameter, a forked skill's model, or the model a continued agent ran on)."""
    main = session.model
    if any((choice or "").strip().lower() == "inherit" for choice in requested[:1]):
        return main  # a forked skill's inherit: the main model, forced or not
    variable = session.subagent_model if (session.subagent_model or "").strip().lower() != "inherit" else None
    if session.subagent_model_force:
        return resolve_model([variable], session.model_aliases, main)
    for choice in (*requested, definition.model):
        if choice and choice.strip():
            return _resolved(choice.strip(), session)
    if variable and not (definition.source == "builtin" and definition.name in MAIN_MODEL_BUILTINS):
        return resolve_model([variable], session.model_aliases, main)
    return main


def _resolved(choice: str, session) -> str:
    """`choice` from a call or a definition: a family alias the main model belongs to is the main
    model's exact version (unless ANTHROPIC_DEFAULT_<FAMILY>_MODEL names the alias's model)."""
    family = choice.lower().removesuffix(ONE_MILLION)
    if family in FAMILIES and model_family(session.model) == family and family not in session.pinned_aliases:
        return session.model
    return resolve_model([choice], session.model_aliases, session.model)


def subagent_effort(session, definition, model: str, requested: str | None = None) -> str | None:
    """The effort `definition`'s requests ask for on `model`: the call's `requested` level, else
    the definition's, else the session's (SESSION_EFFORT) on the main model and none on another.
    CLAUDE_CODE_EFFORT_LEVEL, when set, overrides this where the requests are shaped."""
    level = requested or definition.effort
    if level:
        return level
    return SESSION_EFFORT if model == session.model else None


def check_call_choices(arguments: dict[str, Any], offers_model: bool) -> None:
    """Refuse an Agent call whose `model` is not one of its aliases (a full id or `inherit` is not
    taken, as in Claude Code) or whose `effort` is not a level; a `model` is ignored when the
    call offers none (CLAUDE_CODE_SUBAGENT_MODEL_FORCE)."""
    for name, values in (("model", CALL_MODELS if offers_model else None), ("effort", EFFORT_LEVELS)):
        value = arguments.get(name)
        if value is None or values is None or value in values:
            continue
        expected = "|".join(f'"{option}"' for option in values)
        raise ToolError(f"InputValidationError: {name}: Invalid option: expected one of {expected}")


def call_properties(offers_model: bool, forks: bool = False) -> dict[str, Any]:
    """The Agent call's `model` (left out when CLAUDE_CODE_SUBAGENT_MODEL_FORCE decides every
    agent's model) and `effort` parameters; with `forks`, each says a fork ignores it."""
    properties: dict[str, Any] = {}
    if offers_model:
        properties["model"] = {"type": "string", "enum": list(CALL_MODELS), "description": (
            "Optional model for this agent, as an alias. It wins over the agent type's own model and the "
            "default subagent model; an alias of the family your own model belongs to runs your exact model. "
            "Leave it out to use the agent type's model (else the default)."
            + (" A fork ignores it: it runs on your model." if forks else ""))}
    properties["effort"] = {"type": "string", "enum": list(EFFORT_LEVELS), "description": (
        "Reasoning effort for this agent. Set it only when the user, or instructions such as CLAUDE.md or a "
        "skill, ask for a specific effort for this agent or delegated work; otherwise leave it out and the "
        "agent runs at its usual effort." + (" A fork ignores it: it runs at your effort." if forks else ""))}
    return properties

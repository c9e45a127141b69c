"""The definition fields that shape what an agent starts with and how hard it thinks: `effort`,
`memory` and `skills` (its preloads), read from a file's frontmatter or an --agents entry as
Claude Code 2.1.332 reads them. A value that cannot be used is one warning and left out."""

from __future__ import annotations

import logging
from typing import Any, Iterable

from agent.model.reasoning import EFFORT_LEVELS
from agent.skills.frontmatter import scalar_text
from agent.subagents.agent_memory import SCOPES

log = logging.getLogger("agent")

MAX_PRELOADED_SKILLS = 32  # Claude Code preloads the first 32 distinct names of `skills`


def effort_field(value: Any, label: str) -> str | None:
    """The declared effort level (any case), or None when unset or not a level (one warning)."""
    return _choice(value, EFFORT_LEVELS, "effort", label, "it runs at its usual effort")


def memory_field(value: Any, label: str) -> str | None:
    """The declared memory scope (user, project or local), or None when unset or not one (one warning)."""
    return _choice(value, SCOPES, "memory", label, "it has no memory of its own")


def preloaded_skills(names: Iterable[str], label: str) -> tuple[str, ...]:
    """The skills an agent preloads: the first MAX_PRELOADED_SKILLS distinct `names` (a repeat
    counts once); --verbose names the ones left out."""
    distinct = list(dict.fromkeys(names))
    if len(distinct) > MAX_PRELOADED_SKILLS:
        left = distinct[MAX_PRELOADED_SKILLS:]
        log.info(f"{label}: preloading the first {MAX_PRELOADED_SKILLS} of its skills; not {', '.join(left)}")
    return tuple(distinct[:MAX_PRELOADED_SKILLS])


def _choice(value: Any, choices: tuple[str, ...], field: str, label: str, otherwise: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, str) and value.strip().lower() in choices:
        return value.strip().lower()
    shown = repr(value) if isinstance(value, str) else scalar_text(value) or f"a {type(value).__name__}"
    log.warning(f"{label}: {field} should be one of {', '.join(choices)}, not {shown[:60]}; {otherwise}")
    return None

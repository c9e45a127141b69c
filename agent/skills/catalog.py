"""The skill catalog: every model-invocable skill's name and description, for the system prompt.

Only names and descriptions go here; a body reaches the model only when its skill is invoked.
"""

from __future__ import annotations

import re

from agent.skills.discovery import Skill

# Claude Code's fallback listing budget and its per-entry cap on description + when_to_use.
CATALOG_BUDGET_CHARS = 8000
MAX_ENTRY_CHARS = 1536
CATALOG_HEADER = "You have access to the following skills:"
CATALOG_INSTRUCTION = (
    "When a request matches a skill's description, call the Skill tool with that skill's name "
    "(and any arguments) before doing anything else, then follow the instructions it returns. "
    "Do not read SKILL.md files yourself."
)
_LINE_BREAKS = re.compile(r"\s*\n\s*")


def catalog_section(skills: list[Skill], budget: int = CATALOG_BUDGET_CHARS) -> str:
    """The system-prompt section listing the model-invocable skills as `- <name>: <description>`,
    or "" when there are none. When the entries exceed `budget` characters, descriptions are
    dropped from the end of the list (names always stay) and a line says how many went."""
    listed = sorted((skill for skill in skills if skill.model_invocable), key=lambda skill: skill.name)
    if not listed:
        return ""
    entries = [f"- {skill.name}: {_summary(skill)}" for skill in listed]
    size = sum(len(entry) + 1 for entry in entries)
    omitted = 0
    for index in reversed(range(len(entries))):
        if size <= budget:
            break
        name_only = f"- {listed[index].name}"
        size -= len(entries[index]) - len(name_only)
        entries[index] = name_only
        omitted += 1
    lines = [CATALOG_HEADER, "", *entries]
    if omitted:
        lines.append(_omitted_note(omitted))
    lines += ["", CATALOG_INSTRUCTION]
    return "\n".join(lines)


def _summary(skill: Skill) -> str:
    """Description and when_to_use on one line, cut to MAX_ENTRY_CHARS."""
    text = _LINE_BREAKS.sub(" ", " ".join(part for part in (skill.description, skill.when_to_use) if part))
    return text if len(text) <= MAX_ENTRY_CHARS else text[:MAX_ENTRY_CHARS - 1] + "…"


def _omitted_note(count: int) -> str:
    what = "skill description" if count == 1 else "skill descriptions"
    return f"({count} {what} omitted to save space; call Skill with a name to load one.)"

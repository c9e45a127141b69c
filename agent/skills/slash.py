"""Slash commands: a prompt that starts with `/<skill>` runs that skill (and the ones stacked after it)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent.skills.discovery import Skill

# Claude Code expands the first skill plus up to five stacked after it.
MAX_STACKED_SKILLS = 1 + 5
_TOKEN = re.compile(r"\S+")


@dataclass(frozen=True)
class SlashInvocation:
    """The skills a prompt invokes, in order, and the argument text they all receive."""

    skills: tuple[Skill, ...]
    arguments: str


def parse_slash(prompt: str, skills: dict[str, Skill]) -> SlashInvocation | None:
    """The skills named by the prompt's leading `/name` tokens, or None when the prompt does not
    start with a user-invocable skill. The first other token, and everything after it, is the
    argument text. At most six skills are expanded, and a forked skill is never expanded together
    with another (the course's rule): first, it ends the run (`/apple /pear`: apple, with the
    arguments `/pear`); after another, it is where the arguments start (`/pear /apple`: pear, with
    the arguments `/apple`, as Claude Code reads any second command)."""
    text = prompt.lstrip()
    expanded: list[Skill] = []
    arguments_start = len(text)
    for token in _TOKEN.finditer(text):
        skill = _user_skill(token.group(), skills)
        if skill is None or len(expanded) >= MAX_STACKED_SKILLS or (expanded and (expanded[-1].fork or skill.fork)):
            arguments_start = token.start()
            break
        expanded.append(skill)
    if not expanded:
        return None
    return SlashInvocation(tuple(expanded), text[arguments_start:].strip())


def refused_user_invocation(prompt: str, skills: dict[str, Skill]) -> str | None:
    """The skill's name when the prompt starts with `/name` for a skill users may not invoke
    (`user-invocable: false`), so the caller can refuse instead of sending the prompt."""
    first = _TOKEN.search(prompt)
    skill = _named_skill(first.group(), skills) if first else None
    return skill.name if skill is not None and not skill.user_invocable else None


def _named_skill(token: str, skills: dict[str, Skill]) -> Skill | None:
    if not token.startswith("/"):
        return None
    return skills.get(token[1:])


def _user_skill(token: str, skills: dict[str, Skill]) -> Skill | None:
    skill = _named_skill(token, skills)
    return skill if skill is not None and skill.user_invocable else None

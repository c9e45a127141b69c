"""Catalogs: the skills (in the system prompt) and the agent types (in the Agent tool) the model
may use, each entry `- <name>: <description>`, under one shared character budget.

Every name always stays, so everything remains reachable. When the full descriptions do not all
fit, each is shortened fairly (the same cap for all: whole sentences first, then the first
sentence cut at a word), never some kept whole while others vanish; the model is then told it can
`search` the Skill and Agent tools for the full texts. Only names and descriptions are listed; a
skill's body reaches the model only when it is invoked.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from functools import cached_property

from agent.skills.discovery import Skill

CATALOG_BUDGET_CHARS = 12_000  # skills and agents together; SLASH_COMMAND_TOOL_CHAR_BUDGET overrides
MAX_ENTRY_CHARS = 1536  # Claude Code's cap on one entry's description + when_to_use
MIN_DESCRIPTION_CHARS = 16  # below this a shortened description says nothing; the name alone stays
SEARCH_LIMIT = 40
CATALOG_HEADER = "You have access to the following skills:"
CATALOG_INSTRUCTION = (
    "When a request matches a skill's description, call the Skill tool with that skill's name "
    "(and any arguments) before doing anything else, then follow the instructions it returns. "
    "Do not read SKILL.md files yourself."
)
SHORTENED_NOTE = ("(Descriptions here are shortened to fit. To read them in full, call {tool} with "
                  "`search`: words to look for, or an empty string for all.)")
_SENTENCE_END = re.compile(r"(?<=[.!?]) ")


@dataclass(frozen=True)
class Entry:
    """One catalog entry: a name and its full description on one line."""

    name: str
    description: str

    @cached_property
    def sentence_ends(self) -> list[int]:
        """Where sentences end: shortening at any cap is then a lookup, not a scan."""
        return [m.start() for m in _SENTENCE_END.finditer(self.description)]

    def shortened(self, cap: int) -> str:
        """The description in at most `cap` characters: as many whole sentences as fit, else the
        first sentence cut at a word with "…", else nothing when `cap` is too small to say anything."""
        text = self.description
        if len(text) <= cap:
            return text
        if cap < MIN_DESCRIPTION_CHARS:
            return ""
        whole = bisect_right(self.sentence_ends, cap)
        if whole:
            return text[:self.sentence_ends[whole - 1]]
        space = text.rfind(" ", 0, cap - 1)  # the last word break before which the cut and "…" fit
        cut = text[:space] if space > 0 else text[:cap - 1]
        return cut.rstrip(" ,;:") + "…"

    def line(self, cap: int | None = None) -> str:
        """`- name: description`, the description shortened to at most `cap` characters."""
        text = self.description if cap is None else self.shortened(cap)
        return f"- {self.name}: {text}" if text else f"- {self.name}"


def one_line(text: str, limit: int = MAX_ENTRY_CHARS) -> str:
    """`text` with its whitespace collapsed, cut to `limit` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def skill_entry(skill: Skill) -> Entry:
    """A skill's entry: its description and when_to_use on one line."""
    return Entry(skill.name, one_line(" ".join(part for part in (skill.description, skill.when_to_use) if part)))


def fit(entries: list[Entry], budget: int = CATALOG_BUDGET_CHARS) -> tuple[list[str], bool]:
    """The lines for `entries` (in order) within `budget` characters, and whether descriptions
    had to be shortened. The largest description cap that fits is found by bisection; names are
    kept even when they alone exceed the budget."""
    full = [entry.line() for entry in entries]
    if sum(len(line) + 1 for line in full) <= budget:
        return full, False
    names = sum(len(entry.name) + 3 for entry in entries)  # "- name" and a newline
    if names + len(entries) * (MIN_DESCRIPTION_CHARS + 2) > budget:  # not even a word each: names only
        return [f"- {entry.name}" for entry in entries], True
    low, high = 0, max(len(entry.description) for entry in entries)
    while low < high:  # the largest cap whose lines fit
        middle = (low + high + 1) // 2
        if names + sum(len(text) + 2 for text in map(lambda e: e.shortened(middle), entries) if text) <= budget:
            low = middle
        else:
            high = middle - 1
    return [entry.line(low) for entry in entries], True


def catalog_section(lines: list[str], shortened: bool = False) -> str:
    """The system-prompt section listing the skills the model may invoke (their `fit` lines), or
    "" when there are none."""
    if not lines:
        return ""
    extra = [SHORTENED_NOTE.format(tool="Skill")] if shortened else []
    return "\n".join([CATALOG_HEADER, "", *lines, *extra, "", CATALOG_INSTRUCTION])


def search(entries: list[Entry], query: str, what: str) -> str:
    """The full entries matching `query` (every word of it, case-insensitive, in the name or the
    description; all entries for an empty query), best first, at most SEARCH_LIMIT of them."""
    words = query.lower().split()
    scored = []
    for entry in entries:
        text = f"{entry.name} {entry.description}".lower()
        hits = sum(word in text for word in words)
        if hits == len(words):
            scored.append((-sum(word in entry.name.lower() for word in words), entry.name, entry))
    found = [entry for _, _, entry in sorted(scored, key=lambda item: item[:2])]
    if not found:
        return f"Nothing matches {query!r} among the {len(entries)} {what}. Try other words, or an empty search for all."
    shown = found[:SEARCH_LIMIT]
    more = f"\n({len(found) - len(shown)} more match; add words to narrow the search.)" if len(found) > len(shown) else ""
    heading = f"{len(found)} {what} match {query!r}:" if words else f"All {len(found)} {what}:"
    return "\n".join([heading, *(entry.line() for entry in shown)]) + more

"""Drift the workspace causes: a recorded request and the one sent now differ because this folder
(or home) offers other skills, agent types or CLAUDE.md text than the recording's did, not because
the agent changed. Said in one line a person can act on, before the JSON path of the difference.

Pure functions over request bodies of either wire: chat (the system prompt as `messages[0]` with
role system, tools as `{"type": "function", "function": {name, description, parameters}}`) and
messages (a top-level `system`, text or text blocks; tools as `{name, description, input_schema}`).
What they read, as the agent sends it: the skill catalog (a line naming skills and ending in ":",
then `- name: description` lines) in the system prompt, or in a `<system-reminder>` of the first
user message as Claude Code sends it; the agent types (`- name: ...` lines) in the Agent tool's
description; the CLAUDE.md block (`Contents of PATH (kind):` entries in a `<system-reminder>`) that
opens the first user message. Bodies come from a cassette, so any shape is taken without error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from agent.record.bodies import content_text

_SHOWN = 6  # names listed in full before a message lists only what changed
_EXCERPT = 60  # characters of a differing CLAUDE.md line shown
_REMINDER_OPEN, _REMINDER_CLOSE = "<system-reminder>", "</system-reminder>"
_MEMORY_ENTRY = re.compile(r"^Contents of (\S.*) \(([^()\n]*)\):$", re.MULTILINE)


@dataclass(frozen=True)
class _Offer:
    """What a request offers the model that the workspace decides."""

    skills: dict[str, str]  # skill name -> its catalog line
    tools: tuple[str, ...]
    agent_types: tuple[str, ...] | None  # None without an Agent tool
    memory: dict[str, str] | None  # CLAUDE.md path -> its text; None without a CLAUDE.md block


def workspace_cause(recorded: Any, sent: Any) -> str | None:
    """Why `sent` differs from `recorded` when the workspace is the cause, in one line: the skills
    offered, the agent types, the Skill or Agent tool, or the CLAUDE.md text; None when none of
    those differ (the difference, if any, is the agent's or the conversation's)."""
    was, now = _offer(recorded), _offer(sent)
    if was is None or now is None:
        return None
    for check in (_skills_cause, _skill_tool_cause, _agents_cause, _agent_tool_cause, _memory_cause):
        if cause := check(was, now):
            return cause
    return None


def _skills_cause(was: _Offer, now: _Offer) -> str | None:
    if list(was.skills) != list(now.skills):
        return _names_differ("skills", list(was.skills), list(now.skills))
    changed = [name for name, line in was.skills.items() if now.skills[name] != line]
    if changed:
        return (f"the description of skill{'s' if len(changed) > 1 else ''} {_listed(changed)} differs from the "
                "recording's (a SKILL.md in this folder or ~/.claude/skills changed)")
    return None


def _skill_tool_cause(was: _Offer, now: _Offer) -> str | None:
    before, after = "Skill" in was.tools, "Skill" in now.tools
    if before and not after:
        return "the recording offered the Skill tool; this folder has no skill the model may load"
    if after and not before:
        return "this folder's skills add the Skill tool, which the recording did not offer"
    return None


def _agents_cause(was: _Offer, now: _Offer) -> str | None:
    if was.agent_types is not None and now.agent_types is not None and was.agent_types != now.agent_types:
        return _names_differ("agent types", list(was.agent_types), list(now.agent_types))
    return None


def _agent_tool_cause(was: _Offer, now: _Offer) -> str | None:
    if (was.agent_types is None) == (now.agent_types is None):
        return None
    if now.agent_types is None:
        return (f"the recording offered the Agent tool (agent types {_listed(list(was.agent_types or ()))}); "
                "this request offers none")
    return (f"this request offers the Agent tool (agent types {_listed(list(now.agent_types))}), which the "
            "recording did not")


def _memory_cause(was: _Offer, now: _Offer) -> str | None:
    before, after = was.memory or {}, now.memory or {}
    if list(before) != list(after):
        if not after:
            return (f"CLAUDE.md differs: the recording's first user message carried {_listed(list(before))}; "
                    "this folder has none")
        if not before:
            return f"CLAUDE.md differs: the recording carried no CLAUDE.md text; this folder adds {_listed(list(after))}"
        return f"CLAUDE.md differs from the recording's: this folder {_changes(list(before), list(after))}"
    for path, text in before.items():
        if after[path] != text:
            old, new = _first_differing_line(text, after[path])
            return f"CLAUDE.md differs: {path} is not the text the recording carried (recorded {old!r}, now {new!r})"
    return None


def _names_differ(what: str, before: list[str], after: list[str]) -> str:
    """`the recording offered skills a, b; this folder offers c`, or only what changed when the
    lists are long."""
    if not after:
        return f"the recording offered {what} {_listed(before)}; this folder has none"
    if not before:
        return f"the recording offered no {what}; this folder offers {_listed(after)}"
    if len(before) <= _SHOWN and len(after) <= _SHOWN:
        return f"the recording offered {what} {_listed(before)}; this folder offers {_listed(after)}"
    return f"the {what} differ from the recording's: this folder {_changes(before, after)}"


def _changes(before: list[str], after: list[str]) -> str:
    """What `after` leaves out of `before` and adds to it (or that only the order changed)."""
    missing = [name for name in before if name not in after]
    added = [name for name in after if name not in before]
    parts = ([f"leaves out {_listed(missing)}"] if missing else []) + ([f"adds {_listed(added)}"] if added else [])
    return " and ".join(parts) if parts else f"has the same ones in another order ({_listed(after)})"


def _listed(names: list[str]) -> str:
    shown = ", ".join(names[:_SHOWN])
    return shown + (f" and {len(names) - _SHOWN} more" if len(names) > _SHOWN else "")


def _first_differing_line(before: str, after: str) -> tuple[str, str]:
    old_lines, new_lines = before.splitlines(), after.splitlines()
    for index in range(max(len(old_lines), len(new_lines))):
        old = old_lines[index] if index < len(old_lines) else ""
        new = new_lines[index] if index < len(new_lines) else ""
        if old != new:
            return old[:_EXCERPT], new[:_EXCERPT]
    return before[-_EXCERPT:], after[-_EXCERPT:]  # only trailing whitespace differs


# --- reading a request body of either wire --------------------------------------------------------

def _offer(body: Any) -> _Offer | None:
    if not isinstance(body, dict):
        return None
    messages = body.get("messages") if isinstance(body.get("messages"), list) else []
    system = body.get("system")
    if system is None and messages and isinstance(messages[0], dict) and messages[0].get("role") == "system":
        system = messages[0].get("content")
    first_user = next((m.get("content") for m in messages if isinstance(m, dict) and m.get("role") == "user"), None)
    memory, others = None, []
    for reminder in _reminders(content_text(first_user)):
        found = _memory(reminder)
        if found is None:
            others.append(reminder)
        elif memory is None:
            memory = found
    tools = [_tool(tool) for tool in body["tools"]] if isinstance(body.get("tools"), list) else []
    agent_tool = next((description for name, description in tools if name == "Agent"), None)
    return _Offer(_catalog("\n".join([content_text(system), *others])), tuple(name for name, _ in tools if name),
                  None if agent_tool is None else tuple(_entries(agent_tool)), memory)


def _tool(tool: Any) -> tuple[str | None, str]:
    """A tool's name and description, in either wire's shape."""
    if not isinstance(tool, dict):
        return None, ""
    spec = tool.get("function") if isinstance(tool.get("function"), dict) else tool
    name, description = spec.get("name"), spec.get("description")
    return (name if isinstance(name, str) else None), (description if isinstance(description, str) else "")


def _reminders(text: str) -> list[str]:
    """The bodies of the `<system-reminder>` blocks of `text`, in order."""
    found, start = [], 0
    while (opening := text.find(_REMINDER_OPEN, start)) >= 0:
        closing = text.find(_REMINDER_CLOSE, opening)
        if closing < 0:
            break
        found.append(text[opening + len(_REMINDER_OPEN):closing].strip("\n"))
        start = closing + len(_REMINDER_CLOSE)
    return found


def _catalog(text: str) -> dict[str, str]:
    """The skill catalog in `text` (name -> its line): the lines starting "- " after each header
    line that names skills and ends with ":" (one blank line may come between)."""
    lines, found = text.splitlines(), {}
    for index, line in enumerate(lines):
        if line.endswith(":") and "skills" in line.lower() and not line.startswith("- "):
            following = index + 1
            if following < len(lines) and not lines[following].strip():
                following += 1
            while following < len(lines) and lines[following].startswith("- "):
                name, entry = _entry(lines[following])
                found[name] = entry
                following += 1
    return found


def _entries(description: str) -> list[str]:
    """The names of the `- name: ...` lines of a tool description."""
    return [_entry(line)[0] for line in description.splitlines() if line.startswith("- ")]


def _entry(line: str) -> tuple[str, str]:
    """A catalog line's name (before the first ": ") and the line itself."""
    return line[2:].split(": ", 1)[0].strip(), line


def _memory(reminder: str) -> dict[str, str] | None:
    """The CLAUDE.md files of a reminder (path -> text), or None when it holds none."""
    matches = list(_MEMORY_ENTRY.finditer(reminder))
    if not matches:
        return None
    files = {}
    for match, following in zip(matches, matches[1:] + [None]):
        end = following.start() if following else len(reminder)
        files[match.group(1)] = reminder[match.end():end].strip()
    return files

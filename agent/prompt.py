"""The main conversation's system prompt."""

from __future__ import annotations

import sys
from typing import Sequence

MAIN_PROMPT = """\
You are agent, a coding assistant working in the user's terminal, in their project folder. \
You help with software tasks: reading and changing code, running commands and tests, answering \
questions about the project.

How to work:
- Use the tools to look before you answer: read files, search, run commands. Do not guess file \
contents.
- Prefer Edit for changing an existing file and Write for a new one. Keep changes minimal and \
in the project's style.
- Several independent tool calls may go in one reply.
- Paths may be relative to the working directory below.
- The user sees only your final message, printed as it is. Follow the user's instructions about \
the form of the answer exactly (for example "respond with only a number" means the number alone, \
with no other text). Otherwise be brief and direct."""


def subagent_system_prompt(cwd: str, body: str, appended: str | None = None, facts: Sequence[str] = ()) -> str:
    """A subagent's system prompt: its definition's body and the environment note (with `facts`
    about its folder), never the main prompt or the skill catalog; `appended`
    (--append-subagent-system-prompt) last."""
    return "\n\n".join([body, environment_note(cwd, facts), *([appended] if appended else [])])


def environment_note(cwd: str, facts: Sequence[str] = ()) -> str:
    """The environment facts every agent gets: where it runs, then `facts` about that folder (a
    worktree-isolated agent's: that it is a git worktree)."""
    lines = [f"- Working directory: {cwd}", *(f"- {fact}" for fact in facts), f"- Platform: {sys.platform}"]
    return "Environment:\n" + "\n".join(lines)


def main_system_prompt(cwd: str, sections: list[str] = (), replacement: str | None = None,
                       appended: str | None = None) -> str:
    """The main conversation's system prompt: our instructions (or `replacement`, from
    --system-prompt), the extra sections (skill and agent catalogs), the environment note, and
    `appended` (from --append-system-prompt) last."""
    base = MAIN_PROMPT if replacement is None else replacement
    return "\n\n".join(part for part in [base, *sections, environment_note(cwd), appended] if part)

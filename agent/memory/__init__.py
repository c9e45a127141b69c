"""Memory: the instruction files (CLAUDE.md, CLAUDE.local.md, `.claude/rules/`, the organisation's
managed CLAUDE.md) that carry an organisation's, a user's and a project's standing instructions,
gathered into the one context block Claude Code puts at the start of a conversation (the main one
and every subagent's but Explore's and Plan's), and attached later to the tool results of files in
folders below the working one (agent.tools.instructions, which reads them through `levels`).

`levels` says what is loaded at the start and in which order, `rules` reads `.claude/rules/`,
`files` reads one file and its `@path` imports within its fence.

May import: agent.workspace (the bottom layer).
"""

from __future__ import annotations

from agent.memory.files import MAX_FILE_CHARS, MAX_IMPORT_DEPTH, MemoryFile
from agent.memory.levels import MANAGED_VARIABLE, load_levels, managed_root
from agent.memory.rules import Rule

__all__ = ["HEADER", "KINDS", "MANAGED_VARIABLE", "MAX_FILE_CHARS", "MAX_IMPORT_DEPTH", "MemoryFile", "Rule",
           "load_levels", "managed_root", "memory_block"]

HEADER = ("Project and user instructions from CLAUDE.md memory files are shown below. Follow them: "
          "they take precedence over your default behaviour.")
# what each kind of file is called in the block, in Claude Code 2.1.332's words
KINDS = {
    "managed": "organization-managed policy instructions",
    "user": "user's private global instructions for all projects",
    "project": "project instructions, checked into the codebase",
    "local": "user's private project instructions, not checked in",
}


def memory_block(files: list[MemoryFile]) -> str | None:
    """The context block for `files`, or None when there are none."""
    if not files:
        return None
    entries = "\n\n".join(f"Contents of {f.path} ({KINDS[f.kind]}):\n\n{f.text.strip()}" for f in files)
    return f"<system-reminder>\n{HEADER}\n\n{entries}\n</system-reminder>"

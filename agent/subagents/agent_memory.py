"""An agent's own persistent memory (`memory: user|project|local` in its definition), as Claude
Code 2.1.332 keeps it: a folder per agent, `~/.claude/agent-memory/<name>/` (user),
`.claude/agent-memory/<name>/` (project) or `.claude/agent-memory-local/<name>/` (local), its name
the agent's with every character but letters, digits, `_` and `-` made `-` (so no name reaches
outside the folder). The agent's system prompt gets instructions for keeping it and the first 200
lines (at most 25,000 characters) of its `MEMORY.md`, with Claude Code's warning when more was cut;
it is given Read, Write and Edit whatever its `tools` say, and may read and write that folder
without asking. CLAUDE_CODE_DISABLE_AUTO_MEMORY=1 or `autoMemoryEnabled: false` in settings turns
the field off. In a workspace that is not trusted, a project agent's memory loads but grants no
writes: they are asked about as any other (the repository would be approving its own edits)."""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass, replace
from pathlib import Path

from agent.permissions.settings import settings_switch
from agent.permissions.trust import how_to_trust
from agent.workspace import FileTooLarge, read_bounded

log = logging.getLogger("agent")

SCOPES = ("user", "project", "local")
MEMORY_TOOLS = ("Read", "Write", "Edit")
INDEX = "MEMORY.md"
MAX_LINES = 200
MAX_CHARS = 25_000
_READ_BYTES = 1024 * 1024  # of MEMORY.md: far more than is ever loaded, enough to say how much was cut
_QUOTED = 80  # characters of the first line cut off that the warning quotes
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")

_SCOPE_NOTES = {
    "user": "it is yours in every project, so keep what you learn general",
    "project": "it belongs to this project and is shared with the team through version control, so keep "
               "to what matters for this project",
    "local": "it belongs to this project on this machine and is not checked into version control",
}
_INSTRUCTIONS = """\
# Persistent Agent Memory

You have a persistent memory folder at `{folder}/`, kept between conversations: {note}. Write to \
it directly with the Write tool (it creates the folder with the first file; do not run mkdir).

Keep there what will help in later conversations and cannot be read back from the project: the \
user's preferences and corrections, decisions and why they were made, pointers to outside \
resources. Do not save what the code, the git history or CLAUDE.md already say, nor details of \
the task at hand.

To save a memory, write it to its own file in the folder (for example `feedback_testing.md`), \
then add one line pointing to it to `MEMORY.md`: `- [Title](file.md) — one-line hook`. \
`MEMORY.md` is an index loaded into every conversation, and only its first {lines} lines (at most \
{chars:,} characters) are, so keep each entry to one short line. Update or remove memories that \
turn out to be wrong, and look for an existing one before writing a new one.

Read your memories when they seem relevant or earlier work is mentioned, and always when asked \
to recall something. A memory says what was true when it was written: check that a file, \
function or flag it names still exists before relying on it.

## MEMORY.md

{index}"""
_EMPTY = "Your MEMORY.md is currently empty. When you save new memories, they will appear here."
_ADVICE = "Keep index entries to one line under ~200 chars; move detail into topic files."


def memory_folder(scope: str, name: str, cwd: Path, home: Path) -> Path:
    """The memory folder of the agent `name` in `scope` (user, project or local)."""
    slug = _UNSAFE.sub("-", name)
    if scope == "user":
        return Path(home) / ".claude" / "agent-memory" / slug
    return Path(cwd) / ".claude" / ("agent-memory" if scope == "project" else "agent-memory-local") / slug


def memory_prompt(scope: str, folder: Path, fence: Path) -> str:
    """The memory section of the agent's system prompt: how to keep its memory in `folder`, then
    what its MEMORY.md holds (cut as Claude Code cuts it, with its warning), read only when it
    really lies inside `fence` (the workspace, or the home folder for user memory)."""
    return _INSTRUCTIONS.format(folder=folder, note=_SCOPE_NOTES[scope], lines=MAX_LINES, chars=MAX_CHARS,
                                index=_index(folder / INDEX, fence))


def memory_rules(folder: Path) -> tuple[str, ...]:
    """The allow rules that let the agent read and change its own memory folder without asking
    (an absolute-path rule naming `.claude`, which a sensitive path needs)."""
    pattern = f"/{folder}/**"
    return (f"Read({pattern})", f"Edit({pattern})")


def memory_tools(names: list[str], offered: list[str], disallowed: set[str]) -> list[str]:
    """`names` plus the memory tools the session `offered` and the definition does not disallow."""
    return names + [tool for tool in MEMORY_TOOLS if tool in offered and tool not in names and tool not in disallowed]


def without_memory_grants(agents: dict, cwd: Path, home: Path) -> dict:
    """`agents` for a workspace that is not trusted: a project agent's memory still loads, but its
    writes there are asked about as any other, one warning naming the first few such agents."""
    withheld = [name for name, definition in agents.items()
                if definition.source == "project" and definition.memory and definition.memory_grants]
    if not withheld:
        return agents
    names = ", ".join(repr(name) for name in withheld[:3]) + (f" and {len(withheld) - 3} more" if len(withheld) > 3 else "")
    kind = "the project agent" if len(withheld) == 1 else f"{len(withheld)} project agents"
    log.warning(f"The memory of {kind} {names} loads, but its writes there are asked about as any other: "
                + how_to_trust(home, cwd))
    return {name: replace(definition, memory_grants=False) if name in withheld else definition
            for name, definition in agents.items()}


def _index(path: Path, fence: Path) -> str:
    """What the system prompt shows of MEMORY.md at `path`: its first lines, and the warning.
    A MEMORY.md that really lies outside `fence` (a symlink out of the repository: to `~/.ssh`...)
    is not read, with one warning, nor is a device, a FIFO or a binary file."""
    if os.path.lexists(path) and not _inside(os.path.realpath(path), os.path.realpath(fence)):
        log.warning(f"agent memory: skipping {path}: it leads to {os.path.realpath(path)}, outside {fence}")
        return _EMPTY
    try:
        data, size = read_bounded(path, _READ_BYTES), None
    except FileTooLarge as large:
        data, size = large.head, _size(path)
    except OSError:  # none yet (or unreadable, or not a regular file): nothing remembered
        return _EMPTY
    text = data.decode("utf-8", errors="replace")
    if not text.strip() or "\0" in text:
        return _EMPTY
    kept, warning = truncated(text, size if size is not None else len(data))
    return kept + (f"\n\n{warning}" if warning else "")


def truncated(text: str, size: int) -> tuple[str, str | None]:
    """The part of MEMORY.md's `text` (`size` bytes) that is loaded, and Claude Code's warning
    when some was cut: the first MAX_LINES lines, as many whole ones as fit in MAX_CHARS (the
    first line's first MAX_CHARS characters when it alone does not)."""
    lines = text.splitlines()
    too_many, too_big = len(lines) > MAX_LINES, size > MAX_CHARS
    kept = lines[:MAX_LINES]
    while len(kept) > 1 and len("\n".join(kept)) > MAX_CHARS:
        kept.pop()
    if len("\n".join(kept)) > MAX_CHARS:  # one line longer than the whole budget
        head = f"MEMORY.md is {_kb(size)} (limit: {_kb(MAX_CHARS)}) — index entries are too long"
        return kept[0][:MAX_CHARS], (f"> WARNING: {head}. Only part of it was loaded: everything after the first "
                                     f"{MAX_CHARS} characters of line 1 was cut off. {_ADVICE}")
    if len(kept) == len(lines):
        return "\n".join(kept), None
    if too_many and too_big:
        head = f"MEMORY.md is {len(lines)} lines and {_kb(size)}"
    elif too_many:
        head = f"MEMORY.md is {len(lines)} lines (limit: {MAX_LINES})"
    else:
        head = f"MEMORY.md is {_kb(size)} (limit: {_kb(MAX_CHARS)}) — index entries are too long"
    first = lines[len(kept)]
    quoted = first if len(first) <= _QUOTED else first[:_QUOTED - 1] + "…"
    cut = len(lines) - len(kept)
    return "\n".join(kept), (f"> WARNING: {head}. Only part of it was loaded: {cut} of {len(lines)} lines were cut "
                             f"off, starting at line {len(kept) + 1} (\"{quoted}\"). {_ADVICE}")


def _inside(path: str, folder: str) -> bool:
    try:
        return os.path.commonpath([path, folder]) == folder
    except ValueError:
        return False


def _kb(size: int) -> str:
    return f"{size / 1024:.1f}KB"


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return _READ_BYTES


@dataclass(frozen=True)
class AgentMemory:
    """What an agent's memory adds when it starts: its system prompt's section, and the rules
    that let it keep its folder without asking (none for an untrusted project's agent)."""

    prompt: str
    rules: tuple[str, ...]


def agent_memory(definition, session) -> AgentMemory | None:
    """The memory `definition` starts with in `session`, or None: no `memory` field, or memory
    turned off (CLAUDE_CODE_DISABLE_AUTO_MEMORY, autoMemoryEnabled: false)."""
    if not definition.memory or not session.agent_memory:
        return None
    cwd, home = Path(session.workspace.cwd), Path.home()
    folder = memory_folder(definition.memory, definition.name, cwd, home)
    prompt = memory_prompt(definition.memory, folder, home if definition.memory == "user" else cwd)
    return AgentMemory(prompt, memory_rules(folder) if definition.memory_grants else ())


def memory_enabled(cwd: Path, home: Path, sources, extra_settings: str | None) -> bool:
    """Whether the settings leave agents' memory on: `autoMemoryEnabled` of the most specific
    settings file that sets it (--settings last); a value that is not true or false is one warning."""
    return settings_switch("autoMemoryEnabled", cwd, home, sources, extra_settings) is not False

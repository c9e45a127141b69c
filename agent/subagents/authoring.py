"""What an agent file's author is told: which files were skipped and why, which frontmatter keys
do nothing (with the supported name a typo was likely meant to be), and when the custom agents'
descriptions grow past what the model's context should carry.

As in Claude Code, the files that are plainly not agents (documentation beside them: no
frontmatter, no name) and the definitions it refuses for their name or a missing description are
skipped without a word on stderr; `--verbose` and the `--debug` log name each with the reason.
A file whose YAML does not parse is a broken agent, so it is said in one warning (file, line and
column), and, unlike a skill, it is never read leniently: a guess at what broken YAML meant could
hand the agent tools or a prompt its author did not write.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Iterable

from agent.permissions.rules import MCP_PREFIX
from agent.skills.frontmatter import METADATA_FIELDS, NO_FRONTMATTER, FrontmatterError
from agent.subagents.definitions import tool_name
from agent.tools import builtin_tools

log = logging.getLogger("agent")

# Claude Code's own agent frontmatter keys: what a misspelt key is compared with
CLAUDE_CODE_FIELDS = (
    "name", "description", "tools", "disallowedTools", "model", "permissionMode", "maxTurns", "skills",
    "mcpServers", "hooks", "memory", "background", "effort", "isolation", "color", "initialPrompt",
    "omitClaudeMd", "autoCompactWindow",
)
MAX_NAMED_KEYS = 5  # the debug log names this many keys of a file, then says how many more
DESCRIPTION_TOKEN_LIMIT = 15_000  # Claude Code warns past this many tokens of custom agents' descriptions
CHARS_PER_TOKEN = 4  # Claude Code's estimate


class QuietSkip(FrontmatterError):
    """A file skipped without a warning: Claude Code refuses it silently (its reason goes to the
    --verbose and --debug logs)."""


def skip(path: Path, error: FrontmatterError) -> None:
    """Log why the agent file at `path` is not loaded: a file without frontmatter is documentation
    and a QuietSkip is silent (both under --verbose and in the debug log); anything else (YAML that
    does not parse, a tools field that is neither text nor a list) is one warning."""
    if isinstance(error, QuietSkip) or str(error) == NO_FRONTMATTER:
        log.info(f"skipping {path}: {error}")
    else:
        log.warning(f"skipping {path}: {error}")


def report_unrecognized(path: Path, fields: dict[str, Any], handled: Iterable[str], unsupported: Iterable[str]) -> None:
    """One debug-log line naming the frontmatter keys of the agent file at `path` that do nothing
    here (keys nobody defines, and Claude Code's that this agent does not implement), in the
    file's order, the first MAX_NAMED_KEYS with the supported key each was likely meant to be:
    `"toolz" (did you mean "tools"?)`. Metadata keys (color, version, ...) are not named."""
    known = set(handled) | METADATA_FIELDS
    unused = [key for key in fields if key not in known]
    if not unused:
        return
    unapplied = set(unsupported)
    named = []
    for key in unused[:MAX_NAMED_KEYS]:
        guess = None if key in unapplied else did_you_mean(key, CLAUDE_CODE_FIELDS)
        named.append(f'"{key}"' + (f' (did you mean "{guess}"?)' if guess else ""))
    more = f" and {len(unused) - MAX_NAMED_KEYS} more" if len(unused) > MAX_NAMED_KEYS else ""
    log.debug(f"Agent file {path} has frontmatter keys this agent does not recognize or apply: "
              f"{', '.join(named)}{more}")


def did_you_mean(key: str, candidates: Iterable[str]) -> str | None:
    """The candidate `key` was most likely meant to be: the same but for case, `_` or `-`
    (`maxturns`, `disallowed_tools`), else the nearest within a small edit distance (`toolz`,
    `modle`, `colour`); None when nothing is near."""
    def plain(word: str) -> str:
        return word.lower().replace("_", "").replace("-", "")

    choices = [candidate for candidate in candidates if candidate != key]
    same = [candidate for candidate in choices if plain(candidate) == plain(key)]
    if same:
        return same[0]
    allowed = 1 if len(key) <= 4 else 2
    scored = sorted((_distance(plain(key), plain(candidate)), index) for index, candidate in enumerate(choices))
    if scored and scored[0][0] <= allowed:
        return choices[scored[0][1]]
    return None


def _distance(a: str, b: str) -> int:
    """Edits (insert, delete, replace, swap two neighbours) from `a` to `b`, for short keys only."""
    if abs(len(a) - len(b)) > 2 or max(len(a), len(b)) > 64:
        return 99
    rows = [list(range(len(b) + 1))]
    for i, letter in enumerate(a, 1):
        row = [i]
        for j, other in enumerate(b, 1):
            row.append(min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + (letter != other)))
            if i > 1 and j > 1 and letter == b[j - 2] and a[i - 2] == other:
                row[j] = min(row[j], rows[-2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]


def description_tokens(agents: Iterable[Any]) -> int:
    """The custom (not built-in) agents' descriptions in tokens, as Claude Code estimates them:
    `<name>: <description>` at four characters a token, rounded, summed over the agents."""
    return sum((len(f"{a.name}: {a.description}") + CHARS_PER_TOKEN // 2) // CHARS_PER_TOKEN
               for a in agents if a.source != "builtin")


def warn_about_description_size(agents: Iterable[Any]) -> None:
    """One warning when the custom agents' descriptions pass DESCRIPTION_TOKEN_LIMIT tokens (they
    all still load, and the catalog shortens them to its budget): every request carries them."""
    custom = [agent for agent in agents if agent.source != "builtin"]
    tokens = description_tokens(custom)
    if tokens > DESCRIPTION_TOKEN_LIMIT:
        log.warning(f"Agent descriptions are over the {DESCRIPTION_TOKEN_LIMIT:,}-token limit (~{tokens:,} tokens "
                    f"for {len(custom)} custom agents); all still load, but every request carries them: shorten "
                    "the description fields in .claude/agents/ and move the detail into each agent's body, which "
                    "is read only when it runs")


def warn_about_unknown_tools(definitions: Iterable[Any]) -> None:
    """One warning for every definition naming tools this agent does not have (MultiEdit, LS...):
    they are left out when the agent runs; --verbose says which agent names which. Every built-in
    counts as known (WebFetch, WebSearch, NotebookEdit, the task tools and TodoWrite among them),
    and so do the ones the session adds (Skill, Agent, and SendMessage, which only the main
    conversation has, `--agent` among them, as in Claude Code). MCP tools (`mcp__...`) are looked
    for among the servers' tools when the agent runs."""
    known = {tool.name for tool in builtin_tools()} | {"Skill", "Agent", "SendMessage"}
    unknown: dict[str, list[str]] = {}
    for definition in definitions:
        for entry in (*(definition.tools or ()), *definition.disallowed_tools):
            if tool_name(entry) not in known and not tool_name(entry).startswith(MCP_PREFIX):
                unknown.setdefault(tool_name(entry), []).append(definition.name)
    if not unknown:
        return
    agents = sorted({name for names in unknown.values() for name in names})
    for name in agents:
        tools = sorted(tool for tool, users in unknown.items() if name in users)
        log.info(f"agent {name!r}: leaving out tools this agent does not have: {', '.join(tools)}")
    shown = ", ".join(sorted(unknown)[:6]) + (", ..." if len(unknown) > 6 else "")
    counted = f"{len(agents)} agent definitions name" if len(agents) > 1 else "1 agent definition names"
    log.warning(f"{counted} tools this agent does not have ({shown}); they are left out (--verbose lists which "
                "agent names which)")

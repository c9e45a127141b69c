"""Reading permission rules as Claude Code writes and reads them: `Tool` or `Tool(specifier)`, with
`\\(`, `\\)` and `\\\\` escaped inside the parentheses, `Tool(*)` meaning every use, and the legacy
name `Task` meaning `Agent`. Claude Code skips a rule it cannot parse and never consults some that
parse; such a rule approves nothing here either, but as a deny or ask rule it is read broadly, as
its writer most plausibly meant it, and a warning says so.

MCP tools (`mcp__<server>__<tool>`) are named as Claude Code names them: `mcp__kb` is every tool
of the server kb (every tool whose name starts with `mcp__kb__`, so a server named `kb__v2` too),
`mcp__kb__lookup` one tool, and `mcp__kb__*` (or `mcp__kb__look*`) a pattern over the tool names.
An allow rule must name its server as written (`mcp__*` and `mcp__k*` approve nothing); deny and
ask rules may put `*` anywhere. MCP rules take no parentheses."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterable

ALIASES = {"Task": "Agent"}  # Claude Code still reads rules written with the old names
MCP_PREFIX = "mcp__"  # an MCP tool's name: mcp__<server>__<tool>
_PATH_TOOLS = ("Read", "Edit", "Write", "Glob", "Grep")
_COVERED_BY = {"Write": "Edit", "Glob": "Read", "Grep": "Read"}  # Claude Code consults these rules' paths


@dataclass(frozen=True)
class Rule:
    """One reading of a rule: the tool (a `*` pattern in deny and ask rules) and the specifier,
    unescaped, or None for every use of the tool."""

    tool: str
    specifier: str | None = None
    any_case: bool = False  # a lower-case tool name, read broadly

    def names(self, tool: str) -> bool:
        """Whether this rule is about `tool`."""
        if "*" in self.tool:
            return wildcard_matches(self.tool, tool, self.any_case)
        if self.tool.startswith(MCP_PREFIX) and "__" not in self.tool[len(MCP_PREFIX):]:
            return tool.startswith(self.tool + "__")  # a server's every tool
        return self.tool == tool or self.any_case and self.tool.casefold() == tool.casefold()

    def __str__(self) -> str:
        if self.specifier is None:
            return self.tool
        return self.tool + "(" + re.sub(r"([()\\])", r"\\\1", self.specifier) + ")"


@dataclass(frozen=True)
class Reading:
    """What a rule means: `strict` (Claude Code's reading, for allow rules), `broad` (for deny and
    ask rules), either None when the rule matches nothing, and `problem`, why Claude Code would
    skip the rule or read it otherwise than it looks ("" for a rule that reads as written)."""

    strict: Rule | None
    broad: Rule | None
    problem: str = ""
    allow_only: bool = False  # the problem is one only for an allow rule


@lru_cache(maxsize=4096)
def read_rule(text: str) -> Reading:
    """The readings of one rule as written in settings or a flag."""
    text = text.strip()
    opening, closing = _unescaped(text, "("), _unescaped(text, ")", last=True)
    if not text:
        return Reading(None, None, "is empty")
    if opening < 0 and closing < 0:
        return _reading(text, None, [], [])
    if opening < 0 or closing != len(text) - 1 or closing < opening:
        return Reading(None, None, "does not end with the ')' closing its '('")
    name, spec = text[:opening], _unescape(text[opening + 1:closing])
    fatal, notes = [], []
    if name != name.rstrip():
        fatal.append("has a blank before '('")
    if _count(text, "(") != _count(text, ")"):
        fatal.append("has unbalanced parentheses (write \\( and \\) for literal ones)")
    if re.search(r"(?<!\\)(?:\\\\)*\(\)", text):
        fatal.append("has empty parentheses" + (" (write just the tool name for every use)" if not spec else ""))
    if spec != spec.strip():
        notes.append("has blanks inside its parentheses, which Claude Code keeps as part of the specifier")
    return _reading(name.strip(), spec, fatal, notes)


def _reading(name: str, spec: str | None, fatal: list[str], notes: list[str]) -> Reading:
    tool = ALIASES.get(name, name)
    if not tool:
        return Reading(None, None, "names no tool")
    if tool.startswith(MCP_PREFIX):
        return _mcp_reading(tool, spec is not None, fatal, notes)
    spec = None if spec == "*" else spec
    broad_spec = None if spec is None or spec.strip() in ("", "*") else spec.strip()
    broad_tool, lower = tool, not tool[0].isupper() and "_" not in tool
    if "*" in tool:
        wildcard = "has '*' in its tool name, which only deny and ask rules may"
        if not fatal and not notes:
            return Reading(None, Rule(tool, broad_spec), wildcard, allow_only=True)
        fatal.append(wildcard)
    elif lower:
        fatal.append("names its tool in lower case")
    if broad_spec and ":*" in broad_spec and tool in ("Bash", *_PATH_TOOLS):
        if tool != "Bash":
            fatal.append("uses ':*', which only Bash prefix rules take (write '*')")
            broad_spec = broad_spec.replace(":*", "*")
        elif broad_spec == ":*":
            fatal.append("has no prefix before ':*'")
            broad_spec = None
        elif not broad_spec.endswith(":*") or broad_spec.count(":*") > 1:
            fatal.append("has ':*' before its end (write ' *' for a wildcard)")
            broad_spec = broad_spec.replace(":*", " *")
    if tool in _COVERED_BY and broad_spec is not None:
        fatal.append(f"gives a path to {tool}, which Claude Code never consults ({_COVERED_BY[tool]} rules "
                     f"cover {tool})")
        broad_tool = _COVERED_BY[tool]
    strict = None if fatal else Rule(tool, spec)
    return Reading(strict, Rule(broad_tool, broad_spec, lower), "; ".join(fatal + notes))


def _mcp_reading(tool: str, parenthesised: bool, fatal: list[str], notes: list[str]) -> Reading:
    """An MCP rule (`mcp__server`, `mcp__server__tool`, a `*` pattern): Claude Code skips one with
    parentheses, even `(*)`, and one whose server is a pattern approves nothing; as a deny or ask
    rule either covers every use of what it names."""
    server = tool[len(MCP_PREFIX):].split("__", 1)[0]
    if parenthesised:
        fatal.append("is an MCP rule, which takes no parentheses")
    if not server:
        return Reading(None, None, "; ".join([*fatal, "names no MCP server"]))
    broad = Rule(tool)
    if tool.endswith("__") and not tool[len(MCP_PREFIX + server):].strip("_"):
        fatal.append("ends with '__', naming no tool (write the server alone for all its tools)")
        broad = Rule(MCP_PREFIX + server)
    if "*" in server:
        wildcard = "has '*' in its MCP server name, which only deny and ask rules may"
        if not fatal and not notes:
            return Reading(None, broad, wildcard, allow_only=True)
        fatal.append(wildcard)
    return Reading(None if fatal else broad, broad, "; ".join(fatal + notes))


def wildcard_matches(pattern: str, text: str, any_case: bool = False) -> bool:
    """Whether `text` is `pattern` with each `*` standing for any run of characters. Greedy and
    linear in the text, so that a rule from a file someone else wrote (`*a*a*a*a*b`) cannot make
    the match take exponential time, as a backtracking regex would."""
    if any_case:
        pattern, text = pattern.casefold(), text.casefold()
    first, *middle, last = pattern.split("*")
    if len(first) + len(last) > len(text) or not text.startswith(first) or not text.endswith(last):
        return False
    start, end = len(first), len(text) - len(last)
    for piece in middle:  # each piece at its earliest place leaves the most room for the rest
        found = text.find(piece, start, end)
        if found < 0:
            return False
        start = found + len(piece)
    return True


def linear_regex(pattern: str) -> Any:
    """`pattern` (a Python `re` pattern built from a rule, `.` matching line breaks too) compiled
    by RE2, whose matching time is linear in the text: Bash and file rules come from settings files
    others may write, and a backtracking regex can take forever over `*a*a*a…b`. RE2 is loaded when
    a rule first needs it. Raises ValueError when RE2 cannot compile the pattern."""
    import re2

    options = re2.Options()
    options.dot_nl, options.log_errors = True, False
    try:
        return re2.compile(pattern, options=options)
    except re2.error as error:
        raise ValueError(f"cannot compile {pattern!r}: {error}") from None


def rule_warning(text: str, kind: str) -> str | None:
    """What is wrong with a rule of `kind` (allow, deny or ask) and what this agent makes of it, in
    one line; None when it reads as written."""
    reading = read_rule(text)
    if not reading.problem or reading.allow_only and kind != "allow":
        return None
    rule = reading.strict if kind == "allow" else reading.broad
    if rule is None:
        return f"{reading.problem}; it is ignored"
    if rule.any_case:
        return f"{reading.problem}; it is read in any letter case"
    return reading.problem + ("" if str(rule) == text.strip() else f"; it is read as {rule}")


def _escaped(text: str, i: int) -> bool:
    """Whether the character at i follows an odd number of backslashes."""
    return (i - len(text[:i].rstrip("\\"))) % 2 == 1


def _unescaped(text: str, char: str, last: bool = False) -> int:
    """The index of the first (or last) `char` not escaped by a backslash, or -1."""
    indexes = [i for i, c in enumerate(text) if c == char and not _escaped(text, i)]
    return (indexes[-1] if last else indexes[0]) if indexes else -1


def _count(text: str, char: str) -> int:
    return sum(1 for i, c in enumerate(text) if c == char and not _escaped(text, i))


def _unescape(spec: str) -> str:
    """`\\(`, `\\)` and `\\\\` read as the characters they escape; other backslashes stay."""
    return re.sub(r"\\([()\\])", r"\1", spec)


def split_rules(value: str) -> list[str]:
    """The rules in a flag value: separated by spaces or commas, except inside parentheses."""
    rules, current, depth, i = [], "", 0, 0
    while i < len(value):
        char = value[i]
        if char == "\\":  # an escaped character never separates or nests
            current, i = current + value[i:i + 2], i + 2
            continue
        if char in " \t\n," and depth == 0:
            rules.append(current)
            current = ""
        else:
            depth += 1 if char == "(" else -1 if char == ")" and depth else 0
            current += char
        i += 1
    return [rule.strip() for rule in [*rules, current] if rule.strip()]


def merge_rules(*lists: Iterable[str]) -> tuple[str, ...]:
    """The rules of every list in order, each once."""
    return tuple(dict.fromkeys(rule for rules in lists for rule in rules))

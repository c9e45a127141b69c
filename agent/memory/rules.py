"""Rules: the Markdown files under a `.claude/rules/` folder (subfolders included), each a piece of
standing instructions, as Claude Code 2.1.332 reads them.

A rule without `paths` in its frontmatter is loaded at the start with its folder's CLAUDE.md
files. A rule with `paths` (a glob or a list of globs, relative to the folder holding `.claude`,
`{a,b}` alternatives allowed) waits until a file it matches is read or edited, and is then
attached to that tool's result (agent.tools.instructions). The frontmatter itself is never shown.
Files are taken in sorted path order (Claude Code takes the folder's own order, which varies from
one file system to another), at most MAX_RULE_FILES of them per folder; frontmatter that is not a
YAML mapping skips the file, with a warning; a rules folder that really lies outside its fence
(`.claude/rules -> /`) is skipped whole, with one warning, never walked. A rule's text counts
against its loading's bounds (agent.memory.files), whether it waits or not; the rules waiting in
one conversation hold at most MAX_WAITING_GLOBS globs in all (`within_globs`), so matching them
against each file read stays quick.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.memory.files import Loader, inside, read_visible
from agent.workspace import load_yaml

log = logging.getLogger("agent")

MAX_RULE_FILES = 200
MAX_PATTERNS = 50
MAX_ALTERNATIVES = 64  # what one pattern's `{a,b}` groups may expand to
MAX_GROUPS, MAX_PATTERN_CHARS = 8, 1024  # a pattern with more, or longer, is not expanded
MAX_WAITING_GLOBS = 1000  # of all the rules waiting in one conversation, each matched against each file read


@dataclass(frozen=True)
class Rule:
    """A rule waiting for a file it applies to: `patterns` are relative to `base`."""

    path: Path
    kind: str
    base: Path
    fence: Path  # the folder it must lie in, as its imports must
    patterns: tuple[str, ...]
    text: str


def load_rules(folder: Path, kind: str, base: Path, fence: Path, loader: Loader) -> list[Rule]:
    """Load the rules of `folder/.claude/rules` that always apply into `loader` and return the ones
    that wait for a matching file (`paths` relative to `base`); every file must lie in `fence`."""
    waiting, root = [], Path(folder) / ".claude" / "rules"
    if root.is_dir() and not inside(real := os.path.realpath(root), fence):  # never walked: `rules -> /`
        log.warning(f"memory: skipping {root}: it leads to {real}, outside {fence}")
        return []
    for path in rule_files(root):
        if not loader.claim(path, fence, kind):
            continue
        text = read_visible(path)
        if text is None:
            continue
        split = _frontmatter(text, path)
        if split is None:
            continue
        patterns, body = split
        if patterns and loader.take(path, body):
            waiting.append(Rule(path, kind, Path(base), Path(fence), patterns, body))
        elif not patterns:
            loader.load(path, kind, fence, text=body)
    return waiting


def within_globs(rules: list[Rule], where: str = "", warn: bool = True) -> tuple[list[Rule], int]:
    """The first of `rules` that hold at most MAX_WAITING_GLOBS globs together, and how many were
    left out (one warning when any were, `where` naming for what, unless `warn` is off)."""
    kept, globs = [], 0
    for rule in rules:
        globs += len(rule.patterns)
        if globs > MAX_WAITING_GLOBS:
            break
        kept.append(rule)
    left_out = len(rules) - len(kept)
    if left_out and warn:
        log.warning(f"memory: the rules with paths{where} hold more than {MAX_WAITING_GLOBS} globs in all; "
                    f"leaving out the last {left_out} of those rules")
    return kept, left_out


def rule_files(root: Path) -> list[Path]:
    """The `.md` files under `root`, in sorted order, at most MAX_RULE_FILES (symlinked folders
    are not followed, so a loop cannot hang the start)."""
    if not root.is_dir():
        return []
    found = []
    for folder, subfolders, files in os.walk(root):
        subfolders.sort()
        found += [Path(folder) / name for name in files if name.endswith(".md")]
        if len(found) > MAX_RULE_FILES * 4:  # enough to choose from; the rest is not looked at
            break
    found.sort()
    if len(found) > MAX_RULE_FILES:
        log.warning(f"memory: {root} holds more than {MAX_RULE_FILES} rule files; reading the first {MAX_RULE_FILES}")
    return found[:MAX_RULE_FILES]


def _frontmatter(text: str, path: Path) -> tuple[tuple[str, ...], str] | None:
    """A rule's `paths` globs and its text without the frontmatter; None (with a warning) when the
    frontmatter is not a YAML mapping."""
    if not text.startswith("---\n"):
        return (), text
    end = text.find("\n---", 3)
    if end < 0 or text[end + 4:end + 5] not in ("", "\n"):
        return (), text
    try:
        fields = load_yaml(text[4:end], f"the frontmatter of {path}")
    except Exception as error:  # yaml.YAMLError or InputLimitError: the file is someone else's
        log.warning(f"memory: skipping {path}: its frontmatter is not valid YAML ({str(error).splitlines()[0]})")
        return None
    if fields is None:
        fields = {}
    if not isinstance(fields, dict):
        log.warning(f"memory: skipping {path}: its frontmatter is not a mapping")
        return None
    return _patterns(fields.get("paths"), path), text[end + 5:]


def _patterns(value: Any, path: Path) -> tuple[str, ...]:
    """The globs of a `paths` field (one text, a comma-separated text or a list of texts)."""
    items = value if isinstance(value, list) else [value] if isinstance(value, str) else []
    if value is not None and not items:
        log.warning(f"memory: {path}: paths should be a glob or a list of globs; the rule always applies")
    texts = [part.strip() for item in items if isinstance(item, str) for part in _split(item)]
    patterns = [alternative for text in texts if text for alternative in _alternatives(text)]
    return tuple(dict.fromkeys(patterns))[:MAX_PATTERNS * MAX_ALTERNATIVES]


def _split(text: str) -> list[str]:
    """`text` split at the commas outside `{...}` groups."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        depth += (char == "{") - (char == "}" and depth > 0)
        if char == "," and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    return parts + [text[start:]]


def _alternatives(pattern: str) -> list[str]:
    """`pattern` with its first `{a,b}` group expanded (then the rest, in turn), at most MAX_ALTERNATIVES."""
    if len(pattern) > MAX_PATTERN_CHARS or pattern.count("{") > MAX_GROUPS:
        return [pattern]  # taken as written: its braces then match only themselves
    opening = pattern.find("{")
    closing = pattern.find("}", opening + 1)
    if opening < 0 or closing < 0:
        return [pattern]
    head, choices, tail = pattern[:opening], pattern[opening + 1:closing].split(","), pattern[closing + 1:]
    expanded: list[str] = []
    for choice in choices:
        for rest in _alternatives(tail):
            expanded.append(head + choice + rest)
            if len(expanded) >= MAX_ALTERNATIVES:
                return expanded
    return expanded

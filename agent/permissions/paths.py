"""File rules against paths, with gitignore semantics as Claude Code applies them: `//abs` is
absolute, `~/x` is in the home folder, everything else is relative to the workspace (`./` is
dropped), and a pattern with no inner `/` matches at any depth."""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from agent.permissions.rules import linear_regex


def normal_path(path: Path) -> Path:
    """`path` made absolute and normalised, as the tools resolve it (symlinks not followed)."""
    text = os.path.normpath(os.path.abspath(path))
    return Path("/" + text.lstrip("/") if text.startswith("//") else text)  # POSIX keeps a leading //


def path_matches(spec: str, path: Path, cwd: Path, home: Path, broad: bool = False) -> bool:
    """A gitignore-style file specifier against an absolute path: the path, or a folder holding
    it, must match, and it must lie under the pattern's anchor (root, home or workspace). `broad`
    reads `name/**` as Claude Code does, any folder called `name` at any depth (deny and ask rules);
    otherwise it is the workspace's `name` folder only."""
    if spec.startswith("//"):
        anchor, pattern = Path("/"), spec[2:]
    elif spec == "~" or spec.startswith("~/"):
        anchor, pattern = home, spec[2:]
    else:  # `/x` (Claude Code: relative to the settings file), `./x` and `x` start at the workspace
        anchor, pattern = cwd, spec[2:] if spec.startswith("./") else spec
    pattern = re.sub(r"/{2,}", "/", pattern)
    rooted = spec == "~" or spec.startswith(("/", "~/"))
    anchored = rooted or "/" in pattern.rstrip("/")  # gitignore: an inner `/` anchors a pattern
    if broad and not rooted and pattern.endswith("/**") and "/" not in pattern[:-3]:
        anchored = False
    segments = (pattern.strip("/") or "**").split("/")  # `./`, `~/` and `//` alone mean everything
    while anchored and len(segments) > 1 and not re.search(r"[*?\[]", segments[0]):
        anchor, segments = anchor / segments[0], segments[1:]  # fold literal folders (and `..`)
    try:
        relative = path.relative_to(normal_path(anchor))
    except ValueError:
        return False
    regex = _gitignore_regex("/".join(segments), anchored)
    folders = ["/".join(relative.parts[:n]) for n in range(len(relative.parts), 0, -1)]
    return any(regex.fullmatch(candidate) for candidate in folders or [""])


@lru_cache(maxsize=1024)
def _gitignore_regex(pattern: str, anchored: bool) -> Any:
    """`**/` spans folders, a final `/**` everything inside (and the folder), `*` and `?` stay
    within one name, `[...]` is a class; an unanchored pattern may start in any folder."""
    tail = r"(?:/.*)?" if pattern.endswith("/**") else ""
    pattern = pattern[:-3] if tail else pattern
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] in "*?":
            out.append("[^/]*" if pattern[i] == "*" else "[^/]")
            i += 1
        elif pattern[i] == "[" and (end := pattern.find("]", i + 2)) > 0:
            inner = pattern[i + 1:end].replace("\\", "\\\\")
            out.append("[" + ("^" + inner[1:] if inner.startswith("!") else inner) + "]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    try:
        return linear_regex(("" if anchored else "(?:.*/)?") + "".join(out) + tail)
    except ValueError:  # e.g. a class like [z-a]: take the pattern literally
        return linear_regex(re.escape(pattern))

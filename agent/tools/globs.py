"""Glob patterns as Glob and Grep read them (`*`, `?`, `[...]`, `{a,b}`, `**` spanning folders),
matched without backtracking: a pattern such as `*a*a*a*a*a*b` takes time in proportion to the
pattern times the path, never exponential in it."""

from __future__ import annotations

import re
from typing import Callable, Union

from agent.tools.base import ToolError

MAX_ALTERNATIVES = 256  # brace expansions of one pattern: `{a,b}{c,d}...` doubles with each group
_BRACES = re.compile(r"\{([^{}]*)\}")

_STAR = "*"
_GLOBSTAR = "**"
Char = Union[str, "re.Pattern[str]"]  # one literal character, `?` (any), or a compiled [class]
Segment = Union[str, list]  # _GLOBSTAR, or the tokens of one path segment


def _expand_braces(pattern: str) -> list[str]:
    """`*.{ts,tsx}` → [`*.ts`, `*.tsx`], as most shells and glob libraries do."""
    found = [pattern]
    while any(_BRACES.search(p) and "," in _BRACES.search(p).group(1) for p in found):
        expanded = []
        for item in found:
            match = _BRACES.search(item)
            if not match or "," not in match.group(1):
                expanded.append(item)
                continue
            before, after = item[: match.start()], item[match.end():]
            expanded.extend(before + choice + after for choice in match.group(1).split(","))
        if len(expanded) > MAX_ALTERNATIVES:
            raise ToolError(f"The pattern expands to more than {MAX_ALTERNATIVES} alternatives; use fewer {{a,b}} groups.")
        found = expanded
    return found


def _segment_tokens(segment: str) -> list:
    """One path segment of a glob as tokens: `*`, `?`, a literal character or a compiled class."""
    tokens: list = []
    i = 0
    while i < len(segment):
        char = segment[i]
        if char == "*":
            if not tokens or tokens[-1] != _STAR:  # `**` inside a segment is one `*`
                tokens.append(_STAR)
        elif char == "?":
            tokens.append(re.compile(r"[^/]"))
        elif char == "[":
            end = i + 1
            if end < len(segment) and segment[end] == "!":
                end += 1
            if end < len(segment) and segment[end] == "]":
                end += 1
            end = segment.find("]", end)
            if end == -1:
                tokens.append(char)
            else:
                body = segment[i + 1:end].replace("\\", "\\\\")
                if body.startswith("!"):
                    body = "^" + body[1:]
                tokens.append(re.compile(f"[{body}]"))
                i = end
        else:
            tokens.append(char)
        i += 1
    return tokens


def _one(token: Char, char: str) -> bool:
    return token == char if isinstance(token, str) else token.fullmatch(char) is not None


def _wildcard(pattern: list, items: list, is_star: Callable, one: Callable) -> bool:
    """Whether `items` match `pattern`, where a star item matches any run of items and every other
    matches exactly one: the greedy matcher that backs up only to the latest star (O(n·m))."""
    p = i = 0
    star_p, star_i = -1, 0
    while i < len(items):
        if p < len(pattern) and is_star(pattern[p]):
            star_p, star_i = p, i
            p += 1
        elif p < len(pattern) and one(pattern[p], items[i]):
            p += 1
            i += 1
        elif star_p >= 0:
            p, star_i = star_p + 1, star_i + 1
            i = star_i
        else:
            return False
    return all(is_star(rest) for rest in pattern[p:])


def _segment_matches(tokens: list, name: str) -> bool:
    return _wildcard(tokens, list(name), lambda t: t == _STAR, _one)


class GlobMatcher:
    """A compiled glob: `match(relative_posix_path)` says whether the whole path matches."""

    def __init__(self, pattern: str):
        self._alternatives: list[list[Segment]] = []
        for expanded in _expand_braces(pattern):
            parts = [part for part in expanded.split("/") if part not in ("", ".")]
            segments: list[Segment] = [_GLOBSTAR if part == "**" else _segment_tokens(part) for part in parts]
            if segments and segments[-1] == _GLOBSTAR:  # a final `**` matches one or more segments
                segments.append([_STAR])
            self._alternatives.append(segments)

    def match(self, path: str) -> bool:
        """Whether the relative POSIX `path` matches the glob as a whole."""
        parts = path.split("/")
        return any(_wildcard(segments, parts, lambda s: s == _GLOBSTAR, _segment_matches)
                   for segments in self._alternatives)

"""Search tools: Glob finds files by path pattern, Grep finds files by content."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Iterator

from agent.tools.base import Tool, ToolError, object_schema
from agent.tools.files import is_binary

MAX_FILES = 100
MAX_CONTENT_LINES = 250
MAX_LINE_CHARS = 500
_MAGIC = re.compile(r"[*?\[{]")
_BRACES = re.compile(r"\{([^{}]*)\}")


def _expand_braces(pattern: str) -> list[str]:
    """`*.{ts,tsx}` → [`*.ts`, `*.tsx`], as most shells and glob libraries do."""
    match = _BRACES.search(pattern)
    if not match or "," not in match.group(1):
        return [pattern]
    before, after = pattern[: match.start()], pattern[match.end():]
    return [out for choice in match.group(1).split(",") for out in _expand_braces(before + choice + after)]


def _segment_regex(segment: str) -> str:
    """One path segment of a glob as a regex; wildcards never cross a `/`."""
    out, i = [], 0
    while i < len(segment):
        char = segment[i]
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = i + 1
            if end < len(segment) and segment[end] == "!":
                end += 1
            if end < len(segment) and segment[end] == "]":
                end += 1
            end = segment.find("]", end)
            if end == -1:
                out.append(re.escape(char))
            else:
                body = segment[i + 1:end].replace("\\", "\\\\")
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = end
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


def _glob_regex(pattern: str) -> re.Pattern[str]:
    """A regex matching relative POSIX paths the way pathlib globs do, with `**` spanning folders."""
    alternatives = []
    for expanded in _expand_braces(pattern):
        parts = [part for part in expanded.split("/") if part not in ("", ".")]
        regex = ""
        for index, part in enumerate(parts):
            last = index == len(parts) - 1
            if part == "**":
                regex += ".+" if last else "(?:[^/]+/)*"
            else:
                regex += _segment_regex(part) + ("" if last else "/")
        alternatives.append(regex)
    return re.compile("(?:" + "|".join(alternatives) + r")\Z", re.DOTALL)


def _walk(root: Path, max_depth: int | None = None) -> Iterator[Path]:
    """Every file under `root` in sorted order, never entering `.git` folders."""
    for folder, dirs, files in os.walk(root):
        depth = len(Path(folder).relative_to(root).parts)
        dirs[:] = [] if max_depth is not None and depth >= max_depth else sorted(d for d in dirs if d != ".git")
        for name in sorted(files):
            yield Path(folder, name)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _by_recency(paths: list[Path], context: Any) -> list[str]:
    ordered = sorted(paths, key=lambda p: (-_mtime(p), context.workspace.display(p)))
    return [context.workspace.display(p) for p in ordered]


def _search_root(arguments: dict[str, Any], context: Any) -> Path:
    value = arguments.get("path")
    if value is not None and not isinstance(value, str):
        raise ToolError("path must be a string.")
    root = context.workspace.resolve(value or ".")
    if not root.exists():
        raise ToolError(f"Path does not exist: {context.workspace.display(root)}")
    return root


def _capped(lines: list[str], cap: int, what: str) -> str:
    if len(lines) <= cap:
        return "\n".join(lines)
    return "\n".join(lines[:cap] + [f"(showing {cap} of {len(lines)} {what})"])


def _glob(arguments: dict[str, Any], context: Any) -> str:
    pattern = arguments.get("pattern")
    if not isinstance(pattern, str) or not pattern.strip():
        raise ToolError("pattern is required and must be a non-empty string.")
    root = _search_root(arguments, context)
    if not root.is_dir():
        raise ToolError(f"{context.workspace.display(root)} is not a folder.")
    parts = Path(pattern).parts
    # Leading literal folders (including an absolute prefix) narrow the walk instead of being matched.
    literal = 0
    while literal < len(parts) - 1 and not _MAGIC.search(parts[literal]):
        literal += 1
    base = context.workspace.resolve(root.joinpath(*parts[:literal]))
    rest = "/".join(parts[literal:])
    if not base.is_dir():
        return "No files found"
    matcher = _glob_regex(rest)
    max_depth = None if "**" in rest or "{" in rest else rest.count("/")
    found = [path for path in _walk(base, max_depth) if matcher.match(path.relative_to(base).as_posix())]
    if not found:
        return "No files found"
    return _capped(_by_recency(found, context), MAX_FILES, "matches")


def _grep_files(root: Path, glob: str | None, context: Any) -> Iterator[Path]:
    matcher = _glob_regex(glob) if glob else None
    candidates = [root] if root.is_file() else _walk(root)
    policy = getattr(getattr(context, "agent", None), "policy", None)
    for path in candidates:
        if not path.is_file():  # a named pipe or socket would block the read forever
            continue
        if policy is not None and not policy.check("Read", {"file_path": str(path)}, True).allowed:
            continue  # a file Read may not open (a deny rule on .env) must not leak through a search
        relative = path.name if path == root else path.relative_to(root).as_posix()
        if matcher and not (matcher.match(path.name) or matcher.match(relative)):
            continue
        yield path


def _matching_lines(path: Path, regex: re.Pattern[str]) -> Iterator[tuple[int, str]]:
    with open(path, encoding="utf-8", errors="replace", newline="") as handle:
        for number, line in enumerate(handle, 1):
            line = line.rstrip("\r\n")
            if regex.search(line):
                yield number, line


def _grep(arguments: dict[str, Any], context: Any) -> str:
    pattern = arguments.get("pattern")
    if not isinstance(pattern, str) or not pattern:
        raise ToolError("pattern is required and must be a non-empty string.")
    mode = arguments.get("output_mode") or "files_with_matches"
    if mode not in ("files_with_matches", "content", "count"):
        raise ToolError("output_mode must be one of files_with_matches, content or count.")
    glob = arguments.get("glob")
    if glob is not None and not isinstance(glob, str):
        raise ToolError("glob must be a string.")
    try:
        regex = re.compile(pattern, re.IGNORECASE if arguments.get("-i") else 0)
    except re.error as error:
        raise ToolError(f"Invalid regular expression {pattern!r}: {error}") from error
    root = _search_root(arguments, context)
    display = context.workspace.display
    matched: list[Path] = []
    lines: list[str] = []
    for path in _grep_files(root, glob, context):
        try:
            if is_binary(path):
                continue
            if mode == "files_with_matches":
                if next(_matching_lines(path, regex), None) is not None:
                    matched.append(path)
            elif mode == "count":
                count = sum(1 for _ in _matching_lines(path, regex))
                if count:
                    lines.append(f"{display(path)}:{count}")
            else:
                for number, line in _matching_lines(path, regex):
                    if len(line) > MAX_LINE_CHARS:
                        line = line[:MAX_LINE_CHARS] + " [... line truncated]"
                    lines.append(f"{display(path)}:{number}:{line}")
        except OSError:
            continue  # unreadable files (permissions, vanished mid-walk) are simply not searched
    if mode == "files_with_matches":
        lines = _by_recency(matched, context)
    if not lines:
        return "No matches found"
    if mode == "content":
        return _capped(lines, MAX_CONTENT_LINES, "matching lines")
    return _capped(lines, MAX_FILES, "files")


GLOB = Tool(
    name="Glob",
    description=("Find files whose paths match a glob pattern such as **/*.py or src/**/*.ts. "
                 "Returns up to 100 paths, most recently modified first."),
    parameters=object_schema(
        {
            "pattern": {"type": "string", "description": "Glob pattern; ** matches any number of folders."},
            "path": {"type": "string", "description": "Folder to search in (default: working directory)."},
        },
        ["pattern"],
    ),
    run=_glob,
    read_only=True,
)

GREP = Tool(
    name="Grep",
    description=("Search file contents with a Python regular expression. Lists matching files by "
                 "default; output_mode content shows matching lines, count shows matches per file."),
    parameters=object_schema(
        {
            "pattern": {"type": "string", "description": "Regular expression to search for."},
            "path": {"type": "string", "description": "File or folder to search (default: working directory)."},
            "glob": {"type": "string", "description": "Only search files matching this glob, e.g. *.py."},
            "output_mode": {"type": "string", "enum": ["files_with_matches", "content", "count"],
                            "description": "What to return (default files_with_matches)."},
            "-i": {"type": "boolean", "description": "Case-insensitive search."},
        },
        ["pattern"],
    ),
    run=_grep,
    read_only=True,
)

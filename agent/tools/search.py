"""Search tools: Glob finds files by path pattern, Grep finds files by content. Both are bounded:
a time limit per search, linear-time matching (RE2 for Grep's regex, a non-backtracking glob
matcher), lines read in capped pieces, and only regular files opened."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator

from agent.tools.base import Tool, ToolError, object_schema
from agent.tools.globs import GlobMatcher
from agent.tools.listing import Deadline, search_files, walk
from agent.tools.reading import bounded_lines, looks_binary
from agent.workspace import open_regular, special_file

MAX_FILES = 100
MAX_CONTENT_LINES = 250
MAX_LINE_CHARS = 500
MAX_SEARCH_LINE_BYTES = 64 * 1024  # a longer line is searched in its first 64 KB
_MAGIC = re.compile(r"[*?\[{]")


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
    if kind := special_file(root):
        raise ToolError(f"{context.workspace.display(root)} is {kind}, not a file or folder.")
    return root


def _capped(lines: list[str], cap: int, what: str, total: int | None = None) -> str:
    total = len(lines) if total is None else total
    if total <= cap:
        return "\n".join(lines)
    return "\n".join(lines[:cap] + [f"(showing {cap} of {total} {what})"])


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
    matcher = GlobMatcher(rest)
    max_depth = None if "**" in rest or "{" in rest else rest.count("/")
    deadline = Deadline("Glob")
    found = [path for path in walk(base, deadline, max_depth) if matcher.match(path.relative_to(base).as_posix())]
    if not found:
        return "No files found"
    return _capped(_by_recency(found, context), MAX_FILES, "matches")


def _grep_files(root: Path, glob: str | None, context: Any, deadline: Deadline) -> Iterator[Path]:
    matcher = GlobMatcher(glob) if glob else None
    candidates = [root] if root.is_file() else search_files(root, deadline)
    policy = getattr(getattr(context, "agent", None), "policy", None)
    for path in candidates:
        if not path.is_file() or special_file(path):  # a named pipe or socket would block the read forever
            continue
        if policy is not None and not policy.check("Read", {"file_path": str(path)}, True).allowed:
            continue  # a file Read may not open (a deny rule on .env) must not leak through a search
        relative = path.name if path == root else path.relative_to(root).as_posix()
        if matcher and not (matcher.match(path.name) or matcher.match(relative)):
            continue
        yield path


def _matching_lines(path: Path, regex: Any, deadline: Deadline) -> Iterator[tuple[int, str]]:
    """The matching lines of a text file (a binary one has none), each cut to the search cap."""
    with open_regular(path) as handle:
        if looks_binary(handle):
            return
        for number, (line, _) in enumerate(bounded_lines(handle, MAX_SEARCH_LINE_BYTES), 1):
            if number % 4096 == 0:
                deadline.check()
            text = line.decode("utf-8", errors="replace").rstrip("\r\n")
            if regex.search(text):
                yield number, text


def _compile(pattern: str, ignore_case: bool) -> Any:
    """The pattern compiled by RE2, whose matching time is linear in the text (Python's `re` can
    take forever on `^(a+)+$`); imported here so that runs that never grep do not load it."""
    import re2

    options = re2.Options()
    options.log_errors = False
    options.case_sensitive = not ignore_case
    try:
        return re2.compile(pattern, options=options)
    except re2.error as error:
        reason = error.args[0].decode(errors="replace") if error.args and isinstance(error.args[0], bytes) else str(error)
        raise ToolError(f"Invalid regular expression {pattern!r}: {reason}") from None


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
    regex = _compile(pattern, bool(arguments.get("-i")))
    root = _search_root(arguments, context)
    display = context.workspace.display
    deadline = Deadline("Grep")
    matched: list[Path] = []
    lines: list[str] = []
    shown = 0
    for path in _grep_files(root, glob, context, deadline):
        deadline.check()
        try:
            if mode == "files_with_matches":
                if next(_matching_lines(path, regex, deadline), None) is not None:
                    matched.append(path)
            elif mode == "count":
                count = sum(1 for _ in _matching_lines(path, regex, deadline))
                if count:
                    lines.append(f"{display(path)}:{count}")
            else:
                for number, line in _matching_lines(path, regex, deadline):
                    if len(line) > MAX_LINE_CHARS:
                        line = line[:MAX_LINE_CHARS] + " [... line truncated]"
                    shown += 1
                    if shown <= MAX_CONTENT_LINES:  # the rest are only counted
                        lines.append(f"{display(path)}:{number}:{line}")
        except OSError:
            continue  # unreadable, not regular, or vanished mid-walk: simply not searched
    if mode == "files_with_matches":
        lines = _by_recency(matched, context)
    if not lines:
        return "No matches found"
    if mode == "content":
        return _capped(lines, MAX_CONTENT_LINES, "matching lines", shown)
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
    # Unchanged although the engine is RE2 (Python's syntax without lookaround or backreferences):
    # every recorded request carries this text.
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

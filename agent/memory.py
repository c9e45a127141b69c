"""Memory: the CLAUDE.md files that carry a user's and a project's standing instructions, gathered
into the one context block Claude Code puts at the start of a conversation (the main one and every
subagent's).

Read, in this order: `~/.claude/CLAUDE.md`; then, from the repository root down to the working
folder, each folder's `CLAUDE.md`, `.claude/CLAUDE.md` and `CLAUDE.local.md`. A line's `@path`
imports another file (relative to the importing file, `~` for home), listed right after it, at most
five levels deep and each file once; `@` inside code spans, code blocks or links is not an import,
and a missing file is skipped. A memory file, and whatever it imports, must really lie (symlinks
resolved) inside the folder whose memory it is: the working folder for its own files, each parent
folder for its files, home for the user's. So a cloned repository can pull `~/.ssh` into a request
neither by an import nor by a `CLAUDE.md` that is a symlink; what lies outside is skipped with one
warning naming it, as is a device, FIFO or socket (never read: `CLAUDE.md -> /dev/zero` or a
FIFO cannot hold up the start) and a binary file. A file is read to MEMORY_FILE_BYTES at most, and
cut at MAX_FILE_CHARS characters. HTML comments are hidden.
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Collection

from agent.workspace import MEMORY_FILE_BYTES, FileTooLarge, project_folders, read_bounded

log = logging.getLogger("agent")

MAX_IMPORT_DEPTH = 5
MAX_FILE_CHARS = 100_000
HEADER = ("Project and user instructions from CLAUDE.md memory files are shown below. Follow them: "
          "they take precedence over your default behaviour.")
KINDS = {
    "user": "user instructions for all projects",
    "project": "project instructions, checked into the codebase",
    "local": "the user's private project instructions, not checked in",
}
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_IMPORT = re.compile(r"(?:^|(?<=\s))@((?:[^\s\\]|\\ )+)")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_WHOLE_LINE_COMMENT = re.compile(r"^[ \t]*<!--.*?-->[ \t]*(?:\n|$)", re.DOTALL | re.MULTILINE)


@dataclass(frozen=True)
class MemoryFile:
    """One file of memory: where it is, what kind, and its text as the model sees it."""

    path: Path
    kind: str
    text: str


def load_memory(cwd: Path, home: Path, sources: Collection[str] = ("user", "project", "local")) -> list[MemoryFile]:
    """Every memory file of a session in `cwd` for the user at `home`, imports included, in order:
    of each kind only when its setting source (--setting-sources) is one of `sources`."""
    loaded: list[MemoryFile] = []
    seen: set[str] = set()
    if "user" in sources:
        _load(Path(home) / ".claude" / "CLAUDE.md", "user", Path(home), 0, loaded, seen, home)
    for folder in reversed(project_folders(Path(cwd))):  # the repository root first
        for name, kind in (("CLAUDE.md", "project"), (".claude/CLAUDE.md", "project"), ("CLAUDE.local.md", "local")):
            if kind in sources:
                _load(folder / name, kind, folder, 0, loaded, seen, home)
    return loaded


def memory_block(files: list[MemoryFile]) -> str | None:
    """The context block for `files`, or None when there are none."""
    if not files:
        return None
    entries = "\n\n".join(f"Contents of {f.path} ({KINDS[f.kind]}):\n\n{f.text}" for f in files)
    return f"<system-reminder>\n{HEADER}\n\n{entries}\n</system-reminder>"


def _load(path: Path, kind: str, fence: Path, depth: int, loaded: list[MemoryFile], seen: set[str], home: Path) -> None:
    """Load `path` (and, depth first, what it imports) unless already loaded or missing. It and
    its imports must really lie inside `fence`: what does not is skipped, with one warning."""
    real = os.path.realpath(path)
    if real in seen or not os.path.lexists(path):
        return
    if not _inside(real, fence):
        log.warning(f"memory: skipping {path}: it leads to {real}, outside {fence}")
        seen.add(real)  # one warning, however many files import it
        return
    seen.add(real)  # whatever happens next, one word about it at most
    try:
        data = read_bounded(path, MEMORY_FILE_BYTES)
    except FileTooLarge as error:
        data = error.head  # cut below, with a note the model sees
    except (FileNotFoundError, NotADirectoryError):
        return
    except OSError as error:
        log.warning(f"memory: skipping {path}: {error.strerror or error}")
        return
    if b"\0" in data:
        log.warning(f"memory: skipping {path}: it is a binary file, not text")
        return
    raw = data.decode("utf-8", errors="replace")
    text = _visible(raw)
    if len(text) > MAX_FILE_CHARS:
        text = text[:MAX_FILE_CHARS] + "\n[... the rest of this file was left out: it is too long]"
    loaded.append(MemoryFile(Path(path), kind, text.strip()))
    if depth >= MAX_IMPORT_DEPTH:
        return
    for target in _imports(text):
        resolved = _resolve(target, Path(path).parent, home)
        if resolved is not None:
            _load(resolved, kind, fence, depth + 1, loaded, seen, home)


def _visible(text: str) -> str:
    """`text` without HTML comments outside code blocks; a line holding only a comment goes whole."""
    chunks = []
    for chunk in _blocks(text):
        if not _FENCE.match(chunk):
            chunk = _COMMENT.sub("", _WHOLE_LINE_COMMENT.sub("", chunk))
        chunks.append(chunk)
    return "".join(chunks)


def _blocks(text: str) -> list[str]:
    """`text` cut into alternating prose and fenced code blocks (a block keeps its fences)."""
    chunks, current, fence = [], [], None
    for line in text.splitlines(keepends=True):
        match = _FENCE.match(line)
        if fence is None and match:
            chunks.append("".join(current))
            current, fence = [line], match.group(1)
        elif fence is not None and line.lstrip().startswith(fence):
            current.append(line)
            chunks.append("".join(current))
            current, fence = [], None
        else:
            current.append(line)
    chunks.append("".join(current))
    return [chunk for chunk in chunks if chunk]


def _imports(text: str) -> list[str]:
    """The `@path` imports of `text`, in order, outside code blocks and code spans."""
    found = []
    for chunk in _blocks(text):
        if _FENCE.match(chunk):
            continue
        for line in _CODE_SPAN.sub(" ", chunk).splitlines():
            found += [match.group(1).replace("\\ ", " ") for match in _IMPORT.finditer(line)]
    return found


def _resolve(target: str, base: Path, home: Path) -> Path | None:
    if target == "~" or target.startswith("~/"):
        return Path(home) / target[2:]
    if target.startswith("~"):
        return None  # another user's home: never
    path = Path(target)
    return Path(os.path.normpath(path if path.is_absolute() else base / path))


def _inside(real: str, fence: Path) -> bool:
    """Whether the real path `real` is `fence` or lies in it (the fence's own links resolved)."""
    root = os.path.realpath(fence)
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)

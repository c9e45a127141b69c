"""One instruction file read as the model sees it, and the files it imports.

A line's `@path` imports another file (relative to the importing file, `~` for home), listed right
after it, at most MAX_IMPORT_DEPTH levels deep and each file once; `@` inside code spans, code
blocks or links is not an import, and a missing file is skipped. A file, and whatever it imports,
must really lie (symlinks resolved) inside its fence: the folder whose instructions it is (the
working folder for its own files, each parent folder for its files, home for the user's, the
managed folder for the organisation's). So a cloned repository can pull `~/.ssh` into a request
neither by an import nor by a `CLAUDE.md` that is a symlink; what lies outside is skipped with one
warning naming it, as is a device, FIFO or socket (never read: `CLAUDE.md -> /dev/zero` or a FIFO
cannot hold up the start) and a binary file. A file is read to MEMORY_FILE_BYTES at most, and cut
at MAX_FILE_CHARS characters. HTML comments are hidden.
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path

from agent.workspace import MEMORY_FILE_BYTES, FileTooLarge, read_bounded

log = logging.getLogger("agent")

MAX_IMPORT_DEPTH = 5
MAX_FILE_CHARS = 100_000
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_IMPORT = re.compile(r"(?:^|(?<=\s))@((?:[^\s\\]|\\ )+)")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_WHOLE_LINE_COMMENT = re.compile(r"^[ \t]*<!--.*?-->[ \t]*(?:\n|$)", re.DOTALL | re.MULTILINE)


@dataclass(frozen=True)
class MemoryFile:
    """One instruction file: where it is, what kind (managed, user, project, local), and its text
    as the model sees it (comments hidden, a rule's frontmatter left out; not stripped)."""

    path: Path
    kind: str
    text: str


class Loader:
    """Reads instruction files into `loaded`, each real file once (`seen` holds their real paths)."""

    def __init__(self, home: Path, seen: set[str] | None = None) -> None:
        self.home = Path(home)
        self.seen: set[str] = set() if seen is None else seen
        self.loaded: list[MemoryFile] = []

    def load(self, path: Path, kind: str, fence: Path, text: str | None = None, depth: int = 0) -> None:
        """Load `path` (and, depth first, what it imports) unless already loaded or missing; `text`
        is its visible text when the caller has read it already. It and its imports must really lie
        inside `fence`: what does not is skipped, with one warning."""
        if text is None:
            if not self.claim(path, fence):
                return
            text = read_visible(path)
            if text is None:
                return
        self.loaded.append(MemoryFile(Path(path), kind, text))
        if depth >= MAX_IMPORT_DEPTH:
            return
        for target in _imports(text):
            resolved = _resolve(target, Path(path).parent, self.home)
            if resolved is not None:
                self.load(resolved, kind, fence, depth=depth + 1)

    def claim(self, path: Path, fence: Path) -> bool:
        """Whether `path` exists, lies inside `fence` and was not loaded before; it counts as
        loaded from now on (so a file outside the fence is warned about once, however often named)."""
        real = os.path.realpath(path)
        if real in self.seen or not os.path.lexists(path):
            return False
        self.seen.add(real)
        if not inside(real, fence):
            log.warning(f"memory: skipping {path}: it leads to {real}, outside {fence}")
            return False
        return True


def read_visible(path: Path) -> str | None:
    """The text of the instruction file at `path` as the model sees it, or None when it cannot be
    used (gone, unreadable, not a regular file, binary: the last three with a warning)."""
    try:
        data = read_bounded(path, MEMORY_FILE_BYTES)
    except FileTooLarge as error:
        data = error.head  # cut below, with a note the model sees
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as error:
        log.warning(f"memory: skipping {path}: {error.strerror or error}")
        return None
    if b"\0" in data:
        log.warning(f"memory: skipping {path}: it is a binary file, not text")
        return None
    text = _visible(data.decode("utf-8", errors="replace"))
    if len(text) > MAX_FILE_CHARS:
        text = text[:MAX_FILE_CHARS] + "\n[... the rest of this file was left out: it is too long]"
    return text


def inside(real: str, fence: Path) -> bool:
    """Whether the real path `real` is `fence` or lies in it (the fence's own links resolved)."""
    root = os.path.realpath(fence)
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


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

"""One instruction file read as the model sees it, and the files it imports.

A line's `@path` imports another file (relative to the importing file, `~` for home), listed right
after it, at most MAX_IMPORT_DEPTH levels deep and each file once; `@` inside code spans, code
blocks or links is not an import, and a missing file is skipped. A file, and whatever it imports,
must really lie (symlinks resolved) inside its fence: the folder whose instructions it is (the
working folder for its own files, each parent folder for its files, home for the user's, the
managed folder for the organisation's). So a cloned repository can pull `~/.ssh` into a request
neither by an import nor by a `CLAUDE.md` that is a symlink; what lies outside is skipped with one
warning naming it, as is a device, FIFO or socket (never read: `CLAUDE.md -> /dev/zero` or a FIFO
cannot hold up the start), a binary file, and a file whose path holds a line break or another
control character (the model is told each file's path on a line of its own, and a conversation's
account of what it was given is read back from those lines). A file is read to MEMORY_FILE_BYTES at
most, and cut at MAX_FILE_CHARS characters; at most MAX_IMPORTS of a file's imports are followed, and one loading
holds at most MAX_FILES files and MAX_TOTAL_CHARS characters (the rest is left out, with one
warning), so a repository cannot make the start read, or a request hold, without end. HTML comments
are hidden (found in linear time, whatever the file holds).
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from agent.workspace import MEMORY_FILE_BYTES, FileTooLarge, read_bounded

log = logging.getLogger("agent")

MAX_IMPORT_DEPTH = 5
MAX_FILE_CHARS = 100_000
MAX_IMPORTS = 200  # of one file's imports, followed
MAX_FILES, MAX_TOTAL_CHARS = 500, 1_000_000  # of one loading: far past any context window
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_IMPORT = re.compile(r"(?:^|(?<=\s))@((?:[^\s\\]|\\ )+)")
_BLANKS = re.compile(r"[ \t]*")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True)
class MemoryFile:
    """One instruction file: where it is, what kind (managed, user, project, local), and its text
    as the model sees it (comments hidden, a rule's frontmatter left out; not stripped)."""

    path: Path
    kind: str
    text: str


class Loader:
    """Reads instruction files into `loaded`, each real file once (`seen` holds their real paths)."""

    def __init__(self, home: Path, seen: set[str] | None = None,
                 excluded: Callable[[Path, str], bool] | None = None) -> None:
        self.home = Path(home)
        self.seen: set[str] = set() if seen is None else seen
        # excluded(path, kind): a file the settings' claudeMdExcludes leave out (never the organisation's)
        self.excluded = excluded
        self.loaded: list[MemoryFile] = []
        self.chars = 0  # of the texts taken so far (see `take`)
        self.full = False  # a bound was reached: nothing more is loaded

    def load(self, path: Path, kind: str, fence: Path, text: str | None = None, depth: int = 0) -> None:
        """Load `path` (and, depth first, what it imports) unless already loaded or missing; `text`
        is its visible text when the caller has read it already. It and its imports must really lie
        inside `fence`: what does not is skipped, with one warning."""
        if text is None:
            if not self.claim(path, fence, kind):
                return
            text = read_visible(path)
            if text is None:
                return
        if not self.take(path, text, files=1):
            return
        self.loaded.append(MemoryFile(Path(path), kind, text))
        if depth >= MAX_IMPORT_DEPTH:
            return
        for target in _imports(text)[:MAX_IMPORTS]:
            resolved = _resolve(target, Path(path).parent, self.home)
            if resolved is not None:
                self.load(resolved, kind, fence, depth=depth + 1)

    def take(self, path: Path, text: str, files: int = 0) -> bool:
        """Whether `text` (the file at `path`, one of `files` more loaded) still fits this loading's
        bounds; once one does not, nothing more does, and one warning names where it stopped."""
        if not self.full and self.chars + len(text) <= MAX_TOTAL_CHARS and len(self.loaded) + files <= MAX_FILES:
            self.chars += len(text)
            return True
        if not self.full:
            self.full = True
            log.warning(f"memory: instruction files over {MAX_FILES} files or {MAX_TOTAL_CHARS:,} characters "
                        f"in all; leaving out {path} and the rest")
        return False

    def claim(self, path: Path, fence: Path, kind: str) -> bool:
        """Whether `path` (a file of `kind`) exists, lies inside `fence`, is not one the settings
        exclude and was not loaded before; it counts as loaded from now on (so a file outside the
        fence is warned about once, however often named). Once the loading is full, no file is."""
        if self.full:
            return False
        real = os.path.realpath(path)
        if real in self.seen or not os.path.lexists(path):
            return False
        self.seen.add(real)
        if _CONTROL.search(str(path)):  # a line break would end the "Contents of <path>" line early
            log.warning(f"memory: skipping {str(path)!r}: its name holds a line break or another control character")
            return False
        if not inside(real, fence):
            log.warning(f"memory: skipping {path}: it leads to {real}, outside {fence}")
            return False
        if kind != "managed" and self.excluded is not None and self.excluded(Path(path), kind):
            log.info(f"memory: leaving out {path}: claudeMdExcludes names it")
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
    """`text` without HTML comments outside code blocks."""
    return "".join(chunk if _FENCE.match(chunk) else _without_comments(chunk) for chunk in _blocks(text))


def _without_comments(text: str) -> str:
    """`text` without its HTML comments (`<!--` to the first `-->` after it; one never closed
    stays). Comments with only blanks between them count as one; when that one is all its lines
    hold (blanks aside), those lines go whole. Each character is looked at a bounded number of
    times, so no file can make this slow."""
    groups: list[list[int]] = []  # [start, end] of each run of comments
    position = 0
    while (start := text.find("<!--", position)) >= 0 and (end := text.find("-->", start + 4)) >= 0:
        if groups and not text[groups[-1][1]:start].strip(" \t"):
            groups[-1][1] = end + 3
        else:
            groups.append([start, end + 3])
        position = end + 3
    kept, position = [], 0
    for start, end in groups:
        before = start
        while before > position and text[before - 1] in " \t":
            before -= 1
        after = _BLANKS.match(text, end).end()
        if (before == 0 or text[before - 1] == "\n") and (after == len(text) or text[after] == "\n"):
            start, end = before, min(after + 1, len(text))  # the line holds only the comment: it goes
        kept.append(text[position:start])
        position = end
    kept.append(text[position:])
    return "".join(kept)


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

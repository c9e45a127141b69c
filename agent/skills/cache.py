"""Reading definition files (SKILL.md, agent files) fast at start-up: only the frontmatter is read,
and what it parsed to is cached by path, size and modification time in
`~/.cache/agent/frontmatter.json` (`$XDG_CACHE_HOME` if set). A project with a thousand skills
then starts almost as fast as one with none; a changed file is parsed again.

The cache is our own file, but it is still read as untrusted input: anything unexpected in it
means an empty cache, never an error. Writing it is best-effort and atomic.
"""

from __future__ import annotations

import errno
import json
import logging
import os
from stat import S_ISREG
import time
from pathlib import Path
from typing import Any

from agent.skills.frontmatter import FrontmatterError, read_frontmatter, split_frontmatter, strict_problem
from agent.workspace import (
    DEFINITION_FILE_BYTES, FileTooLarge, load_json, open_regular, read_bounded, save_file,
    special_file,
)

log = logging.getLogger("agent")

CACHE_VERSION = 3  # bump when parsing changes what a file parses to
MAX_ENTRIES = 5000
MAX_CACHE_BYTES = 64 * 1024 * 1024  # a bigger file is not ours: read as an empty cache
HEAD_BYTES = 8192  # read this much first: nearly every frontmatter ends within it
RACY_SECONDS = 2.0  # a file this fresh may change again within its mtime's granularity: not cached
MAX_NODES = 10_000  # YAML aliases can make a small file a huge value: such values are not cached


def cache_path(home: Path, env: dict | os._Environ = os.environ) -> Path:
    """Where the frontmatter cache lives for a user whose home is `home`."""
    base = env.get("XDG_CACHE_HOME")
    return (Path(base) if base and os.path.isabs(base) else home / ".cache") / "agent" / "frontmatter.json"


class FrontmatterCache:
    """Parsed frontmatter by file, loaded once per run and saved when it changed."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.entries: dict[str, dict[str, Any]] = _load(path) if path else {}
        self.changed = False
        self.lenient: list[str] = []  # the warnings of files read leniently, reported together

    def report(self) -> None:
        """Say which files had YAML that needed lenient reading: one warning for one file; for
        several, one warning naming the first and how many, and each under --verbose (a large
        public collection has dozens, and a warning each on every run would bury the rest)."""
        if len(self.lenient) == 1:
            log.warning(self.lenient[0])
        elif self.lenient:
            for warning in self.lenient:
                log.info(warning)
            log.warning(f"{len(self.lenient)} definition files have YAML that was read leniently, the first: "
                        f"{self.lenient[0]} (--verbose lists them all)")
        self.lenient = []

    def read(self, path: Path | str, strict: bool = False) -> dict[str, Any]:
        """The frontmatter fields of the definition file at `path` (its warning, if any, logged
        again); raises FrontmatterError when it cannot be used (`strict`: also when its YAML is
        valid only read leniently, an agent file's case), FileNotFoundError when it is missing,
        and OSError when it cannot be read, is not a regular file (a device or FIFO is never
        opened) or is over DEFINITION_FILE_BYTES."""
        stat = os.stat(path)
        if not S_ISREG(stat.st_mode):
            raise OSError(errno.EINVAL, f"it is {special_file(path) or 'a folder'}, not a regular file", str(path))
        if stat.st_size > DEFINITION_FILE_BYTES:
            raise FileTooLarge(path, DEFINITION_FILE_BYTES, b"")
        key = path if isinstance(path, str) and os.path.isabs(path) else os.path.abspath(path)
        entry = self.entries.get(key)
        if not (entry and entry.get("size") == stat.st_size and entry.get("mtime_ns") == stat.st_mtime_ns):
            entry, fields = _parse(path, stat)
            if fields is not None:
                if strict and entry["strict_error"]:
                    raise FrontmatterError(entry["strict_error"])
                self.lenient += [entry["warning"]] if entry["warning"] else []
                return fields  # too large to cache: used as parsed, this once
            if self.path and time.time() - stat.st_mtime > RACY_SECONDS:
                self.entries.pop(key, None)
                self.entries[key] = entry  # the newest last, so pruning drops the oldest
                self.changed = True
        if strict and entry.get("strict_error"):
            raise FrontmatterError(str(entry["strict_error"]))
        if entry.get("warning"):
            self.lenient.append(entry["warning"])
        if entry.get("error") is not None:
            raise FrontmatterError(entry["error"])
        return entry["fields"]

    def save(self) -> None:
        """Write the cache if anything changed (atomically; failures are only logged)."""
        if not (self.path and self.changed):
            return
        entries = dict(list(self.entries.items())[-MAX_ENTRIES:])
        try:
            text = json.dumps({"version": CACHE_VERSION, "entries": entries}, ensure_ascii=False)
            save_file(self.path, text.encode("utf-8"))
        except (OSError, ValueError) as error:
            log.info(f"cannot write the frontmatter cache {self.path}: {getattr(error, 'strerror', None) or error}")
        self.changed = False


def read_head(path: Path) -> str:
    """The start of the file at `path`, as far as the end of its frontmatter (the whole file when
    the frontmatter does not end within the first HEAD_BYTES). Only a regular file is opened, and
    read to DEFINITION_FILE_BYTES at most (OSError otherwise, as `open_regular` and FileTooLarge)."""
    with open_regular(path) as handle:
        head = handle.read(HEAD_BYTES)
        text = head.decode("utf-8", errors="replace")
        if len(head) < HEAD_BYTES or split_frontmatter(text) is not None:
            return text
        whole = head + handle.read(DEFINITION_FILE_BYTES + 1 - len(head))
    if len(whole) > DEFINITION_FILE_BYTES:
        raise FileTooLarge(path, DEFINITION_FILE_BYTES, whole[:DEFINITION_FILE_BYTES])
    return whole.decode("utf-8", errors="replace")


def _parse(path: Path, stat: os.stat_result) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """A cache entry for the file, and the raw fields instead when they are too large to cache."""
    entry: dict[str, Any] = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "fields": None, "error": None,
                             "warning": None, "strict_error": None}
    head = read_head(path)
    try:
        fields, _, entry["warning"] = read_frontmatter(head, str(path))
    except FrontmatterError as error:
        entry["error"] = str(error)
        return entry, None
    if entry["warning"]:  # what a strict reader (agent files) refuses it for, and the remedy the lenient read found
        problem = strict_problem(head) or "invalid YAML frontmatter"
        entry["strict_error"] = f"{problem}; it would be valid with its one-line values in quotes"
    try:
        entry["fields"] = _plain(fields)
    except _TooLarge:
        return entry, fields
    return entry, None


def _plain(value: Any, budget: list[int] | None = None) -> Any:
    """`value` as plain JSON data: mappings and lists kept, dates and other scalars as text,
    anything else dropped (None). Counts nodes in `budget` so alias bombs stay bounded."""
    budget = budget if budget is not None else [MAX_NODES]
    budget[0] -= 1
    if budget[0] < 0:
        raise _TooLarge
    if isinstance(value, dict):
        return {str(key): _plain(item, budget) for key, item in value.items() if isinstance(key, (str, int, float, bool))}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_plain(item, budget) for item in value]
    if value is None or isinstance(value, (str, bool, int, float)):
        return value if not isinstance(value, float) or value == value else str(value)  # NaN is not JSON
    try:
        return str(value) if hasattr(value, "isoformat") else None
    except ValueError:
        return None


class _TooLarge(Exception):
    pass


def _load(path: Path) -> dict[str, dict[str, Any]]:
    try:
        data = load_json(read_bounded(path, MAX_CACHE_BYTES), "the frontmatter cache")
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("version") != CACHE_VERSION or not isinstance(data.get("entries"), dict):
        return {}
    entries = data["entries"]
    valid = all(isinstance(e, dict) and ("fields" in e) and (isinstance(e.get("fields"), dict) or e.get("error") is not None)
                for e in entries.values())
    return entries if valid else {}

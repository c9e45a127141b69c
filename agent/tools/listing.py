"""The files a search looks at, within a time limit. Grep lists them with ripgrep, the engine
Claude Code's Grep uses, so `.gitignore` (inside a git repository), `.ignore` and `.rgignore`
are honoured as there; Glob walks every folder itself, as Claude Code's Glob does. Neither opens a
file's contents, so a FIFO in the tree cannot block a listing."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import sysconfig
import time
from pathlib import Path
from typing import Iterator

from agent.tools.base import ToolError

SEARCH_TIME_LIMIT_S = 20.0  # one Glob or Grep call, listing and searching together
MAX_LISTING_BYTES = 64 * 1024 * 1024  # the file names one listing may send us


class Deadline:
    """The end of one search's time: `check()` turns running past it into the tool's error."""

    def __init__(self, tool: str, seconds: float = SEARCH_TIME_LIMIT_S):
        self.tool = tool
        self.seconds = seconds
        self.at = time.monotonic() + seconds

    def left(self) -> float:
        return self.at - time.monotonic()

    def check(self) -> None:
        if self.left() <= 0:
            raise ToolError(f"{self.tool} stopped after {self.seconds:g} s, its time limit for one search; "
                            "narrow it with path or glob.")


def ripgrep_binary() -> str | None:
    """The `rg` of the ripgrep package installed beside this Python (never one from PATH)."""
    for folder in (Path(sys.executable).parent, Path(sysconfig.get_path("scripts"))):
        candidate = folder / "rg"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def walk(root: Path, deadline: Deadline, max_depth: int | None = None) -> Iterator[Path]:
    """Every file under `root` in sorted order, never entering `.git` folders."""
    for folder, dirs, files in os.walk(root):
        deadline.check()
        depth = len(Path(folder).relative_to(root).parts)
        dirs[:] = [] if max_depth is not None and depth >= max_depth else sorted(d for d in dirs if d != ".git")
        for name in sorted(files):
            yield Path(folder, name)


def search_files(root: Path, deadline: Deadline) -> Iterator[Path]:
    """The files Grep searches under the folder `root`, sorted by path: ripgrep's listing (hidden
    files included, `.git` and ignored files left out), or every file when ripgrep is missing."""
    rg = ripgrep_binary()
    if rg is None:
        yield from walk(root, deadline)
        return
    command = [rg, "--files", "--hidden", "--glob", "!.git", "--sort", "path", "--null",
               "--no-config", "--no-messages", "--", str(root)]
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
    try:
        yield from _names(process, deadline)
    finally:
        process.kill()
        process.wait()
        process.stdout.close()


def _names(process: subprocess.Popen, deadline: Deadline) -> Iterator[Path]:
    fd = process.stdout.fileno()
    pending, received = b"", 0
    while True:
        ready, _, _ = select.select([fd], [], [], max(deadline.left(), 0))
        if not ready:
            deadline.check()
            continue
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            if pending:
                yield Path(os.fsdecode(pending))
            return
        received += len(chunk)
        if received > MAX_LISTING_BYTES:
            raise ToolError(f"{deadline.tool}: too many files to search (over {MAX_LISTING_BYTES >> 20} MB "
                            "of file names); narrow it with path or glob.")
        *names, pending = (pending + chunk).split(b"\0")
        for name in names:
            yield Path(os.fsdecode(name))

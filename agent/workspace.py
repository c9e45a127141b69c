"""The user's workspace: the folder the agent was started in, against which every path resolves."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from agent.errors import UsageError


@dataclass(frozen=True)
class Workspace:
    """The session's working directory; tools resolve every path against it."""

    cwd: Path

    def resolve(self, path: str | os.PathLike) -> Path:
        """An absolute path for `path`: relative paths are taken from the workspace, `~` is expanded."""
        candidate = Path(os.path.expanduser(os.fspath(path)))
        if not candidate.is_absolute():
            candidate = self.cwd / candidate
        return Path(os.path.normpath(candidate))

    def display(self, path: Path) -> str:
        """`path` as the model should see it: relative to the workspace when inside it."""
        try:
            return str(path.relative_to(self.cwd))
        except ValueError:
            return str(path)


def project_folders(cwd: Path) -> list[Path]:
    """`cwd` and its parents up to the repository root (the nearest one holding `.git`), nearest
    first; only `cwd` when it is not inside a repository. Project definitions (agents, and memory
    files) are looked up in each."""
    start = Path(os.path.abspath(cwd))
    chain = [start, *start.parents]
    for index, folder in enumerate(chain):
        if os.path.exists(folder / ".git"):  # a file in worktrees and submodules
            return chain[:index + 1]
    return [start]


def json_option(flag: str, value: str, cwd: Path) -> tuple[str, str]:
    """The JSON text of an option that takes JSON text or a JSON file's path (relative to `cwd`),
    and where it came from, for messages. An unreadable file is a one-line UsageError."""
    if value.strip().startswith(("{", "[")):
        return value, f"the {flag} value"
    path = Path(cwd) / os.path.expanduser(value.strip())
    try:
        return path.read_bytes().decode("utf-8", errors="replace"), str(path)
    except (OSError, ValueError) as error:  # ValueError: a NUL byte in the path
        reason = getattr(error, "strerror", None) or str(error).splitlines()[0]
        flat = " ".join(value.split())
        raise UsageError(f"{flag}: {flat[:80]} is neither a JSON object nor a readable file ({reason})") from None

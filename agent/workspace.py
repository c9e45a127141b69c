"""The user's workspace: the folder the agent was started in, against which every path resolves;
and saving files there (or anywhere the agent writes) without changing what a path is."""

from __future__ import annotations

import errno
import os
import stat
import tempfile
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


_SPECIAL = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
            (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _current_umask() -> int:
    # os.umask can only be read by setting it; do it once at import rather than racing other threads.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _current_umask()


def special_file(path: str | os.PathLike) -> str | None:
    """What `path` is (symlinks followed) when it is a device, FIFO or socket, which are never
    written as files: "a FIFO (named pipe)", "a character device", ...; None for anything else."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):  # missing, unreadable, or a NUL in the path: not special
        return None
    return next((name for test, name in _SPECIAL if test(mode)), None)


def _refuse_special(path: Path, mode: int) -> None:
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "it is a folder", str(path))
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _SPECIAL if test(mode)), "not a regular file")
        raise OSError(errno.EINVAL, f"it is {kind}, not a regular file, and is never replaced", str(path))


def save_file(path: Path, data: bytes) -> None:
    """Save `data` at `path` keeping what the path is. A new file, or a regular file with one
    name, is replaced atomically (readers see the old file or the new one, never a mix; its
    permission mode is kept); a file with several hard links is rewritten in place, so every name
    sees the new content; a device, FIFO or socket is never written (OSError). Symlinks are
    written through; missing parent folders are created. On failure the old file is left as it was."""
    target = Path(os.path.realpath(path))
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        info = os.stat(target)
    except FileNotFoundError:
        info = None
    if info is not None:
        _refuse_special(target, info.st_mode)
        if info.st_nlink > 1:
            return _rewrite_in_place(target, data)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, stat.S_IMODE(info.st_mode) if info else 0o666 & ~_UMASK)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _rewrite_in_place(target: Path, data: bytes) -> None:
    """Overwrite a hard-linked file's contents through one of its names (not atomic: a rename
    would split it from its other names). Opened without blocking and checked again once open, so
    a FIFO put in its place meanwhile is refused rather than waited on."""
    fd = os.open(target, os.O_WRONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "wb") as handle:
        _refuse_special(target, os.fstat(fd).st_mode)
        os.set_blocking(fd, True)
        handle.truncate(0)
        handle.write(data)
        handle.flush()
        os.fsync(fd)


def append_text(path: Path, text: str) -> None:
    """Append `text` (UTF-8) to the regular file at `path`, creating it; a device, FIFO or socket
    there is refused (OSError) without blocking on it."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK, 0o666)
    with os.fdopen(fd, "ab") as handle:
        _refuse_special(Path(path), os.fstat(fd).st_mode)
        os.set_blocking(fd, True)
        handle.write(text.encode("utf-8"))

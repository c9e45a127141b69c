"""The user's workspace: the folder the agent was started in, against which every path resolves;
saving files there (or anywhere the agent writes) without changing what a path is; and reading
what comes from outside (configuration, memory, definitions, cassettes, option files) with bounds:
only regular files, never more than a cap, JSON and YAML parsed with limits on depth and aliases."""

from __future__ import annotations

import errno
import json
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from agent.errors import UsageError


@dataclass(frozen=True)
class Workspace:
    """The session's working directory; tools resolve every path against it. A worktree-isolated
    agent's is its worktree, and `shared` names the checkouts it must not reach (the repository's
    own, and the main checkout that one is linked to: agent.subagents.worktree_guard)."""

    cwd: Path
    shared: tuple[Path, ...] = ()

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
    and where it came from, for messages. A file that is unreadable, not a regular file (a device
    or FIFO is never read) or over OPTION_FILE_BYTES is a one-line UsageError."""
    if value.strip().startswith(("{", "[")):
        return value, f"the {flag} value"
    path = Path(cwd) / os.path.expanduser(value.strip())
    return option_file(flag, path, "{path} is neither a JSON object nor a readable file").decode("utf-8", errors="replace"), str(path)


def option_file(flag: str, path: str | os.PathLike, failure: str = "cannot read {path}") -> bytes:
    """The bytes of the file a command-line option names: one that cannot be read, is not a
    regular file (a device or FIFO is never read) or is over OPTION_FILE_BYTES is a one-line
    UsageError: `{flag}: ` then `failure` with the path filled in, then the reason."""
    try:
        return read_bounded(path, OPTION_FILE_BYTES)
    except (OSError, ValueError) as error:  # ValueError: a NUL byte in the path
        reason = getattr(error, "strerror", None) or str(error).splitlines()[0]
        flat = " ".join(os.fspath(path).split())
        raise UsageError(f"{flag}: {failure.format(path=flat[:80])} ({reason})") from None


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
    """Append `text` (UTF-8) to the regular file at `path`, creating it, whole or not at all: a
    write that fails part way (a full disk) is cut back off, so the file is as it was and no line
    is left half written (OSError). A device, FIFO or socket there is refused without blocking on
    it. A lone surrogate is written as its backslash escape (`\\udc80`), which JSON reads back as that same
    character, so one odd character in a JSON line never stops the writing."""
    data = memoryview(text.encode("utf-8", errors="backslashreplace"))
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK, 0o666)
    try:
        _refuse_special(Path(path), os.fstat(fd).st_mode)
        os.set_blocking(fd, True)
        size = os.fstat(fd).st_size
        try:
            while data:
                data = data[os.write(fd, data):]
        except OSError:
            try:
                os.ftruncate(fd, size)
            except OSError:
                pass
            raise
    finally:
        os.close(fd)


# --- reading what comes from outside ---------------------------------------------------------------

# The most read of each kind of file (README lists them). A memory file over its cap is read that
# far and cut; any other file over its cap is refused.
MEMORY_FILE_BYTES = 1024 * 1024
DEFINITION_FILE_BYTES = 1024 * 1024  # a SKILL.md or an agent file
SETTINGS_FILE_BYTES = 1024 * 1024
CONFIG_FILE_BYTES = 8 * 1024 * 1024  # ~/.claude.json: Claude Code's grows with every project
OPTION_FILE_BYTES = 8 * 1024 * 1024  # --agents FILE, --settings FILE, --system-prompt-file, ...
CASSETTE_FILE_BYTES = 64 * 1024 * 1024
TRANSCRIPT_FILE_BYTES = 64 * 1024 * 1024
# Parsing limits: legitimate JSON (requests, tool inputs, settings) nests a few dozen levels; the
# YAML of a cassette adds a few more; our own walks of a value recurse once or twice per level.
MAX_JSON_DEPTH = 100
MAX_YAML_DEPTH = 128
MAX_YAML_ALIASES = 50
MAX_YAML_ALIAS_NODES = 10_000  # the nodes all aliases together stand for, once expanded


class FileTooLarge(OSError):
    """A file over the cap of its kind; `head` holds its first `limit` bytes."""

    def __init__(self, path: str | os.PathLike, limit: int, head: bytes):
        super().__init__(errno.EFBIG, f"it is over {size_text(limit)}", str(path))
        self.head = head


class InputLimitError(ValueError):
    """JSON or YAML beyond a parsing limit (too deep, too many aliases); the message is one line."""


def size_text(count: int) -> str:
    """A byte count as a person reads it: `1 MB`, `64 MB`, `512 KB`."""
    for unit, name in ((1024 * 1024, "MB"), (1024, "KB")):
        if count >= unit and count % unit == 0:
            return f"{count // unit} {name}"
    return f"{count} bytes"


def open_regular(path: str | os.PathLike) -> BinaryIO:
    """`path` (symlinks followed) opened for reading when it is a regular file. A device, FIFO,
    socket or folder raises OSError saying what it is, and is never waited on: it is looked at
    before opening, opened non-blocking, and looked at again once open (it may have been swapped)."""
    if kind := special_file(path):
        raise OSError(errno.EINVAL, f"it is {kind}, not a regular file", str(path))
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "it is a folder, not a file", str(path))
        if not stat.S_ISREG(mode):
            kind = next((name for test, name in _SPECIAL if test(mode)), "not a regular file")
            raise OSError(errno.EINVAL, f"it is {kind}, not a regular file", str(path))
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bounded(path: str | os.PathLike, limit: int) -> bytes:
    """The bytes of the regular file at `path`, at most `limit` of them: a bigger file raises
    FileTooLarge (holding its first `limit` bytes), anything that is not a regular file OSError
    (see `open_regular`), without ever reading more than `limit` + 1 bytes."""
    with open_regular(path) as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise FileTooLarge(path, limit, data[:limit])
    return data


def load_json(text: str | bytes, what: str = "the JSON") -> Any:
    """JSON from outside parsed: ValueError when it is not JSON (json.JSONDecodeError, or
    UnicodeDecodeError for bytes), InputLimitError when `what` nests deeper than MAX_JSON_DEPTH,
    so no later walk of the value can exhaust the stack."""
    try:
        value = json.loads(text)
    except RecursionError:  # the decoder gives up near the interpreter's limit, long before 100,000
        value = None
        deep = True
    else:
        deep = deeper_than(value, MAX_JSON_DEPTH)
    if deep:
        raise InputLimitError(f"{what} nests deeper than {MAX_JSON_DEPTH} levels")
    return value


def deeper_than(value: Any, limit: int) -> bool:
    """Whether `value` (JSON data) nests more than `limit` levels of lists and objects; walked
    without recursion, so any depth is safe to ask about."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def load_yaml(text: str, what: str = "the YAML") -> Any:
    """YAML from outside parsed safely (plain data only): yaml.YAMLError when it is not YAML,
    InputLimitError when `what` nests deeper than MAX_YAML_DEPTH, uses more than MAX_YAML_ALIASES
    aliases, aliases standing for more than MAX_YAML_ALIAS_NODES nodes, or an alias inside itself.
    The events are checked before anything is built, so an alias bomb costs its size, not its expansion."""
    import yaml  # here: a run that reads no YAML never loads it

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    _check_yaml_events(yaml.parse(text, Loader=loader), what, yaml.events)
    return yaml.load(text, Loader=loader)


def _check_yaml_events(events, what: str, kinds) -> None:
    sizes: dict[str, int] = {}  # anchor -> how many nodes it stands for, expanded
    open_collections: list[list] = []  # [anchor, nodes so far] of each collection being read
    aliases = alias_nodes = 0

    def finished(anchor: str | None, nodes: int) -> None:
        if anchor is not None:
            sizes[anchor] = nodes
        if open_collections:
            open_collections[-1][1] += nodes

    for event in events:
        if isinstance(event, kinds.CollectionStartEvent):
            open_collections.append([event.anchor, 1])
            if len(open_collections) > MAX_YAML_DEPTH:
                raise InputLimitError(f"{what} nests deeper than {MAX_YAML_DEPTH} levels")
        elif isinstance(event, kinds.CollectionEndEvent):
            finished(*open_collections.pop())
        elif isinstance(event, kinds.ScalarEvent):
            finished(event.anchor, 1)
        elif isinstance(event, kinds.AliasEvent):
            if any(anchor == event.anchor for anchor, _ in open_collections):
                raise InputLimitError(f"{what} has an alias inside the node it names (&{event.anchor})")
            aliases += 1
            alias_nodes += sizes.get(event.anchor, 1)  # an undefined one: the loader will say so
            if aliases > MAX_YAML_ALIASES:
                raise InputLimitError(f"{what} has more than {MAX_YAML_ALIASES} aliases")
            if alias_nodes > MAX_YAML_ALIAS_NODES:
                raise InputLimitError(f"{what} has aliases that expand to more than {MAX_YAML_ALIAS_NODES:,} nodes")
            finished(None, sizes.get(event.anchor, 1))

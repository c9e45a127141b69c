"""`--debug [CATEGORIES]` and `--debug-file PATH`, as in Claude Code: every line of the agent's log,
from DEBUG up, written to a debug log (`~/.claude/debug/<session id>.txt`, with `latest` linked to
it, or PATH), each as `<UTC time> [LEVEL] message`, secrets redacted; stderr shows what it showed
before. Agent authors find there the keys their agent files do not use (with the likely intended
name) and every skipped file with the reason.

CATEGORIES is Claude Code's filter: a comma-separated list of the parts of the agent to keep
(`subagents,skills`), or to leave out with `!` (`!mcp,!hooks`); a part is the package a line comes
from (subagents, skills, hooks, mcp, model, tools, permissions, record, cli, ...) or a top-level
module (run, session, loop, memory, ...).
"""

from __future__ import annotations

import argparse
import datetime
import logging
import os
from pathlib import Path

from agent.errors import UsageError
from agent.secrets import redact
from agent.workspace import append_text

log = logging.getLogger("agent")
_PACKAGE = Path(__file__).resolve().parent.parent  # agent/
_LEVELS = {"WARNING": "WARN", "CRITICAL": "ERROR"}


class DebugLog(logging.Handler):
    """The debug log of one run. Lines logged before the session has an id wait in memory for
    `name_session` (which names the file); with --debug-file they are written at once."""

    def __init__(self, path: Path | None, categories: str = "") -> None:
        super().__init__(logging.DEBUG)
        self.path = path
        self.waiting: list[str] = []
        words = [word.strip() for word in categories.split(",") if word.strip()]
        self.kept = {word for word in words if not word.startswith("!")}
        self.dropped = {word[1:] for word in words if word.startswith("!")}

    def emit(self, record: logging.LogRecord) -> None:
        if not self._wanted(category(record)):
            return
        try:
            line = f"{_time(record)} [{_LEVELS.get(record.levelname, record.levelname)}] {redact(record.getMessage())}\n"
        except Exception:  # a message that cannot be rendered is left out, never the run's failure
            return
        if self.path is None:
            self.waiting.append(line)
        else:
            self._write(line)

    def name_session(self, folder: Path, session_id: str) -> None:
        """Write to `<folder>/<session_id>.txt` from now on (what waited first), and point
        `<folder>/latest` at it; a folder that cannot be written is one warning, and no log."""
        if self.path is not None:
            return
        self.path = folder / f"{session_id}.txt"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            _link_latest(folder, self.path)
        except OSError as error:
            self.path = None
            self.waiting = []
            log.removeHandler(self)
            log.warning(f"--debug: cannot write the debug log in {folder}: {error.strerror or error}")
            return
        waiting, self.waiting = self.waiting, []
        self._write("".join(waiting))

    def _wanted(self, part: str) -> bool:
        return (not self.kept or part in self.kept) and part not in self.dropped

    def _write(self, text: str) -> None:
        try:
            append_text(self.path, text)
        except OSError:  # a full disk: the run goes on without its debug log
            pass


def category(record: logging.LogRecord) -> str:
    """The part of the agent a log line comes from: its package under agent/, or its module's name."""
    try:
        relative = Path(record.pathname).resolve().relative_to(_PACKAGE)
    except (ValueError, OSError):
        return "other"
    return relative.parts[0] if len(relative.parts) > 1 else relative.stem


def start_debug_log(args: argparse.Namespace) -> DebugLog | None:
    """The debug log --debug or --debug-file asks for, receiving the agent's log from now on (the
    stderr lines stay at the level they had), or None. A --debug-file that cannot be written is a
    UsageError."""
    if args.debug is None and args.debug_file is None:
        return None
    path = Path(args.debug_file) if args.debug_file else None
    if path is not None:
        try:
            if path.is_dir():
                raise IsADirectoryError(21, "it is a folder")
            append_text(path, "")
        except OSError as error:
            raise UsageError(f"--debug-file: cannot write {path}: {error.strerror or error}") from None
    handler = DebugLog(path, args.debug or "")
    for shown in log.handlers:  # stderr keeps showing what it did
        if shown.level < log.level:
            shown.setLevel(log.level)
    log.addHandler(handler)
    log.setLevel(logging.DEBUG)
    return handler


def name_debug_log(args: argparse.Namespace, home: Path, session_id: str) -> None:
    """Once the session has its id: the --debug log goes to `~/.claude/debug/<id>.txt` (nowhere
    when the home folder cannot be written, said once)."""
    handler = getattr(args, "debug_log", None)
    if handler is None or handler.path is not None:
        return
    if not getattr(args, "home_writable", True):
        log.removeHandler(handler)
        return
    handler.name_session(home / ".claude" / "debug", session_id)
    log.info(f"debug log: {handler.path}")


def _link_latest(folder: Path, target: Path) -> None:
    """`<folder>/latest` points at `target` (replaced in one step, so a reader never sees none)."""
    link = folder / "latest"
    temporary = folder / f".latest-{os.getpid()}"
    if temporary.is_symlink() or temporary.exists():
        temporary.unlink()
    temporary.symlink_to(target)
    os.replace(temporary, link)


def _time(record: logging.LogRecord) -> str:
    moment = datetime.datetime.fromtimestamp(record.created, datetime.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"

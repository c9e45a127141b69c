"""Where the transcripts of a session are, as Claude Code keeps them: the project's folder (its
path with every other character a dash), a session's file by id, the latest session of a folder
(for --continue), and a subagent's id."""

from __future__ import annotations

import hashlib
import os
import re
import time
from datetime import datetime
from pathlib import Path

from agent.workspace import open_regular

SESSION_ID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
AGENT_ID = re.compile(r"a[0-9a-f]{16}")


def agent_id_for(call_id: str | None) -> str:
    """A subagent's id, Claude Code's shape ("a" + 16 lowercase hex), derived from the id of the
    tool call that started it, so a recording and its replay name the agent alike."""
    return "a" + hashlib.sha256((call_id or "").encode("utf-8")).hexdigest()[:16]


def project_slug(cwd: Path) -> str:
    """Claude Code's folder name for a project: the absolute path, every other character a dash."""
    return re.sub(r"[^A-Za-z0-9]", "-", str(cwd))


def project_folder(home: Path, cwd: Path) -> Path:
    """Where the transcripts of sessions started in `cwd` live."""
    return Path(home) / ".claude" / "projects" / project_slug(cwd)


def latest_session(home: Path, cwd: Path) -> str | None:
    """The id of the most recently written main conversation of `cwd`, or None (see
    `recent_sessions`)."""
    recent = recent_sessions(home, cwd, 1)
    return recent[0] if recent else None


def recent_sessions(home: Path, cwd: Path, count: int) -> list[str]:
    """The ids of the `count` most recently written main conversations of `cwd`, newest first:
    by the time its last message was recorded (the file's modification time when it records
    none). A time in the future is no time it was written (a skewed clock, a copied file): such a
    transcript ranks by its latest time that is not, else as the oldest, so it cannot win every
    --continue. Only files named for a session id count: a stray `notes.jsonl` is no
    session to continue."""
    try:
        files = [entry for entry in os.scandir(project_folder(home, cwd))
                 if entry.name.endswith(".jsonl") and SESSION_ID.fullmatch(entry.name[:-6])
                 and entry.is_file()]
    except OSError:
        return []
    now = time.time() + _CLOCK_SLACK_S
    files.sort(key=lambda entry: (_written_at(entry, now), entry.name), reverse=True)
    return [entry.name.removesuffix(".jsonl") for entry in files[:count]]


_CLOCK_SLACK_S = 60.0
_TAIL_BYTES = 256 * 1024  # where the last messages of a transcript are looked for
_TIMESTAMP = re.compile(rb'"timestamp":\s*"([^"\\]{1,40})"')  # the entry's own field, never text inside a string


def _written_at(entry: os.DirEntry, now: float) -> tuple[float, float]:
    """When the transcript at `entry` was last written, as far as it says (its last recorded
    time up to `now`, then its modification time up to `now`, which orders sessions of the same
    second); 0 for what it does not say."""
    try:
        with open_regular(entry.path) as handle:  # swapped for a FIFO since it was listed: never waited on
            size = os.fstat(handle.fileno()).st_size
            handle.seek(max(0, size - _TAIL_BYTES))
            tail = handle.read(_TAIL_BYTES)
        mtime = entry.stat().st_mtime
    except OSError:
        return 0.0, 0.0
    mtime = mtime if mtime <= now else 0.0
    for line in reversed(tail.split(b"\n")):
        found = _TIMESTAMP.findall(line)
        stamp = _seconds(found[-1].decode("ascii", errors="replace")) if found else None
        if stamp is not None and stamp <= now:
            return stamp, mtime
    return mtime, mtime


def _seconds(stamp: str) -> float | None:
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def find_session(home: Path, cwd: Path, session_id: str) -> Path | None:
    """The main transcript of `session_id`: in `cwd`'s folder, else in any project's; None if none
    (a FIFO or device of that name is none: reading it could wait forever)."""
    if not SESSION_ID.fullmatch(session_id):
        return None
    here = project_folder(home, cwd) / f"{session_id}.jsonl"
    if here.is_file():
        return here
    found = sorted((Path(home) / ".claude" / "projects").glob(f"*/{session_id}.jsonl"))
    return next((path for path in found if path.is_file()), None)

"""Piped input: `cat error.log | agent -p "explain this"` sends the prompt, then the piped text.

Stdin is read only when it is not a terminal, and never so as to hang: a pipe closed at once (the
tester's) ends at once; a pipe left open with nothing in it is given up on after a short wait;
data that stops arriving without the pipe closing ends the read after the same wait. Input over
MAX_BYTES keeps its first MAX_BYTES, with one warning saying so.
"""

from __future__ import annotations

import logging
import os
import select
from typing import IO

from agent.workspace import size_text

log = logging.getLogger("agent")

FIRST_DATA_WAIT_S = 1.0  # how long a silent, open pipe may keep us waiting before we go on
IDLE_WAIT_S = 1.0  # how long data may pause before what arrived counts as all of it
MAX_BYTES = 10 * 1024 * 1024


def read_piped(stream: IO | None) -> str | None:
    """The text piped into `stream`, or None when it is a terminal, closed, empty, or silent."""
    if stream is None:
        return None
    try:
        if stream.isatty():
            return None
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):  # no real file (e.g. pytest's stand-in): not a pipe
        return _read_in_memory(stream)
    chunks: list[bytes] = []
    size, wait = 0, FIRST_DATA_WAIT_S
    while size < MAX_BYTES:
        try:
            ready, _, _ = select.select([fd], [], [], wait)
        except (OSError, ValueError):
            break
        if not ready:
            break  # silent for too long: go on with what arrived
        try:
            chunk = os.read(fd, min(65536, MAX_BYTES - size))
        except OSError:
            break
        if not chunk:
            break  # end of input
        chunks.append(chunk)
        size += len(chunk)
        wait = IDLE_WAIT_S
    if size >= MAX_BYTES and _more_follows(fd):
        _warn_cut()
    text = b"".join(chunks).decode("utf-8", errors="replace")
    return text if text.strip() else None


def _more_follows(fd: int) -> bool:
    """Whether the pipe holds more than was kept (waiting no longer than for more data)."""
    try:
        ready, _, _ = select.select([fd], [], [], IDLE_WAIT_S)
        return bool(ready) and bool(os.read(fd, 1))
    except (OSError, ValueError):
        return False


def _warn_cut() -> None:
    kept = size_text(MAX_BYTES)
    log.warning("piped input is over %s: only its first %s were kept", kept, kept)


def _read_in_memory(stream: IO) -> str | None:
    try:
        data = stream.read(MAX_BYTES + 1)
    except (OSError, ValueError):
        return None
    if len(data or "") > MAX_BYTES:
        data = data[:MAX_BYTES]
        _warn_cut()
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else str(data or "")
    return text if text.strip() else None


def combine(prompt: str | None, piped: str | None) -> str | None:
    """The prompt Claude Code builds: the prompt, a line break, then the piped text; either alone
    when the other is missing."""
    if prompt is not None and piped is not None:
        return f"{prompt}\n{piped}"
    return prompt if prompt is not None else piped


def is_terminal(stream: IO | None) -> bool:
    """Whether `stream` is a terminal a person types into."""
    try:
        return bool(stream is not None and stream.isatty())
    except (AttributeError, ValueError):
        return False

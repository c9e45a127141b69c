"""How the command line reports besides its output: the `[agent]` lines on stderr, the one line
a bug of ours becomes (its traceback only under --verbose), and what a run could not write."""

from __future__ import annotations

import logging
import os
import sys

from agent.cli.visible import shown

log = logging.getLogger("agent")


def configure_logging(level: int) -> None:
    """Send the agent's log to stderr as `[agent] ...` lines, from `level` up."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_Shown("[agent] %(message)s", sys.stderr))
    log.handlers[:] = [handler]
    log.setLevel(level)
    log.propagate = False


class _Shown(logging.Formatter):
    """A log line as stderr shows it: secrets redacted, control characters made visible on a terminal."""

    def __init__(self, form: str, stream) -> None:
        super().__init__(form)
        self.stream = stream

    def format(self, record: logging.LogRecord) -> str:
        return shown(super().format(record), self.stream)


def internal_error(exc: BaseException) -> str:
    """A bug of ours as one line (the traceback is logged for --verbose)."""
    log.info("internal error", exc_info=exc)
    return f"internal error: {type(exc).__name__}: {' '.join(str(exc).split())[:300]}"


def unwritten(session) -> str | None:
    """What the run could not write (a full disk: the trace, a transcript, the cassette), as one
    phrase naming each file and why; None when everything was written."""
    lost = [getattr(session.client, "unwritten", None), getattr(session.transcripts, "unwritten", None),
            *session.unwritten]
    return "; ".join(each for each in lost if each) or None


EXIT_READER_GONE = 141  # 128 + SIGPIPE, as a shell reports a program whose reader went away


def reader_gone() -> int:
    """stdout's reader went away (`| head`): nothing more can be shown, and that is no error to
    report. stdout is pointed at /dev/null so the interpreter's last flush does not complain."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout has no descriptor (in-process tests): nothing to redirect
        pass
    return EXIT_READER_GONE

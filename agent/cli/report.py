"""How the command line reports besides its output: the `[agent]` lines on stderr, and the one
line a bug of ours becomes (its traceback only under --verbose)."""

from __future__ import annotations

import logging
import sys

log = logging.getLogger("agent")


def configure_logging(level: int) -> None:
    """Send the agent's log to stderr as `[agent] ...` lines, from `level` up."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("[agent] %(message)s"))
    log.handlers[:] = [handler]
    log.setLevel(level)
    log.propagate = False


def internal_error(exc: BaseException) -> str:
    """A bug of ours as one line (the traceback is logged for --verbose)."""
    log.info("internal error", exc_info=exc)
    return f"internal error: {type(exc).__name__}: {' '.join(str(exc).split())[:300]}"

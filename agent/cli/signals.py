"""Signals that end the agent: SIGTERM and SIGHUP end a run as Ctrl-C does. The main thread
unwinds (a recording cut short is not saved over, transcripts keep what was said), every command
still running is killed with its whole process group, and the exit status is the shell's
convention, 128 + the signal's number, with one line saying why."""

from __future__ import annotations

import contextlib
import signal
import threading
from typing import Iterator

ENDING = (signal.SIGTERM, signal.SIGHUP)
SIGNALLED = 128  # an exit status above it says a signal ended the agent: 128 + its number


class Terminated(BaseException):
    """Raised in the main thread when a signal of ENDING arrives; not an Exception, so nothing
    that handles failures catches it, and not a KeyboardInterrupt, which cancels only a turn of
    an interactive session."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.name = signal.Signals(signum).name
        self.exit_code = SIGNALLED + signum


def _raise(signum: int, frame) -> None:
    for each in ENDING:  # once: the unwinding that follows is not cut short by a second signal
        signal.signal(each, signal.SIG_IGN)
    raise Terminated(signum)


@contextlib.contextmanager
def ending_on_signals() -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP raise Terminated in the main thread. A signal that
    was ignored when the agent started (`nohup` ignores SIGHUP) stays ignored; the handlers that
    were there before come back afterwards (the test suite calls the CLI in-process)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = {each: signal.getsignal(each) for each in ENDING}
    for each, handler in before.items():
        if handler is not signal.SIG_IGN:
            signal.signal(each, _raise)
    try:
        yield
    finally:
        for each, handler in before.items():
            signal.signal(each, handler if handler is not None else signal.SIG_DFL)

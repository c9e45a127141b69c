"""Bounds for tests that feed bombs: a hang or a blow-up fails the test instead of holding the machine."""

from __future__ import annotations

import contextlib
import resource
import signal

MB = 1 << 20


@contextlib.contextmanager
def within(seconds: int):
    """Fail (not hang) when the block runs longer than `seconds`."""
    def expire(*_):
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def bounded(seconds: int = 30, megabytes: int = 2048):
    """`within(seconds)`, with at most `megabytes` more address space than the process has now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (_address_space() + megabytes * MB, hard))
    try:
        with within(seconds):
            yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _address_space() -> int:
    """This process's virtual memory size in bytes."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[0]) * resource.getpagesize()

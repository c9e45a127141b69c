"""Taking the secrets out of the process environment at start: their values go to the caller (the
run's configuration) and to the redaction rule, and leave `os.environ` and the environment block
the kernel shows as `/proc/<pid>/environ`, so no command the agent runs can read them back."""

from __future__ import annotations

import os
from typing import Iterable

from agent.secrets.redact import register


def take(names: Iterable[str]) -> dict[str, str]:
    """Remove the variables `names` from this process's environment and register their values as
    the run's secrets; returns them (name -> value) for whatever needs them later."""
    taken = {name: os.environ.pop(name) for name in names if name in os.environ}
    register(taken)
    entries = [f"{name}=".encode() for name in taken]
    if entries:
        _blank_initial_block(entries)
    return taken


def _blank_initial_block(prefixes: list[bytes]) -> None:
    """Overwrite with NUL bytes the values of `prefixes` (`NAME=`) in the environment block the
    process started with: `/proc/<pid>/environ` reads that memory, not `os.environ`. Best effort: on
    a system without /proc the block stays (and so does nothing that reads it)."""
    try:
        with open("/proc/self/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
        start, end = int(fields[47]), int(fields[48])  # env_start and env_end (fields 50 and 51)
        with open("/proc/self/mem", "r+b", buffering=0) as memory:
            memory.seek(start)
            block = bytearray(memory.read(end - start))
            changed = False
            at = 0
            for entry in bytes(block).split(b"\0"):
                if any(entry.startswith(prefix) for prefix in prefixes):
                    skip = entry.index(b"=") + 1
                    block[at + skip: at + len(entry)] = b"\0" * (len(entry) - skip)
                    changed = True
                at += len(entry) + 1
            if changed:
                memory.seek(start)
                memory.write(bytes(block))
    except (OSError, ValueError, IndexError):
        pass

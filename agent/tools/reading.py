"""Streaming the files that Read and Grep look into (opened with `workspace.open_regular`, so only
regular files, never waited on): lines are cut at a cap, so one enormous line is never held in
memory whole, and counting lines stops at a budget."""

from __future__ import annotations

from typing import BinaryIO, Iterator

BINARY_SNIFF_BYTES = 8192
_SKIP_CHUNK = 1024 * 1024  # how much of an over-long line is read past at a time


def looks_binary(handle: BinaryIO) -> bool:
    """Whether the open file has a NUL byte near its start (Read and Grep skip such files); the
    handle is left at the start."""
    head = handle.read(BINARY_SNIFF_BYTES)
    handle.seek(0)
    return b"\0" in head


def bounded_lines(handle: BinaryIO, cap: int) -> Iterator[tuple[bytes, int]]:
    """Each line of `handle` (its newline kept) cut to at most `cap` bytes, with the line's whole
    length in bytes; the rest of a longer line is read past in small pieces, never kept."""
    while True:
        line = handle.readline(cap)
        if not line:
            return
        length = len(line)
        if length == cap and not line.endswith(b"\n"):
            while True:
                rest = handle.readline(_SKIP_CHUNK)
                length += len(rest)
                if not rest or rest.endswith(b"\n"):
                    break
        yield line, length


def count_lines(handle: BinaryIO, budget: int) -> tuple[int, bool]:
    """How many lines the rest of `handle` holds, reading at most `budget` bytes in blocks; and
    whether it got to the end (a huge file is not read through just to count its lines)."""
    lines, read, last = 0, 0, b"\n"
    while read < budget:
        block = handle.read(min(1024 * 1024, budget - read))
        if not block:
            return lines + (0 if last.endswith(b"\n") else 1), True
        lines += block.count(b"\n")
        read += len(block)
        last = block
    return lines, False

"""Server-sent events: the stream both providers send when a request asks for `stream: true`."""

from __future__ import annotations

from typing import Iterable, Iterator


def lines(pieces: Iterable[bytes]) -> Iterator[str]:
    """The text lines in `pieces` of a body (a line may span pieces), split at `\\n` with a `\\r`
    before it dropped; bytes are joined before decoding, so a character split between pieces
    survives. Reading the pieces is the caller's business (the client checks its deadline)."""
    pending: list[bytes] = []
    for piece in pieces:
        start = 0
        while (end := piece.find(b"\n", start)) >= 0:
            pending.append(piece[start:end])
            yield _text(b"".join(pending))
            pending, start = [], end + 1
        if start < len(piece):
            pending.append(piece[start:])
    if pending:
        yield _text(b"".join(pending))


def _text(line: bytes) -> str:
    return line.removesuffix(b"\r").decode("utf-8", errors="replace")


def events(lines: Iterable[str]) -> Iterator[tuple[str, str]]:
    """`(event name, data)` for each event in the lines of a stream: `data:` lines joined, a blank
    line ending an event, `:` comments (OpenRouter's keep-alives) skipped."""
    name, data = "", []
    for line in lines:
        line = line.rstrip("\r")
        if not line:
            if data:
                yield name or "message", "\n".join(data)
            name, data = "", []
        elif line.startswith(":"):
            continue
        else:
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "event":
                name = value
            elif field == "data":
                data.append(value)
    if data:
        yield name or "message", "\n".join(data)

"""Server-sent events: the stream both providers send when a request asks for `stream: true`."""

from __future__ import annotations

from typing import Iterable, Iterator


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

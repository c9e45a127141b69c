"""Reading what recorded requests hold: one function for a request's body, which everything
that reads a cassette's requests goes through (`cassette show`, `show --request N --raw`,
`cassette diff`, the reports), and one for the text of a message's content on either wire.

A cassette stores later bodies as deltas (`agent.record.deltas`); `cassette_file.read` rebuilds
them whole, so its readers never see the difference.
"""

from __future__ import annotations

import json
from typing import Any

from agent.record.cassette_file import CassetteFile


def request_body(cassette: CassetteFile, index: int) -> Any:
    """The body of request `index` (0-based, in cassette order) exactly as it was sent: a JSON
    value (a body that was not JSON as its text), with the folders as the cassette was read
    (`{{workspace}}` and `{{home}}` when it was read without placeholders). An IndexError when
    the cassette holds no such request."""
    if not 0 <= index < len(cassette.interactions):
        raise IndexError(f"the cassette holds {len(cassette.interactions)} requests, not {index + 1}")
    return cassette.interactions[index].request


def content_text(content: Any, joiner: str = "\n\n", name_others: bool = False) -> str:
    """A message content (or system prompt) as text, on either wire: a text as it is, a list of
    parts as their texts joined by `joiner` (each other part named by its type with
    `name_others`, else left out), anything else as its JSON."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
            elif isinstance(part, str):
                parts.append(part)
            elif name_others:
                kind = part.get("type") if isinstance(part, dict) else None
                parts.append(f"({kind if isinstance(kind, str) else 'a part of no known kind'})")
        return joiner.join(parts)
    return "" if content is None else json.dumps(content, ensure_ascii=False)

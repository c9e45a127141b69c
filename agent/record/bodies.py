"""Where a recorded request's body is read from: one function, which everything that reads a
cassette's requests goes through (`cassette show`, `show --request N --raw`, `cassette diff`).

Today each interaction holds its request body whole. A cassette that stores later bodies as
changes to an earlier one would change only `request_body`, and its readers would not notice.
"""

from __future__ import annotations

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

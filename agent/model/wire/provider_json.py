"""JSON from the provider, read with limits: no deeper than the workspace's shared loader allows
(a 100,000-deep reply is one clear error, not a RecursionError), and tool inputs held to the
numbers JSON has (Python's parser also takes NaN and Infinity, which no request can carry back)."""

from __future__ import annotations

import math
from typing import Any

from agent.errors import ProviderError
from agent.workspace import InputLimitError, load_json

NOT_FINITE = "the input holds NaN or Infinity, which JSON does not allow; send finite numbers"


def load(text: str | bytes, what: str) -> Any:
    """`text` parsed: ValueError when it is not JSON, ProviderError (naming `what`) when it nests
    too deep."""
    try:
        return load_json(text, what)
    except InputLimitError as exc:
        raise ProviderError(str(exc)) from None


def has_non_finite(value: Any) -> bool:
    """Whether a NaN or an infinity lies anywhere in `value` (already depth-limited)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return True
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False

"""Drift reports: where a request the agent sends differs from the one a cassette recorded.

Pure functions over JSON values, so the message a user sees ("request 2 differs ... at
$.messages[0].content: recorded ..., sent ...") does not depend on vcrpy.
"""

from __future__ import annotations

import json
from typing import Any

from agent.workspace import load_json


def first_difference(recorded: Any, sent: Any, path: str = "$") -> tuple[str, Any, Any] | None:
    """The first place where two JSON values differ, as (path, recorded value, sent value)."""
    if isinstance(recorded, dict) and isinstance(sent, dict):
        for key in list(recorded) + [k for k in sent if k not in recorded]:
            if key not in recorded or key not in sent:
                return f"{path}.{key}", recorded.get(key, "<absent>"), sent.get(key, "<absent>")
            found = first_difference(recorded[key], sent[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(recorded, list) and isinstance(sent, list):
        for index, (a, b) in enumerate(zip(recorded, sent)):
            found = first_difference(a, b, f"{path}[{index}]")
            if found:
                return found
        if len(recorded) != len(sent):
            return f"{path}.length", len(recorded), len(sent)
        return None
    # JSON true is not 1: compare types too (ints and floats stay comparable)
    same_kind = type(recorded) is type(sent) or (
        isinstance(recorded, (int, float)) and isinstance(sent, (int, float))
        and not isinstance(recorded, bool) and not isinstance(sent, bool)
    )
    return None if same_kind and recorded == sent else (path, recorded, sent)


def json_body(body: Any) -> Any:
    """A request body (bytes or text) as JSON, or as the text itself when it is not JSON."""
    if isinstance(body, bytes):
        body = body.decode("utf-8", errors="replace")
    try:
        return load_json(body, "the request body") if body else None
    except ValueError:  # not JSON, or nested beyond the limit: compared as text
        return body


def brief(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 300 else text[:300] + "..."


def around_first_change(a: str, b: str, before: int = 40, after: int = 80) -> tuple[str, str]:
    """Excerpts of two strings around the first character where they differ."""
    index = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    start = max(0, index - before)
    lead = "..." if start else ""

    def cut(text: str) -> str:
        tail = "..." if len(text) > index + after else ""
        return lead + text[start : index + after] + tail

    return cut(a), cut(b)

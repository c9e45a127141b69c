"""A drifted request in HTML: the recorded body and the one sent, side by side, with the paths
where they differ highlighted.

Each side is drawn as a JSON tree opened only along the differing paths: a value on no such path
is one line (folded, its JSON one click away, bounded), a long list shows the items around a
difference and elides the rest, and a differing text is shown around its first changed character.
So a drift in request 900 of a long session is a small page, not two copies of the conversation.
"""

from __future__ import annotations

import json
from typing import Any

from agent.record.drift import around_first_change, brief
from agent.record.html_parts import attr, bounded_json, esc
from agent.record.show import agent_name

NEIGHBOURS = 1  # list items shown on each side of a differing one
INLINE_CHARS = 120  # a value whose JSON is at most this long is shown on its line
WHOLE_TEXT_CHARS = 200_000  # a differing text is offered whole up to this length
_ABSENT = object()


def drift_html(drift: dict[str, Any], differences: list[tuple[str, Any, Any]]) -> str:
    """`drift` (agent.errors.ReplayMismatch's) with its `differences` (JSON path, recorded value,
    sent value: the first few, under the replay's match rules) as a table and two trees."""
    number, agent = drift.get("request"), drift.get("agent")
    if not differences and drift.get("where"):
        differences = [(drift["where"], None, None)]
    rows = "".join(f'<tr><td><code>{esc(where)}</code></td><td><code>{esc(_brief(was, now))}</code></td>'
                   f'<td><code>{esc(_brief(now, was))}</code></td></tr>' for where, was, now in differences)
    paths = {where for where, _, _ in differences}
    recorded, sent = drift.get("recorded"), drift.get("sent")
    return (f'<div class="drift"><div>request {esc(number)} ({esc(agent_name(agent))}) differs from the recording'
            f'{" at " + esc(drift["where"]) if drift.get("where") else ""}</div>'
            f'<table class="paths"><tr><th>path</th><th>recorded</th><th>sent</th></tr>{rows}</table>'
            f'<div class="sides"><div class="side recorded"><h3>recorded (request {esc(number)} in the cassette)</h3>'
            f'{_Tree(paths).node(recorded, "$", sent)}</div>'
            f'<div class="side sent"><h3>sent by this run</h3>{_Tree(paths).node(sent, "$", recorded)}</div></div></div>')


def _brief(value: Any, other: Any) -> str:
    if isinstance(value, str) and isinstance(other, str):
        value, _ = around_first_change(value, other)
    return brief(value)


class _Tree:
    """One side's tree; `paths` are the differing ones, in `first_difference`'s form."""

    def __init__(self, paths: set[str]):
        self.paths = paths

    def node(self, value: Any, path: str, other: Any) -> str:
        if path in self.paths:
            return self._marked(value, path, other)
        if not self._on_the_way(path):
            return _folded(value)
        if isinstance(value, dict):
            return self._object(value, path, other if isinstance(other, dict) else {})
        if isinstance(value, list):
            return self._array(value, path, other if isinstance(other, list) else [])
        return _folded(value)

    def _on_the_way(self, path: str) -> bool:
        return any(where.startswith(path) and where[len(path):len(path) + 1] in (".", "[") for where in self.paths)

    def _object(self, value: dict, path: str, other: dict) -> str:
        lines = []
        for key in list(value) + [key for key in other if key not in value]:
            inner = f"{path}.{key}"
            if key in value:
                shown = self.node(value[key], inner, other.get(key, _ABSENT))
            elif inner in self.paths:
                shown = '<span class="elided">absent</span>'
            else:
                continue
            lines.append(f'<div class="j{" diff" if inner in self.paths else ""}" data-path="{attr(inner)}">'
                         f'{esc(json.dumps(key, ensure_ascii=False))}: {shown}</div>')
        return "{" + "".join(lines) + "}"

    def _array(self, value: list, path: str, other: list) -> str:
        grown = f"{path}.length" in self.paths
        wanted = {index for index in range(len(value)) if self._reaches(f"{path}[{index}]")}
        if grown:
            wanted |= set(range(min(len(value), len(other)), len(value)))
        shown = {i for index in wanted for i in range(index - NEIGHBOURS, index + NEIGHBOURS + 1) if 0 <= i < len(value)}
        lines, skipped = [], 0
        for index, item in enumerate(value):
            if index not in shown:
                skipped += 1
                continue
            if skipped:
                lines.append(_elided(skipped))
                skipped = 0
            inner = f"{path}[{index}]"
            extra = grown and index >= len(other)
            marked = inner in self.paths or extra
            body = _folded(item) if extra else self.node(item, inner, other[index] if index < len(other) else _ABSENT)
            lines.append(f'<div class="j{" diff" if marked else ""}" data-path="{attr(inner)}">{body}</div>')
        if skipped:
            lines.append(_elided(skipped))
        count = f'<span class="elided"> ({len(value):,} items, the other side {len(other):,})</span>' if grown else ""
        return "[" + "".join(lines) + "]" + count

    def _reaches(self, path: str) -> bool:
        return path in self.paths or self._on_the_way(path)

    def _marked(self, value: Any, path: str, other: Any) -> str:
        if value is _ABSENT:
            return '<span class="elided">absent</span>'
        if isinstance(value, str) and isinstance(other, str):
            return _changed_text(value, other)
        return f"<pre>{esc(bounded_json(value))}</pre>"


def _changed_text(text: str, other: str) -> str:
    """A text around where it first differs from `other`, the change marked, the whole on expand."""
    at = next((i for i, (a, b) in enumerate(zip(text, other)) if a != b), min(len(text), len(other)))
    start, end = max(0, at - 300), at + 600
    excerpt = (("…" if start else "") + esc(text[start:at]) + f'<mark class="change">{esc(text[at:end])}</mark>'
               + ("…" if end < len(text) else ""))
    if at >= len(text):
        excerpt += '<mark class="change">(the text ends here)</mark>'
    whole = ""
    if start or end < len(text):
        whole = (f'<details><summary>the whole text ({len(text):,} characters)</summary>'
                 f'<pre>{esc(text[:WHOLE_TEXT_CHARS])}{"…" if len(text) > WHOLE_TEXT_CHARS else ""}</pre></details>')
    return f'<pre>{excerpt}</pre>{whole}'


def _folded(value: Any) -> str:
    """A value on no differing path: on its line when short, else folded with its kind and size."""
    text = json.dumps(value, ensure_ascii=False)
    if len(text) <= INLINE_CHARS:
        return esc(text)
    if isinstance(value, dict):
        kind = f"{{…}} {len(value):,} keys" + _hint(value)
    elif isinstance(value, list):
        kind = f"[…] {len(value):,} items"
    else:
        kind = f"{esc(text[:60])}… ({len(text):,} characters)"
        return f'<details class="fold"><summary>{kind}</summary><pre>{esc(bounded_json(value))}</pre></details>'
    return f'<details class="fold"><summary>{esc(kind)}</summary><pre>{esc(bounded_json(value))}</pre></details>'


def _hint(value: dict) -> str:
    """What names a folded object, for finding one's way: its name (a tool's), role or type."""
    named = value.get("function") if isinstance(value.get("function"), dict) else value
    for key in ("name", "role", "type"):
        if isinstance(named.get(key), str):
            return f", {key} {json.dumps(named[key][:40], ensure_ascii=False)}"
    return ""


def _elided(count: int) -> str:
    return f'<div class="j elided">… {count:,} item{"s" if count != 1 else ""} with no listed difference</div>'

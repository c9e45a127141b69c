"""Requests stored as what they add to an earlier request of the same agent, so a cassette grows
linearly with the session instead of with its square (every request repeats the conversation).

A delta on the request numbered `base` (1-based, in cassette order):

    body_delta:
      base: 3            # the request this one builds on
      messages_kept: 7   # the first 7 of its messages, as they were
      messages: [...]    # then these
      changed: {...}     # top-level fields whose value differs (each whole), in the body's order
      removed: [...]     # top-level fields it had and this one does not

A body is stored whole when it is the first of its agent, is not a JSON object with a list of
messages, or would not come back exactly (its keys in another order). `rebuilt` gives the body
back exactly, sharing the unchanged parts with its base, so reading every request of a long
session costs memory in proportion to the cassette, not to what was sent.
"""

from __future__ import annotations

from typing import Any

DELTA = "body_delta"
_MESSAGES = "messages"


def common_prefix(first: list, second: list) -> int:
    """How many leading items the two lists share."""
    count = 0
    for a, b in zip(first, second):
        if a is not b and a != b:  # shared objects (see shared_with) compare at once
            break
        count += 1
    return count


def shared_with(body: Any, base: Any) -> Any:
    """`body` with the parts equal to `base`'s (top-level fields, leading messages) replaced by
    base's own objects, so that a recording holding every request keeps each once."""
    if not (_has_messages(body) and _has_messages(base)):
        return body
    kept = common_prefix(base[_MESSAGES], body[_MESSAGES])
    out = {}
    for key, value in body.items():
        if key == _MESSAGES:
            out[key] = base[_MESSAGES][:kept] + value[kept:]
        elif key in base and (base[key] is value or base[key] == value):
            out[key] = base[key]
        else:
            out[key] = value
    return out


def delta(body: Any, base: Any, base_number: int) -> dict | None:
    """`body` as a delta on `base` (the request numbered `base_number`), or None when it is
    better stored whole (see the module docstring)."""
    if not (_has_messages(body) and _has_messages(base)):
        return None
    kept = common_prefix(base[_MESSAGES], body[_MESSAGES])
    changed = {key: value for key, value in body.items()
               if key != _MESSAGES and (key not in base or (base[key] is not value and base[key] != value))}
    removed = [key for key in base if key not in body]
    found: dict[str, Any] = {"base": base_number, "messages_kept": kept, "messages": body[_MESSAGES][kept:]}
    if changed:
        found["changed"] = changed
    if removed:
        found["removed"] = removed
    if list(_keys_after(base, changed, removed)) != list(body):
        return None  # a field moved: rebuilding would not give the same text back
    return found


def rebuilt(found: dict, base: Any) -> dict:
    """The body a delta describes, from its (already rebuilt) base; unchanged parts are base's
    own objects. The delta must have been checked in shape (`agent.record.shape`)."""
    changed = found.get("changed") or {}
    removed = set(found.get("removed") or ())
    body = {}
    for key in _keys_after(base, changed, list(removed)):
        if key == _MESSAGES:
            body[key] = base[_MESSAGES][:found["messages_kept"]] + list(found["messages"])
        else:
            body[key] = changed[key] if key in changed else base[key]
    return body


def delta_problem(found: Any, counts: list[int | None]) -> str | None:
    """What is wrong with a delta read from a file, or None: `counts[i]` is how many messages
    request i + 1 has (None when its body has no list of messages)."""
    if not isinstance(found, dict) or not set(found) <= {"base", "messages_kept", "messages", "changed", "removed"}:
        return "its body_delta must be a mapping of base, messages_kept, messages, changed and removed"
    number, kept = found.get("base"), found.get("messages_kept")
    if not (isinstance(number, int) and not isinstance(number, bool) and 1 <= number <= len(counts)):
        return "its body_delta base must be the number of an earlier request"
    if counts[number - 1] is None:
        return f"its body_delta builds on request {number}, whose body has no messages"
    if not (isinstance(kept, int) and not isinstance(kept, bool) and 0 <= kept <= counts[number - 1]):
        return f"its body_delta keeps {kept!r} messages of request {number}, which has {counts[number - 1]}"
    if not isinstance(found.get("messages"), list):
        return "its body_delta messages must be a list"
    changed = found.get("changed", {})
    if not isinstance(changed, dict) or _MESSAGES in changed:
        return "its body_delta changed must be a mapping of fields other than messages"
    removed = found.get("removed", [])
    if not (isinstance(removed, list) and all(isinstance(key, str) for key in removed)) or _MESSAGES in removed:
        return "its body_delta removed must be a list of field names other than messages"
    return None


def message_count(body: Any, found: Any = None) -> int | None:
    """How many messages a request has: its body's, or for a (checked) delta, those it keeps of
    its base and adds."""
    if found is not None:
        return found["messages_kept"] + len(found["messages"])
    return len(body[_MESSAGES]) if _has_messages(body) else None


def _keys_after(base: dict, changed: dict, removed: list) -> list[str]:
    """The keys of a body built on `base`: base's in order less the removed, then the new ones."""
    gone = set(removed)
    keys = [key for key in base if key not in gone]
    return keys + [key for key in changed if key not in base]


def _has_messages(body: Any) -> bool:
    return isinstance(body, dict) and isinstance(body.get(_MESSAGES), list)

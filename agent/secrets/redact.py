"""The one redaction rule. Each registered value is found as itself, JSON-escaped (once or twice),
URL-encoded, hex, and base64 or base64url at each of the three alignments a value can take inside
a base64 group (what `base64` makes of a file holding it); a base64 or hex form also with line
breaks (or JSON's `\\n`) anywhere in it, as `base64` wraps long lines. A match becomes
`[NAME redacted]`.

Values shorter than MIN_LENGTH are never registered: redacting them would eat ordinary text."""

from __future__ import annotations

import base64
import json
import re
import threading
from typing import Any, Mapping
from urllib.parse import quote, quote_plus

MIN_LENGTH = 8
SECRET_WORDS = frozenset({"KEY", "TOKEN", "SECRET", "PASSWORD"})
# a line break as written, or as JSON writes it inside a string
_BREAK = re.compile(r"\r?\n|(?:\\r)?\\n")
# lines of base64 or hex, which `base64` (76 columns) or `fold` may have wrapped a secret across
_WRAPPED = re.compile(r"[A-Za-z0-9+/_-]+(?:(?:\r?\n|(?:\\r)?\\n)[A-Za-z0-9+/_-]+)+")

_lock = threading.Lock()
_values: dict[str, str] = {}  # name -> value
_forms_by_length: list[tuple[str, str]] = []  # (form, name), the longest first


def is_secret_name(name: str) -> bool:
    """Whether a variable's name says it holds a secret: one of its `_`-separated words is KEY,
    TOKEN, SECRET or PASSWORD (`OPENROUTER_API_KEY`, not `MAX_THINKING_TOKENS`)."""
    return not SECRET_WORDS.isdisjoint(name.upper().split("_"))


def register(values: Mapping[str, str]) -> None:
    """Make `values` (name -> value) the secrets of this run, replacing any registered before."""
    global _forms_by_length
    kept = {name: value for name, value in values.items() if isinstance(value, str) and len(value) >= MIN_LENGTH}
    forms: dict[str, str] = {}
    for name, value in sorted(kept.items(), key=lambda item: -len(item[1])):
        for form in _forms(value):
            forms.setdefault(form, name)
    with _lock:
        _values.clear()
        _values.update(kept)
        # the longest form first, so a value inside another's encoding cannot leave part of it
        _forms_by_length = sorted(forms.items(), key=lambda item: -len(item[0]))


def registered() -> dict[str, str]:
    """The secrets of this run, name -> value."""
    with _lock:
        return dict(_values)


def redact(text: str) -> str:
    """`text` with every registered secret, in any of its forms, replaced by `[NAME redacted]`."""
    forms = _forms_by_length
    if not forms or not isinstance(text, str) or len(text) < MIN_LENGTH:
        return text
    text = _replaced(text, forms)
    if "\n" in text or "\\n" in text:  # a line break, or JSON's
        shortest = len(forms[-1][0])
        text = _WRAPPED.sub(lambda match: _unwrapped(match.group(0), forms, shortest), text)
    return text


def _replaced(text: str, forms: list[tuple[str, str]]) -> str:
    for form, name in forms:
        if form in text:
            text = text.replace(form, f"[{name} redacted]")
    return text


def _unwrapped(block: str, forms: list[tuple[str, str]], shortest: int) -> str:
    """A block of wrapped lines as it was, or joined into one line with the secrets in it redacted."""
    if len(block) < shortest:
        return block
    joined = _BREAK.sub("", block)
    redacted = _replaced(joined, forms)
    return block if redacted == joined else redacted


def redact_data(value: Any) -> Any:
    """`value` (JSON-like: dicts, lists, strings) with `redact` applied to every string in it, keys too."""
    if not _forms_by_length:
        return value
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, list):
        return [redact_data(item) for item in value]
    if isinstance(value, dict):
        return {redact_data(key): redact_data(item) for key, item in value.items()}
    return value


def _forms(value: str) -> set[str]:
    """Every spelling of `value` that is searched for (the base64 ones trimmed to the characters
    that depend on the value alone)."""
    raw = value.encode("utf-8", errors="surrogatepass")
    forms = {value, raw.hex(), raw.hex().upper()}
    for escaped in (json.dumps(value)[1:-1], json.dumps(value, ensure_ascii=False)[1:-1]):
        forms |= {escaped, escaped.replace("/", "\\/"), json.dumps(escaped)[1:-1]}
    for encoded in (quote(value, safe=""), quote(value), quote_plus(value, safe="")):
        forms |= {encoded, re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), encoded)}
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + raw).decode("ascii")
        first = -(-offset * 8 // 6)  # the first character made of the value's bits only
        last = (offset + len(raw)) * 8 // 6  # the characters after it hold padding bits too
        core = encoded[first:last]
        forms |= {core, core.replace("+", "-").replace("/", "_")}
    return {form for form in forms if len(form) >= MIN_LENGTH}

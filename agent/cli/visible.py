"""What reaches a person's terminal: every text the command line shows goes through `shown` (or
`json_shown` for JSON), which redacts the run's secrets always and, when the stream is a terminal,
makes control characters visible (`\\x1b`, `\\u202e`) so nothing the model, a command or a file name
holds can retitle the window, write the clipboard, clear the screen, link or reorder text. Newline
and tab stay as they are. Output to a pipe or a file stays byte-exact (less the secrets)."""

from __future__ import annotations

from typing import IO

from agent.cli.stdin import is_terminal
from agent.secrets import redact

_NAMED = {"\t": "\\t", "\r": "\\r", "\n": "\\n", "\x1b": "\\x1b"}


def visible(text: str, keep: str = "\n\t") -> str:
    """`text` with every control, format (bidirectional override, zero-width) or other unprintable
    character written as an escape, except those in `keep`."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() or char == " " or char in keep else _escape(char) for char in text)


def _escape(char: str) -> str:
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def shown(text: str, stream: IO | None) -> str:
    """`text` as written to `stream`: redacted; made visible too when `stream` is a terminal."""
    text = redact(text)
    return visible(text) if is_terminal(stream) else text


def json_shown(text: str, stream: IO | None) -> str:
    """JSON `text` as written to `stream`: redacted; on a terminal, unprintable characters inside
    its strings written as JSON's `\\u` escapes (the same JSON value, harmless on a screen)."""
    text = redact(text)
    if not is_terminal(stream) or text.isprintable():
        return text
    return "".join(char if char.isprintable() or char in "\n " else _json_escape(char) for char in text)


def _json_escape(char: str) -> str:
    code = ord(char)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"

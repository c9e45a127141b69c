"""When a conversation is compacted ahead of time: Claude Code's threshold is the window minus
33,000 tokens of the last reply's reported context, for a window set by --autocompact <tokens>
or CLAUDE_CODE_AUTO_COMPACT_WINDOW (an agent's `autoCompactWindow` for that agent);
CLAUDE_AUTOCOMPACT_PCT_OVERRIDE lowers it to a percentage of the window. Without a window, a
run in -p compacts only when the provider refuses a request as too long, as Claude Code's does;
DISABLE_AUTO_COMPACT turns both off."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

log = logging.getLogger("agent")

BUFFER_TOKENS = 33_000  # below the window: where Claude Code compacts (observed at 67,100 of 100,000)
MIN_WINDOW = 100_000  # --autocompact's and autoCompactWindow's smallest window
MAX_WINDOW = 1_000_000
_TOKENS = re.compile(r"[0-9]{1,20}k?")


@dataclass(frozen=True)
class CompactionSettings:
    """A run's compaction rules: `window` (None: no compaction ahead of time), `percent` (of the
    window, from CLAUDE_AUTOCOMPACT_PCT_OVERRIDE) and `disabled` (DISABLE_AUTO_COMPACT)."""

    window: int | None = None
    percent: int | None = None
    disabled: bool = False

    def threshold(self, agent_window: int | None = None) -> int | None:
        """The reported context at which a conversation is compacted before its next request (an
        agent's own `autoCompactWindow` wins over the run's window); None: never ahead of time."""
        window = agent_window or self.window
        if self.disabled or window is None:
            return None
        limit = window - BUFFER_TOKENS
        if self.percent is not None:
            limit = min(limit, window * self.percent // 100)
        return max(limit, 1)


def window_value(text: str, what: str) -> int | None:
    """--autocompact's value: "auto" (None: Claude Code's own default, which in -p compacts only
    when a request is refused) or a number of tokens from MIN_WINDOW to MAX_WINDOW; a ValueError
    in words otherwise."""
    cleaned = text.strip().lower().replace("_", "").replace(",", "")
    if cleaned == "auto":
        return None
    tokens = None
    if _TOKENS.fullmatch(cleaned):  # ASCII digits only: `²` is a digit to str.isdigit, not to int()
        tokens = int(cleaned[:-1]) * 1000 if cleaned.endswith("k") else int(cleaned)
    if tokens is None or not MIN_WINDOW <= tokens <= MAX_WINDOW:
        shown = text if len(text) <= 40 else text[:40] + "..."
        raise ValueError(f"{what} must be auto or a number of tokens from {MIN_WINDOW:,} to {MAX_WINDOW:,}, not {shown!r}")
    return tokens


def agent_window(value, label: str) -> int | None:
    """An agent definition's `autoCompactWindow` (a number of tokens from MIN_WINDOW to
    MAX_WINDOW: that agent compacts within it); None when unset, or when it is none of those (one
    warning, as for the definition's other fields)."""
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        text = str(value) if value.bit_length() <= 64 else f"a number of {value.bit_length()} bits"  # str() refuses
    else:
        text = value if isinstance(value, str) else ""
    try:
        window = window_value(text, "autoCompactWindow") if text.strip().lower() != "auto" else None
    except ValueError as error:
        log.warning(f"{label}: {error}; ignoring it")
        return None
    return window

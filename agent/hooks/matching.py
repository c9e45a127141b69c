"""Which matcher groups a moment matches, read as Claude Code reads a matcher (observed on
2.1.332): `*`, `""` or no matcher match everything; a matcher of only letters, digits, `_`, spaces
and `|` is an exact, case-sensitive name or a `|` list of names (`Edit|Write`, `Edit | Write`;
`mcp__srv` does not match `mcp__srv__lookup`); anything else is an unanchored regular expression
(`^B`, `mcp__srv__.*`). Matchers come from files someone else may have written, so a regex runs
in RE2, which cannot be made to backtrack for ever."""

from __future__ import annotations

import functools
import logging
import re

log = logging.getLogger("agent")

_NAMES = re.compile(r"[A-Za-z0-9_| ]+")


def matches(matcher: str, subject: str | None) -> bool:
    """Whether a group with `matcher` runs for a moment whose matched value is `subject` (a tool
    name, a SessionStart source, an agent type, ...; None for events without matchers)."""
    if matcher in ("", "*") or subject is None:
        return True
    if _NAMES.fullmatch(matcher):
        return subject in {name.strip() for name in matcher.split("|")}
    pattern = _compiled(matcher)
    return bool(pattern is not None and pattern.search(subject))


@functools.lru_cache(maxsize=512)
def _compiled(matcher: str):
    import re2  # only a regex matcher loads it

    options = re2.Options()
    options.log_errors = False
    try:
        return re2.compile(matcher, options=options)
    except re2.error:
        log.warning("hook matcher %r is not a valid regular expression; it matches nothing", matcher)
        return None

"""What a replay compares: the match rules a team writes in a cassette's `match` section or gives
as `--ignore`, `--scrub` and `--match` flags.

- `ignore`: JSON paths left out of the comparison (`$.system`, `$.tools[*].description`,
  `$..description`, `$.messages[0].content`): `.key`, `['key']`, `[N]`, `[*]`, `.*` and `..key`
  (a key at any depth).
- `scrub`: patterns (RE2, so a pattern from someone else's cassette cannot hang the run) replaced
  in every string on both sides before comparing: a timestamp, a duration, a process id.
- `preset: content`: only what the user owns is compared (`content_view`): the conversation's
  messages, tool names and input schemas, the skill and agent catalog entries, agent prompts and
  CLAUDE.md text; not the agent's own instructions, tool descriptions, generation parameters or
  cache markers, so an upgrade of the agent does not turn a team's cassettes red.

A cassette may come from someone else: the section is checked in shape and size, and a bad path or
pattern is one line naming the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from agent.errors import UsageError
from agent.record.content import content_view
from agent.record.drift import first_difference

MAX_RULES = 200
MAX_RULE_CHARS = 2_000
MAX_PATH_STEPS = 256  # over all ignore paths: each request node is checked against every live step
PRESETS = ("content",)
CONTENT = "content"
_STEP = re.compile(r"""\.\.(?P<deep>[A-Za-z_$][\w$-]*|\*)|\.(?P<key>[A-Za-z_$][\w$-]*|\*)|\[(?P<index>-?\d+|\*)\]"""
                   r"""|\[(?P<quoted>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")\]""")
_ANY = object()  # a step that matches every key or index
_IGNORED = "<ignored>"


@dataclass(frozen=True)
class _Path:
    """A compiled JSON path: its text, and steps of (kind, value), kind one of key, index, deep."""

    text: str
    steps: tuple[tuple[str, Any], ...]


def compile_path(text: str) -> _Path:
    """`text` as a JSON path of the subset above; a UsageError saying what is wrong otherwise."""
    if not isinstance(text, str) or not text.startswith("$"):
        raise UsageError(f"the JSON path {text!r} must start with $ (e.g. $.system)")
    steps, at = [], 1
    while at < len(text):
        found = _STEP.match(text, at)
        if not found:
            raise UsageError(f"the JSON path {text!r} cannot be read at {text[at:at + 20]!r} "
                             "(use .key, ['key'], [N], [*], .* or ..key)")
        if found["deep"] is not None:
            steps.append(("deep", _ANY if found["deep"] == "*" else found["deep"]))
        elif found["key"] is not None:
            steps.append(("key", _ANY if found["key"] == "*" else found["key"]))
        elif found["index"] is not None:
            steps.append(("index", _ANY if found["index"] == "*" else int(found["index"])))
        else:
            quoted = found["quoted"][1:-1]
            steps.append(("key", re.sub(r"\\(.)", r"\1", quoted)))
        at = found.end()
    return _Path(text, tuple(steps))


def _advance(path: _Path, state: int, part: Any, length: int | None) -> list[int]:
    """The states of `path` reached from `state` by stepping into `part` (a key, or an index of a
    list of `length`): a deep step may stay where it is, or match and move on."""
    if state >= len(path.steps):
        return []
    kind, want = path.steps[state]
    if kind == "deep":
        reached = [state]  # `..key` looks at every depth below
        if want is _ANY or part == want:
            reached.append(state + 1)
        return reached
    if isinstance(part, int) and length is not None:
        if kind == "index" and (want is _ANY or part == want or (want < 0 and part == length + want)):
            return [state + 1]
        return [state + 1] if kind == "key" and want is _ANY else []
    if kind == "key" and (want is _ANY or part == want):
        return [state + 1]
    return []


class _Scrubber:
    """The scrub patterns, compiled by RE2 once."""

    def __init__(self, pairs: tuple[tuple[str, str], ...]):
        import re2  # only a replay that scrubs loads it

        options = re2.Options()
        options.log_errors = False
        self.patterns = []
        for pattern, replacement in pairs:
            try:
                self.patterns.append((re2.compile(pattern, options=options), replacement))
            except re2.error as error:
                reason = error.args[0].decode(errors="replace") if error.args and isinstance(error.args[0], bytes) else str(error)
                raise UsageError(f"the scrub pattern {pattern!r} is not a regular expression RE2 reads: {reason}") from None

    def __call__(self, text: str) -> str:
        for pattern, replacement in self.patterns:
            try:
                text = pattern.sub(replacement, text)
            except (IndexError, ValueError, re.error) as error:  # a replacement naming a group the pattern lacks
                raise UsageError(f"the scrub replacement {replacement!r} cannot be used: {error}") from None
        return text


@dataclass(frozen=True)
class MatchRules:
    """What a replay compares (see the module docstring); the empty rules compare everything."""

    ignore: tuple[str, ...] = ()
    scrub: tuple[tuple[str, str], ...] = ()
    preset: str | None = None

    def __post_init__(self) -> None:
        paths = tuple(compile_path(text) for text in self.ignore)
        if sum(len(path.steps) for path in paths) > MAX_PATH_STEPS:
            raise UsageError(f"the ignore paths have more than {MAX_PATH_STEPS} steps together")
        object.__setattr__(self, "_paths", paths)
        object.__setattr__(self, "_scrubber", _Scrubber(self.scrub) if self.scrub else None)

    @classmethod
    def from_section(cls, section: Any, path: str) -> "MatchRules":
        """The rules of a cassette's `match` section (None: none); a malformed one is a usage
        error naming the cassette."""
        if section is None:
            return cls()
        try:
            if not isinstance(section, dict):
                raise UsageError("it must be a mapping with ignore, scrub or preset")
            unknown = sorted(set(section) - {"ignore", "scrub", "preset"})
            if unknown:
                raise UsageError(f"unknown key {unknown[0]!r} (it takes ignore, scrub and preset)")
            ignore = _texts(section.get("ignore"), "ignore")
            scrub = []
            for item in _list(section.get("scrub"), "scrub"):
                if isinstance(item, str):
                    scrub.append((_bounded(item, "scrub"), ""))
                elif isinstance(item, dict) and isinstance(item.get("pattern"), str) and set(item) <= {"pattern", "replacement"}:
                    replacement = item.get("replacement", "")
                    if not isinstance(replacement, str):
                        raise UsageError("a scrub replacement must be text")
                    scrub.append((_bounded(item["pattern"], "scrub"), _bounded(replacement, "scrub")))
                else:
                    raise UsageError("each scrub item must be a pattern, or {pattern, replacement}")
            preset = section.get("preset")
            if preset is not None and preset not in PRESETS:
                raise UsageError(f"preset must be one of {', '.join(PRESETS)}, not {preset!r}")
            return cls(tuple(ignore), tuple(scrub), preset)
        except UsageError as error:
            raise UsageError(f"cassette {path}: its match section: {error}") from None

    @classmethod
    def from_flags(cls, ignore: list[str], scrub: list[str], preset: str | None) -> "MatchRules":
        """The rules given as --ignore, --scrub REGEX[=REPLACEMENT] and --match."""
        pairs = []
        for item in scrub:
            pattern, _, replacement = item.partition("=") if "=" in item else (item, "", "")
            if not pattern:
                raise UsageError(f"--scrub {item!r}: give a pattern, e.g. --scrub '\\d{{4}}-\\d\\d-\\d\\d=<date>'")
            pairs.append((pattern, replacement))
        if len(ignore) + len(pairs) > MAX_RULES:
            raise UsageError(f"more than {MAX_RULES} match rules")
        return cls(tuple(ignore), tuple(pairs), preset)

    def merged(self, other: "MatchRules") -> "MatchRules":
        """These rules and `other`'s together (a cassette's section and the flags)."""
        return MatchRules(self.ignore + tuple(p for p in other.ignore if p not in self.ignore),
                          self.scrub + tuple(s for s in other.scrub if s not in self.scrub),
                          self.preset or other.preset)

    @property
    def empty(self) -> bool:
        return not (self.ignore or self.scrub or self.preset)

    def view(self, body: Any, agent: str | None = None) -> Any:
        """`body` as these rules compare it: the content preset's view, ignored paths left out
        (an ignored list item stays as a placeholder, so the others keep their indexes), strings
        scrubbed."""
        if self.preset == CONTENT:
            body = content_view(body, agent)
        if self._paths:
            body = _without(body, [(path, 0) for path in self._paths])
        if self._scrubber is not None:
            body = _strings(body, self._scrubber)
        return body

    def difference(self, recorded: Any, sent: Any, agent: str | None = None) -> tuple[str, Any, Any] | None:
        """The first place where the two request bodies differ under these rules, as (JSON path,
        recorded value, sent value), or None when the rules see no difference."""
        if self.empty:
            return first_difference(recorded, sent)
        return first_difference(self.view(recorded, agent), self.view(sent, agent))

    def hint(self, recorded: Any, sent: Any, agent: str | None = None) -> str:
        """Which rule would have hidden the difference between two bodies, as a note to add to a
        drift message ("" when none would, or the rules already include it)."""
        if self.preset != CONTENT and MatchRules(self.ignore, self.scrub, CONTENT).difference(recorded, sent, agent) is None:
            return " (only the agent's own instructions, tool descriptions or parameters differ: --match content, or preset: content in the cassette's match section, would not compare them)"
        return ""


def _without(value: Any, states: list[tuple[_Path, int]]) -> Any:
    """`value` less what the paths at `states` reach: an ignored key is removed, an ignored list
    item becomes a placeholder. Walked once, for every path together."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            reached = _reached(states, key, None)
            if any(next_state == len(path.steps) for path, next_state in reached):
                continue
            out[key] = _without(item, reached) if reached else item
        return out
    if isinstance(value, list):
        out_list = []
        for index, item in enumerate(value):
            reached = _reached(states, index, len(value))
            if any(next_state == len(path.steps) for path, next_state in reached):
                out_list.append(_IGNORED)
                continue
            out_list.append(_without(item, reached) if reached else item)
        return out_list
    return value


def _reached(states: list[tuple[_Path, int]], part: Any, length: int | None) -> list[tuple[_Path, int]]:
    """The path states reached by stepping into `part`, each once (`..` steps would otherwise
    double them at every level)."""
    found: dict[tuple[int, int], tuple[_Path, int]] = {}
    for path, state in states:
        for next_state in _advance(path, state, part, length):
            found.setdefault((id(path), next_state), (path, next_state))
    return list(found.values())


def _strings(value: Any, change) -> Any:
    if isinstance(value, str):
        return change(value)
    if isinstance(value, dict):
        return {key: _strings(item, change) for key, item in value.items()}
    if isinstance(value, list):
        return [_strings(item, change) for item in value]
    return value


def _list(value: Any, key: str) -> list:
    if value is None:
        return []
    if not isinstance(value, list):
        raise UsageError(f"{key} must be a list")
    if len(value) > MAX_RULES:
        raise UsageError(f"{key} holds more than {MAX_RULES} rules")
    return value


def _texts(value: Any, key: str) -> list[str]:
    items = _list(value, key)
    if not all(isinstance(item, str) for item in items):
        raise UsageError(f"each {key} item must be text")
    return [_bounded(item, key) for item in items]


def _bounded(text: str, key: str) -> str:
    if len(text) > MAX_RULE_CHARS:
        raise UsageError(f"a {key} rule is longer than {MAX_RULE_CHARS} characters")
    return text

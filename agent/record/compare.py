"""Two recordings side by side (`cassette diff A B`): where the setups differ, then, request by
request, the first JSON paths where what the agent sent differs, with both values.

Requests are paired as a replay pairs them: by position within each agent, so the k-th request
of subagent X in A faces the k-th of subagent X in B however the agents' requests interleave; a
request only one file holds is reported as such. Bodies are compared under match rules
(`agent.record.match.MatchRules`: ignored paths, scrubbed text, the content preset), so a diff
shows what a replay under the same rules would call drift. Pure functions over read cassettes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from agent.record.bodies import request_body
from agent.record.cassette_file import CassetteFile
from agent.record.drift import around_first_change, brief, first_difference
from agent.record.show import agent_name

PATHS_PER_REQUEST = 3
# how a recording was made, not what it sends: shown when it differs, never a difference itself
PROVENANCE = ("agent_version", "recorded_against")
_INDEX = re.compile(r"\[(\d+)\]")


@dataclass
class Pair:
    """The k-th request of one agent in A and in B (`None` on the side that has no such request),
    with the differences found between them: (JSON path, value in A, value in B)."""

    agent: str | None
    a: int | None  # the request's number in A (1-based), or None
    b: int | None
    differences: list[tuple[str, Any, Any]] = field(default_factory=list)

    @property
    def differs(self) -> bool:
        return self.a is None or self.b is None or bool(self.differences)


@dataclass
class Comparison:
    """What `compare` found: setup differences (path, A, B), the provenance of each recording
    when it differs, and every pair of requests."""

    setup: list[tuple[str, Any, Any]]
    provenance: tuple[str, str] | None
    pairs: list[Pair]

    @property
    def differs(self) -> bool:
        return bool(self.setup) or any(pair.differs for pair in self.pairs)


def compare(a: CassetteFile, b: CassetteFile, rules) -> Comparison:
    """A and B compared under `rules` (anything with `difference(recorded, sent, agent)`, as
    `MatchRules` has: A is taken as the recorded side, B as the sent one)."""
    pairs = []
    queues_a, queues_b = _queues(a), _queues(b)
    for agent in list(queues_a) + [name for name in queues_b if name not in queues_a]:
        mine, theirs = queues_a.get(agent, []), queues_b.get(agent, [])
        for k in range(max(len(mine), len(theirs))):
            pair = Pair(agent, mine[k] if k < len(mine) else None, theirs[k] if k < len(theirs) else None)
            if pair.a is not None and pair.b is not None:
                pair.differences = differences(rules, request_body(a, pair.a - 1), request_body(b, pair.b - 1), agent)
            pairs.append(pair)
    pairs.sort(key=lambda pair: (pair.a is None, pair.a or pair.b))  # in A's order, then what only B sent
    return Comparison(_setup_differences(a.setup, b.setup), _provenance(a.setup, b.setup), pairs)


def differences(rules, a: Any, b: Any, agent: str | None, limit: int = PATHS_PER_REQUEST) -> list[tuple[str, Any, Any]]:
    """The first `limit` places where bodies `a` and `b` differ under `rules`. The rules name only
    the first; after each, B is given A's value there and asked again."""
    found: list[tuple[str, Any, Any]] = []
    while len(found) < limit:
        difference = rules.difference(a, b, agent)
        if difference is None or any(difference[0] == seen[0] for seen in found):
            break  # the same place again: the rules see it in a way the bodies do not show
        found.append(difference)
        b = _given(a, b, difference[0].removeprefix("$"))
        if b is _UNPLACED:
            break
    return found


_UNPLACED = object()


def _given(a: Any, b: Any, rest: str) -> Any:
    """`b` with the value `a` holds at the path `rest` (first_difference's form after `$`: `.key`,
    `[N]`, a final `.length` for lists of other lengths), built anew along the path only; _UNPLACED
    when the path does not lead through both."""
    if rest == "" or (rest == ".length" and isinstance(a, list) and isinstance(b, list)):
        return a
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted({*a, *b}, key=lambda key: (-len(key), key)):  # `a.b` is tried before `a`
            step = f".{key}"
            tail = rest[len(step):]
            if not rest.startswith(step) or tail[:1] not in ("", ".", "["):
                continue
            changed = dict(b)
            if key not in a or key not in b:
                if tail:
                    continue
                if key in a:
                    changed[key] = a[key]
                else:
                    del changed[key]
                return changed
            inner = _given(a[key], b[key], tail)
            if inner is not _UNPLACED:
                changed[key] = inner
                return changed
        return _UNPLACED
    found = _INDEX.match(rest)
    if found and isinstance(a, list) and isinstance(b, list) and int(found[1]) < min(len(a), len(b)):
        index = int(found[1])
        inner = _given(a[index], b[index], rest[found.end():])
        if inner is not _UNPLACED:
            return b[:index] + [inner] + b[index + 1:]
    return _UNPLACED


def _queues(cassette: CassetteFile) -> dict[str | None, list[int]]:
    """The request numbers of each agent, in order."""
    queues: dict[str | None, list[int]] = {}
    for number, interaction in enumerate(cassette.interactions, 1):
        queues.setdefault(interaction.agent, []).append(number)
    return queues


def _setup_differences(a: dict, b: dict) -> list[tuple[str, Any, Any]]:
    """Each setup field that differs (an option or variable each on its own), provenance aside."""
    found = []
    for key in [k for k in a if k not in PROVENANCE] + [k for k in b if k not in a and k not in PROVENANCE]:
        mine, theirs = a.get(key, "<absent>"), b.get(key, "<absent>")
        if isinstance(mine, dict) and isinstance(theirs, dict):
            for name in list(mine) + [n for n in theirs if n not in mine]:
                difference = first_difference({name: mine[name]} if name in mine else {},
                                              {name: theirs[name]} if name in theirs else {}, f"setup.{key}")
                if difference:
                    found.append(difference)
        elif (difference := first_difference(mine, theirs, f"setup.{key}")) is not None:
            found.append(difference)
    return found


def _provenance(a: dict, b: dict) -> tuple[str, str] | None:
    def made(setup: dict) -> str:
        return f"agent {setup.get('agent_version', '?')} against {setup.get('recorded_against', '?')}"

    return (made(a), made(b)) if made(a) != made(b) else None


# --- for a person -----------------------------------------------------------------------------------

def text(comparison: Comparison, a_path: str, b_path: str, ruled: bool = False) -> str:
    """The report `cassette diff` prints: one line when the recordings are alike (`ruled`: under
    match rules), otherwise the setup's differences, then each request that differs (up to
    PATHS_PER_REQUEST paths each)."""
    made = f" (A recorded by {comparison.provenance[0]}, B by {comparison.provenance[1]})" if comparison.provenance else ""
    if not comparison.differs:
        count = len(comparison.pairs)
        return (f"identical: {a_path} and {b_path} have the same setup and send the same {count} "
                f"request{'s' if count != 1 else ''}{' under the match rules' if ruled else ''}{made}")
    lines = [f"A  {a_path}", f"B  {b_path}"]
    if made:
        lines.append(f"recorded: A by {comparison.provenance[0]}, B by {comparison.provenance[1]}")
    lines += [_difference_line(where, was, now) for where, was, now in comparison.setup]
    for pair in comparison.pairs:
        if pair.differs:
            lines.append(_pair_head(pair))
            lines += ["  " + _difference_line(*difference) for difference in pair.differences]
    differing = sum(pair.differs for pair in comparison.pairs)
    summary = [f"{differing} of {len(comparison.pairs)} requests"] if differing else []
    lines.append("differ: " + ", ".join((["the setup"] if comparison.setup else []) + summary))
    return "\n".join(lines)


def _pair_head(pair: Pair) -> str:
    who = agent_name(pair.agent)
    if pair.b is None:
        return f"request {pair.a} of A · {who}: only in A"
    if pair.a is None:
        return f"request {pair.b} of B · {who}: only in B"
    where = f"request {pair.a}" if pair.a == pair.b else f"request {pair.a} of A, {pair.b} of B"
    return f"{where} · {who}"


def _difference_line(where: str, was: Any, now: Any) -> str:
    if isinstance(was, str) and isinstance(now, str):
        was, now = around_first_change(was, now)
    return f"{where}: A {_shown(was)}, B {_shown(now)}"


def _shown(value: Any) -> str:
    return value if value == "<absent>" else brief(value)

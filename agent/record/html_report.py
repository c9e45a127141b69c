"""Self-contained HTML reports of recorded sessions: `cassette show FILE --html OUT` (the session
as a conversation, `html_session`) and `cassette check DIR --html OUT` (a section per cassette with
its status line, each drift's two requests side by side, `html_drift`).

Pure functions from read cassettes and check results to one HTML text: the command line writes it,
and hands in what this layer may not import (the wire's reply decoding, the price of a request).
"""

from __future__ import annotations

from typing import Any, Callable

from agent.record.bodies import request_body
from agent.record.cassette_file import CassetteFile
from agent.record.check import OK, PASSED, Checked
from agent.record.compare import differences
from agent.record.html_drift import drift_html
from agent.record.html_parts import attr, esc, page
from agent.record.html_session import Cost, SessionPage
from agent.record.match import MatchRules
from agent.record.session_tree import session_tree
from agent.record.show import Wire, view

DRIFT_PATHS = 12  # differing paths listed and highlighted per drifted request


def session_report(cassette: CassetteFile, wire: Wire, cost: Cost | None = None) -> str:
    """The page of the session in `cassette`; `cost(model, usage)` prices a request (None: unknown)."""
    session = view(cassette, wire)
    bodies = (request_body(cassette, index) for index in range(len(cassette.interactions)))
    tree = session_tree(bodies, [interaction.agent for interaction in cassette.interactions], session["requests"])
    return page(f"cassette {cassette.path}", SessionPage(session, tree, cost).html())


def check_report(results: list[Checked], rules_for: Callable[[str], Any] | None = None) -> str:
    """The page of a `cassette check`: the counts, then one section per cassette in `results`;
    `rules_for(path)` gives the match rules a cassette was replayed under, to find a drift's
    further differing paths (the first one the replay named)."""
    counts: dict[str, int] = {}
    for result in results:
        counts[result.status] = counts.get(result.status, 0) + 1
    summary = ", ".join(f"{count:,} {status}" for status, count in counts.items())
    failed = [(number, result) for number, result in enumerate(results, 1) if result.status not in PASSED]
    parts = [f'<header><h1>cassette check</h1><div class="meta" id="counts">{len(results):,} cassettes: {esc(summary)}</div>']
    if failed:
        links = "".join(f'<li><a href="#cassette-{number}">{esc(result.status)} {esc(result.path)}</a></li>' for number, result in failed)
        parts.append(f'<div class="meta">not passed:</div><ul>{links}</ul>')
    parts.append("</header>")
    for number, result in enumerate(results, 1):
        parts.append(_section(number, result, rules_for))
    return page("cassette check", "\n".join(parts))


def _section(number: int, result: Checked, rules_for: Callable[[str], Any] | None) -> str:
    slug = result.status.replace(" ", "-")
    note = f" ({esc(result.note)})" if result.note else ""
    parts = [f'<section class="cassette status-{attr(slug)}" id="cassette-{number}" data-status="{attr(result.status)}">'
             f'<div class="line"><span class="status">{esc(result.status)}</span> {esc(result.path)}{note}</div>']
    if result.message and result.status != OK:
        parts.append(f'<pre class="message">{esc(result.message)}</pre>')
    drift = getattr(result, "drift", None)
    if isinstance(drift, dict):
        rules = rules_for(result.path) if rules_for else MatchRules()
        found = differences(rules, drift.get("recorded"), drift.get("sent"), drift.get("agent"), limit=DRIFT_PATHS)
        parts.append(drift_html(drift, found))
    return "".join(parts) + "</section>"

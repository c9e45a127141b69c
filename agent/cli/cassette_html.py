"""`cassette show FILE --html OUT` and `cassette check DIR --html OUT`: the HTML reports
(`agent.record.html_report`) written to a file, in one step (a reader never sees half a page).

The report is built by `agent.record`, which may not import the model: this module hands it the
price of a request (`agent.model.pricing`) and the match rules each checked cassette was replayed
under.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Sequence

from agent.conversation import Usage
from agent.record.cassette_file import CassetteFile
from agent.record.check import Checked
from agent.record.show import Wire
from agent.workspace import save_file


def request_cost(model: str, usage: dict) -> float | None:
    """The cost in USD of one request's `usage` (show's counts) on `model`; None when unpriced."""
    from agent.model.pricing import cost_usd

    return cost_usd(model, Usage(input_tokens=usage.get("input_tokens", 0), output_tokens=usage.get("output_tokens", 0),
                                 cache_read_tokens=usage.get("cache_read_input_tokens", 0),
                                 cache_write_tokens=usage.get("cache_creation_input_tokens", 0)))


def write_session_report(out: str, cassette: CassetteFile, wire: Wire) -> None:
    """Write the page of `cassette`'s session to `out`, and say so on stderr."""
    from agent.record.html_report import session_report

    save_file(Path(out), session_report(cassette, wire, request_cost).encode("utf-8"))
    print(f"wrote {out}: {len(cassette.interactions):,} requests of {cassette.path}", file=sys.stderr)


def write_check_report(out: str, results: list[Checked], match: Sequence[str]) -> None:
    """Write the page of a `cassette check` to `out`; a drift's further differing paths are found
    under the rules its replay used (the cassette's match section and the `match` flags)."""
    from agent.record.html_report import check_report

    save_file(Path(out), check_report(results, lambda path: _rules(path, match)).encode("utf-8"))
    print(f"wrote {out}: {len(results):,} cassettes", file=sys.stderr)


def _rules(path: str, match: Sequence[str]):
    from agent.cli.cassette_run import match_rules
    from agent.cli.options import build_parser
    from agent.errors import AgentError
    from agent.record.cassette_file import read
    from agent.record.match import MatchRules

    try:
        return match_rules(build_parser().parse_args(["--replay", path, *match]), read(path))
    except AgentError:  # the file changed since its replay: the bodies are compared as they are
        return MatchRules()

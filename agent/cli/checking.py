"""One cassette checked as `cassette check` checks it: replayed with --replay-tools in the current
folder, its ending and `expect` section compared, and the result as an agent.record.check.Checked.

`cassette check` runs it in its own process or in worker processes (`check_pool`), and the pytest
plugin runs it as one test item; all three give the same result for the same cassette.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Sequence

from agent.cli.build import run
from agent.cli.options import build_parser
from agent.cli.report import internal_error
from agent.errors import AgentError, ProviderError, ReplayMismatch
from agent.record.check import DRIFT, ERROR, FAIL, OK, RERECORD, UPDATED, Checked


@dataclass(frozen=True)
class CheckOptions:
    """What `cassette check` was asked besides the files: whether a recorded failure fails, whether
    to accept intended changes, and the --ignore/--scrub/--match flags each replay gets."""

    require_success: bool = False
    update: bool = False
    match: tuple[str, ...] = ()

    @classmethod
    def given(cls, require_success: bool, update: bool, ignore: Sequence[str] = (), scrub: Sequence[str] = (),
              preset: str | None = None) -> "CheckOptions":
        """The options from the flags as given: each --ignore path, --scrub pattern and the --match preset."""
        match = [flag for path in ignore for flag in ("--ignore", path)]
        match += [flag for pattern in scrub for flag in ("--scrub", pattern)]
        return cls(require_success, update, tuple(match + (["--match", preset] if preset else [])))


def check_cassette(path: str, options: CheckOptions) -> Checked:
    """Replay the cassette at `path` and say how it went (its time included)."""
    started = time.monotonic()
    status, message, note, drift = _replay(path, options)
    return Checked(path, status, message, time.monotonic() - started, note, drift)


def _replay(path: str, options: CheckOptions) -> tuple[str, str, str, dict | None]:
    """Replay one cassette with --replay-tools in the current folder: its status, the message of
    a failure, a note on an `ok` (how a failed recording ended, what was not checked) and the
    drifted request. Updating, a cassette whose requests changed is rewritten (status `updated`),
    and one whose conversation no longer fits the recording needs a re-recording."""
    from agent.cli.outcomes import FILES_SKIPPED, Ending
    from agent.record.replaying import Update

    args = build_parser().parse_args(["--replay", path, "--replay-tools", *options.match])
    args.update_cassette = Update() if options.update else None
    ending = Ending()
    try:
        run(args, os.environ, ending=ending)
    except ReplayMismatch as exc:
        return (RERECORD if options.update else DRIFT), str(exc), "", exc.drift
    except ProviderError:
        pass  # every recorded exchange was replayed: the recording ended in this failure too
    except AgentError as exc:
        return ERROR, str(exc), "", None
    except Exception as exc:  # a bug of ours: reported for this cassette, the others still run
        return ERROR, internal_error(exc), "", None
    unmet, failure = ending.unmet(), ending.failure()
    if options.require_success and failure:
        unmet.insert(0, f"the {failure} (--require-success)")
    notes = [failure] if failure and not options.require_success else []
    notes += [FILES_SKIPPED] if ending.expectations is not None and ending.expectations.checks_files else []
    if unmet:
        return FAIL, "\n".join(unmet), "", None
    if args.update_cassette is not None and args.update_cassette.written:
        return UPDATED, args.update_cassette.summary(), "; ".join(notes), None
    return OK, "", "; ".join(notes), None

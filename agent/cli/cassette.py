"""`your_program.sh cassette show FILE [--request N [--raw]] [--json]`, `cassette diff A B` and
`cassette check DIR... [--junit FILE]`.

`show` prints a recorded session (or one request) for a person or as JSON, and `diff` where two
recordings differ (both in `cassette_reading`). `check` replays every cassette found,
in --replay-tools mode, against the current workspace (its skills, agents, settings), prints one
line per cassette and exits 1 when any drifted: how a user's CI learns that an edit changed what
the model is sent; a recording of a failed run is `ok` with a note (a failure with
--require-success), and an unmet `expect` is a failure. `record` records cassettes again from
their setups (`rerecord`). `cassette` is a reserved first word, like Claude Code's own subcommands.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from pathlib import Path
from typing import Mapping, Sequence

from agent.cli.build import check_writable, run
from agent.cli.cassette_reading import diff, show as show_cassette
from agent.cli.options import _Parser, add_match_flags, build_parser
from agent.cli.rerecord import add_permission_flags
from agent.cli.report import configure_logging, internal_error, reader_gone
from agent.cli.visible import shown
from agent.errors import AgentError, ProviderError, ReplayMismatch
from agent.record.check import DRIFT, ERROR, FAIL, OK, PASSED, RERECORD, UPDATED, Checked, find_cassettes, junit_xml
from agent.workspace import save_file



def _parser() -> _Parser:
    parser = _Parser(prog="your_program.sh cassette", description="Read and check recorded sessions.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="show|diff|check|record", parser_class=_Parser)
    show = commands.add_parser("show", help="print a recorded session: setup, each request, tool calls, the answer")
    show.add_argument("file", metavar="FILE")
    show.add_argument("--json", action="store_true", help="one JSON object instead of text")
    show.add_argument("--request", type=int, metavar="N",
                      help="only request N (1-based, in cassette order) and its reply: everything it sent")
    show.add_argument("--raw", action="store_true",
                      help="with --request: the request body exactly as sent, as JSON (folders as {{workspace}} and {{home}})")
    compared = commands.add_parser(
        "diff", help="where two recordings differ: the setup, then each request's first differing paths",
        description="Compare two cassettes: the setup, then each agent's k-th request in A with its k-th in B "
                    "(up to 3 differing JSON paths each), under both cassettes' match sections and the flags below. "
                    "Exit 0 when they are alike, 1 when they differ, 2 for bad input.")
    compared.add_argument("a", metavar="A", help="a cassette")
    compared.add_argument("b", metavar="B", help="the cassette to compare it with")
    add_match_flags(compared)
    check = commands.add_parser("check", help="replay every cassette in the folders against this workspace")
    check.add_argument("paths", nargs="+", metavar="DIR", help="folders to search for cassettes (or cassette files)")
    check.add_argument("--junit", metavar="FILE", help="also write a JUnit XML report to FILE")
    check.add_argument("--verbose", action="store_true", help="narrate each replay on stderr")
    check.add_argument("--require-success", action="store_true",
                       help="a cassette whose recorded run failed (the turn limit, an error) fails the check")
    check.add_argument("--update", action="store_true",
                       help="accept intended changes: where a request differs but the recorded reply still answers "
                            "it, rewrite the cassette with the request sent now (review with git diff)")
    add_match_flags(check)
    again = commands.add_parser("record", help="record each cassette again from its setup, against the provider "
                                               "the environment points at (a key is needed)")
    again.add_argument("files", nargs="+", metavar="FILE", help="cassettes to record again, each in place")
    again.add_argument("--model", help="the model to record with (default: the recorded one)")
    again.add_argument("--provider", choices=["openrouter", "anthropic"], help="the provider (default: the recorded one)")
    again.add_argument("--verbose", action="store_true", help="narrate requests and tool calls on stderr")
    add_permission_flags(again)
    return parser


def main(argv: Sequence[str], env: Mapping[str, str] | None = None) -> int:
    """Run `cassette <argv>` (`env`: the run's environment, keys included, for `record`); returns
    the exit code."""
    try:
        args = _parser().parse_args(list(argv))
        if args.command == "show":
            return show_cassette(args)
        if args.command == "diff":
            return diff(args)
        if args.command == "record":
            from agent.cli.rerecord import rerecord

            return rerecord(args, os.environ if env is None else env)
        return _check(args.paths, args.junit, args.verbose, args.require_success, args.update, _match_flags(args))
    except AgentError as exc:
        print(shown(f"error: {exc}", sys.stderr), file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader of stdout went away (`| head`): not an error of the run
        return reader_gone()
    except Exception as exc:  # a bug of ours: one line, not a traceback
        print(shown(f"error: {internal_error(exc)}", sys.stderr), file=sys.stderr)
        return 1


def _match_flags(args) -> list[str]:
    """The --ignore, --scrub and --match flags given, as each replay gets them."""
    flags = [item for path in args.match_ignore for item in ("--ignore", path)]
    flags += [item for pattern in args.match_scrub for item in ("--scrub", pattern)]
    return flags + (["--match", args.match_preset] if args.match_preset else [])


def _check(paths: list[str], junit: str | None, verbose: bool, require_success: bool = False,
           update: bool = False, match: Sequence[str] = ()) -> int:
    check_writable("--junit", junit)
    found = find_cassettes(paths)
    configure_logging(logging.INFO if verbose else logging.ERROR)  # one line per cassette, nothing else
    results = []
    for path in found:
        started = time.monotonic()
        status, message, note = _replay(path, require_success, update, match)
        result = Checked(path, status, message, time.monotonic() - started, note)
        print(shown(result.line(), sys.stdout), flush=True)
        results.append(result)
    if junit:
        save_file(Path(junit), junit_xml(results).encode("utf-8"))
    failed = [r for r in results if r.status not in PASSED]
    counts = {status: sum(r.status == status for r in results) for status in (OK, UPDATED, DRIFT, RERECORD, FAIL, ERROR)}
    print(f"{len(results)} cassettes: {counts[OK]} ok, " + (f"{counts[UPDATED]} updated, " if update else "")
          + f"{counts[DRIFT]} drifted, " + (f"{counts[RERECORD]} need re-recording, " if update else "")
          + f"{counts[ERROR]} errors, {counts[FAIL]} failed", file=sys.stderr)
    return 1 if failed else 0


def _replay(path: str, require_success: bool = False, update: bool = False,
            match: Sequence[str] = ()) -> tuple[str, str, str]:
    """Replay one cassette with --replay-tools in the current folder: its status, the message of
    a failure and a note on an `ok` (how a failed recording ended, what was not checked).
    Updating, a cassette whose requests changed is rewritten (status `updated`), and one whose
    conversation no longer fits the recording needs a re-recording."""
    from agent.cli.outcomes import FILES_SKIPPED, Ending
    from agent.record.replaying import Update

    args = build_parser().parse_args(["--replay", path, "--replay-tools", *match])
    args.update_cassette = Update() if update else None
    ending = Ending()
    try:
        run(args, os.environ, ending=ending)
    except ReplayMismatch as exc:
        return (RERECORD, str(exc), "") if update else (DRIFT, str(exc), "")
    except ProviderError:
        pass  # every recorded exchange was replayed: the recording ended in this failure too
    except AgentError as exc:
        return ERROR, str(exc), ""
    except Exception as exc:  # a bug of ours: reported for this cassette, the others still run
        return ERROR, internal_error(exc), ""
    unmet, failure = ending.unmet(), ending.failure()
    if require_success and failure:
        unmet.insert(0, f"the {failure} (--require-success)")
    notes = [failure] if failure and not require_success else []
    notes += [FILES_SKIPPED] if ending.expectations is not None and ending.expectations.checks_files else []
    if unmet:
        return FAIL, "\n".join(unmet), ""
    if args.update_cassette is not None and args.update_cassette.written:
        return UPDATED, args.update_cassette.line(path).split(": ", 1)[1], "; ".join(notes)
    return OK, "", "; ".join(notes)

"""`your_program.sh cassette show FILE [--request N [--raw]] [--json]`, `cassette diff A B` and
`cassette check DIR... [--junit FILE] [--jobs N] [--shard I/N]`.

`show` prints a recorded session (or one request) for a person or as JSON, and `diff` where two
recordings differ (both in `cassette_reading`). `check` replays every cassette found,
in --replay-tools mode, against the current workspace (its skills, agents, settings), prints one
line per cassette and exits 1 when any drifted: how a user's CI learns that an edit changed what
the model is sent; a recording of a failed run is `ok` with a note (a failure with
--require-success), and an unmet `expect` is a failure; the cassettes are spread over processes
(`check_pool`) and, with --shard, over CI jobs. `record` records cassettes again from
their setups (`rerecord`). `cassette` is a reserved first word, like Claude Code's own subcommands.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import Mapping, Sequence

from agent.cli.build import check_writable
from agent.cli.cassette_reading import diff, show as show_cassette
from agent.cli.check_pool import check_in_workers
from agent.cli.checking import CheckOptions, check_cassette
from agent.cli.options import _Parser, add_match_flags
from agent.cli.rerecord import add_permission_flags
from agent.cli.report import configure_logging, internal_error, reader_gone
from agent.cli.visible import shown
from agent.errors import AgentError, UsageError
from agent.record.check import (DRIFT, ERROR, FAIL, OK, PASSED, RERECORD, UPDATED, find_cassettes, find_shard, junit_xml,
                                parse_shard)
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
    show.add_argument("--html", metavar="OUT",
                      help="write the session as one self-contained HTML page to OUT (nothing on stdout)")
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
    check.add_argument("--html", metavar="OUT",
                       help="also write an HTML report to OUT: each cassette's status, each drift side by side")
    check.add_argument("--verbose", action="store_true", help="narrate each replay on stderr")
    check.add_argument("--require-success", action="store_true",
                       help="a cassette whose recorded run failed (the turn limit, an error) fails the check")
    check.add_argument("--update", action="store_true",
                       help="accept intended changes: where a request differs but the recorded reply still answers "
                            "it, rewrite the cassette with the request sent now (review with git diff)")
    check.add_argument("--jobs", metavar="N",
                       help="check in N processes at once, with the same output as one (default: the number of cores)")
    check.add_argument("--shard", metavar="I/N",
                       help="check only the I-th of N equal parts of the cassettes found, split by path, so that "
                            "N CI jobs cover the folders exactly once")
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
        options = CheckOptions.given(args.require_success, args.update, args.match_ignore, args.match_scrub,
                                     args.match_preset)
        shard = parse_shard(args.shard) if args.shard is not None else None
        return _check(args.paths, args.junit, args.verbose, options, _jobs(args.jobs), shard, args.html)
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


def _jobs(given: str | None) -> int:
    """The number of processes --jobs asks for (by default one per core)."""
    if given is None:
        return os.cpu_count() or 1
    if not (given.isascii() and given.isdigit() and int(given) >= 1):
        raise UsageError(f"cassette check: --jobs takes a number of processes, 1 or more, not {given!r}")
    return int(given)


def _check(paths: list[str], junit: str | None, verbose: bool, options: CheckOptions, jobs: int = 1,
           shard: tuple[int, int] | None = None, html: str | None = None) -> int:
    check_writable("--junit", junit)
    check_writable("--html", html)
    found, total = find_shard(paths, *shard) if shard else (find_cassettes(paths), 0)
    configure_logging(logging.INFO if verbose else logging.ERROR)  # one line per cassette, nothing else
    if not found:  # more shards than this one's share: nothing to do is no failure
        print(f"cassette check: shard {shard[0]}/{shard[1]} has no cassettes ({total} found in all)", file=sys.stderr)
        if junit:
            save_file(Path(junit), junit_xml([]).encode("utf-8"))
        if html:
            from agent.cli.cassette_html import write_check_report

            write_check_report(html, [], options.match)
        return 0
    jobs = min(jobs, len(found))
    if jobs > 1:
        checked = check_in_workers(found, options, jobs, logging.INFO if verbose else logging.ERROR)
    else:  # one process: no start-up cost
        checked = (check_cassette(path, options) for path in found)
    results = []
    for result in checked:
        print(shown(result.line(), sys.stdout), flush=True)
        results.append(result)
    if junit:
        save_file(Path(junit), junit_xml(results).encode("utf-8"))
    if html:
        from agent.cli.cassette_html import write_check_report

        write_check_report(html, results, options.match)
    failed = [r for r in results if r.status not in PASSED]
    counts = {status: sum(r.status == status for r in results) for status in (OK, UPDATED, DRIFT, RERECORD, FAIL, ERROR)}
    print(f"{len(results)} cassettes: {counts[OK]} ok, " + (f"{counts[UPDATED]} updated, " if options.update else "")
          + f"{counts[DRIFT]} drifted, " + (f"{counts[RERECORD]} need re-recording, " if options.update else "")
          + f"{counts[ERROR]} errors, {counts[FAIL]} failed"
          + (f" (shard {shard[0]}/{shard[1]} of {total} found)" if shard else ""), file=sys.stderr)
    return 1 if failed else 0

"""`your_program.sh cassette show FILE [--json]` and `cassette check DIR... [--junit FILE]`.

`show` prints a recorded session for a person (or as JSON). `check` replays every cassette found,
in --replay-tools mode, against the current workspace (its skills, agents, settings), prints one
line per cassette and exits 1 when any drifted: how a user's CI learns that an edit changed what
the model is sent. `cassette` is a reserved first word, like Claude Code's own subcommands.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from pathlib import Path
from typing import Sequence

from agent.cli.build import check_writable, run
from agent.cli.options import _Parser, build_parser
from agent.cli.report import configure_logging, internal_error
from agent.cli.visible import json_shown, shown
from agent.errors import AgentError, ProviderError, ReplayMismatch
from agent.record.check import DRIFT, ERROR, OK, Checked, find_cassettes, junit_xml
from agent.workspace import save_file



def _parser() -> _Parser:
    parser = _Parser(prog="your_program.sh cassette", description="Read and check recorded sessions.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="show|check", parser_class=_Parser)
    show = commands.add_parser("show", help="print a recorded session: setup, each request, tool calls, the answer")
    show.add_argument("file", metavar="FILE")
    show.add_argument("--json", action="store_true", help="one JSON object instead of text")
    check = commands.add_parser("check", help="replay every cassette in the folders against this workspace")
    check.add_argument("paths", nargs="+", metavar="DIR", help="folders to search for cassettes (or cassette files)")
    check.add_argument("--junit", metavar="FILE", help="also write a JUnit XML report to FILE")
    check.add_argument("--verbose", action="store_true", help="narrate each replay on stderr")
    return parser


def main(argv: Sequence[str]) -> int:
    """Run `cassette <argv>`; returns the exit code."""
    try:
        args = _parser().parse_args(list(argv))
        if args.command == "show":
            return _show(args.file, args.json)
        return _check(args.paths, args.junit, args.verbose)
    except AgentError as exc:
        print(shown(f"error: {exc}", sys.stderr), file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug of ours: one line, not a traceback
        print(shown(f"error: {internal_error(exc)}", sys.stderr), file=sys.stderr)
        return 1


def _show(path: str, as_json: bool) -> int:
    from agent.model.wire import chat, messages
    from agent.record import show
    from agent.record.cassette_file import read

    cassette = read(path)
    wire = {"chat": chat, "messages": messages}.get(cassette.setup.get("wire"))
    if wire is None:
        raise AgentError(f"cassette {path}: unknown wire format {cassette.setup.get('wire')!r}")
    session = show.view(cassette, wire.decode, wire.error_text)
    if as_json:
        print(json_shown(json.dumps(session, ensure_ascii=False, indent=2), sys.stdout))
    else:
        print(shown(show.text(session), sys.stdout))
    return 0


def _check(paths: list[str], junit: str | None, verbose: bool) -> int:
    check_writable("--junit", junit)
    found = find_cassettes(paths)
    configure_logging(logging.INFO if verbose else logging.ERROR)  # one line per cassette, nothing else
    results = []
    for path in found:
        started = time.monotonic()
        status, message = _replay(path)
        result = Checked(path, status, message, time.monotonic() - started)
        print(shown(result.line(), sys.stdout), flush=True)
        results.append(result)
    if junit:
        save_file(Path(junit), junit_xml(results).encode("utf-8"))
    failed = [r for r in results if r.status != OK]
    print(f"{len(results)} cassettes: {len(results) - len(failed)} ok, "
          f"{sum(r.status == DRIFT for r in failed)} drifted, {sum(r.status == ERROR for r in failed)} errors", file=sys.stderr)
    return 1 if failed else 0


def _replay(path: str) -> tuple[str, str]:
    """Replay one cassette with --replay-tools in the current folder."""
    args = build_parser().parse_args(["--replay", path, "--replay-tools"])
    try:
        run(args, os.environ)
    except ReplayMismatch as exc:
        return DRIFT, str(exc)
    except ProviderError:
        return OK, ""  # every recorded exchange was replayed: the recording ended in this failure too
    except AgentError as exc:
        return ERROR, str(exc)
    except Exception as exc:  # a bug of ours: reported for this cassette, the others still run
        return ERROR, internal_error(exc)
    return OK, ""

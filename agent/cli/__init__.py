"""Command line: parse flags, build the session, run, print the answer (or JSON), map to an exit code.

`options` holds the flags, `environment` the variables, `stdin` reads what is piped in, `build`
turns them into a session and runs it, `replay` says what a cassette's setup holds and how a
replay follows it, `output` shapes the JSON result and stream-json lines, `report` the stderr
lines, `cassette` is the `cassette show|check` subcommand, and `interactive` (with `terminal`,
the only users of prompt_toolkit and rich) the conversation at a terminal. This package is the
only code that writes to stdout.

May import: everything below it (it is the top layer).
"""

from __future__ import annotations

import logging
import os
import sys
import time
from typing import IO, Sequence

from agent.cli.build import run
from agent.cli.options import parse
from agent.cli.output import StreamJson, incomplete_because, print_json
from agent.cli.report import configure_logging, internal_error
from agent.cli.stdin import is_terminal
from agent.errors import AgentError

log = logging.getLogger("agent")

EXIT_INTERRUPTED = 130


def main(argv: Sequence[str] | None = None, stdin: IO | None = None) -> int:
    """Run the agent with command-line arguments `argv` (and what is piped into `stdin`, by
    default the process's); returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["cassette"]:  # a reserved first word, like Claude Code's own subcommands
        from agent.cli.cassette import main as cassette_main

        return cassette_main(argv[1:])
    started = time.monotonic()
    output_format = "text"
    try:
        args = parse(argv)
        output_format = args.output_format
        configure_logging(logging.INFO if args.verbose else logging.WARNING)
        stdin = sys.stdin if stdin is None else stdin
        if not args.print and not args.replay and output_format == "text" and is_terminal(stdin):
            from agent.cli.interactive import run_interactive  # prompt_toolkit and rich: only here

            return run_interactive(args, os.environ, args.prompt)
        stream = StreamJson(args.include_partial_messages) if output_format == "stream-json" else None
        result, session = run(args, os.environ, stdin, stream)
    except AgentError as exc:
        print(f"error: {exc}", file=sys.stderr)
        if output_format in ("json", "stream-json"):
            print_json("error_during_execution", str(exc), 0, started, exc.session)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:  # a bug of ours: still one line (the traceback only under --verbose)
        print(f"error: {internal_error(exc)}", file=sys.stderr)
        return 1
    problem = incomplete_because(result, session)
    ending = {"stop_reason": result.stop_reason, "is_error": problem is not None}
    if output_format == "json":
        print_json(result.subtype, result.text.strip(), result.turns, started, session, **ending)
    elif output_format == "stream-json":
        stream.result(result.subtype, result.text.strip(), result.turns, started, session, **ending)
    elif result.text.strip():
        print(result.text.strip())
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 1
    return 0

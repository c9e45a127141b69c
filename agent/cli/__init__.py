"""Command line: parse flags, build the session, run, print the answer (or JSON), map to an exit code.

`options` holds the flags, `environment` the variables, `stdin` reads what is piped in, `build`
turns them into a session and runs it, `replay` says what a cassette's setup holds and how a
replay follows it, `output` shapes the JSON result and stream-json lines, `report` the stderr
lines, `cassette` is the `cassette show|diff|check|record` subcommand, `mcp_command` the `mcp list`
one, and `interactive` (with `terminal`, the only users of prompt_toolkit and rich) the
conversation at a terminal. This package is the only code that writes to stdout.

May import: everything below it (it is the top layer).
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import time
from typing import IO, Sequence

from agent.cli.build import run
from agent.cli.debug_log import start_debug_log
from agent.cli.environment import run_environment
from agent.cli.options import parse
from agent.cli.settings_env import environment_restored, with_settings_env
from agent.cli.outcomes import Ending
from agent.cli.output import BUDGET_SPENT, StreamJson, incomplete_because, print_json
from agent.cli.home import settle_home
from agent.cli.report import configure_logging, internal_error, reader_gone, unwritten
from agent.cli.signals import SIGNALLED, Terminated, ending_on_signals
from agent.cli.stdin import is_terminal
from agent.cli.visible import shown
from agent.errors import AgentError, ReplayMismatch
from agent.tools.shell import kill_running

log = logging.getLogger("agent")

EXIT_INTERRUPTED = SIGNALLED + signal.SIGINT  # 130


def main(argv: Sequence[str] | None = None, stdin: IO | None = None) -> int:
    """Run the agent with command-line arguments `argv` (and what is piped into `stdin`, by
    default the process's); returns the exit code. Ctrl-C, SIGTERM and SIGHUP end it after
    killing the commands still running (their whole process groups)."""
    with ending_on_signals(), environment_restored():
        try:
            return _main(list(sys.argv[1:] if argv is None else argv), stdin)
        except Terminated as stop:
            kill_running()
            print(f"terminated by {stop.name}", file=sys.stderr)
            return stop.exit_code


def _main(argv: list[str], stdin: IO | None) -> int:
    env = run_environment()  # before anything runs: the keys leave the process's environment
    if argv[:1] == ["cassette"]:  # a reserved first word, like Claude Code's own subcommands
        from agent.cli.cassette import main as cassette_main

        return cassette_main(argv[1:], env)
    if argv[:1] == ["mcp"]:  # `mcp list`, as Claude Code's `claude mcp list`
        from agent.cli.mcp_command import main as mcp_main

        return mcp_main(argv[1:], env)
    started = time.monotonic()
    output_format = "text"
    ended = Ending()  # how the run ended: a replay checks it against the cassette's `expect`
    stream = None
    try:
        args = parse(argv)
        output_format = args.output_format
        configure_logging(logging.INFO if args.verbose else logging.WARNING)
        args.debug_log = start_debug_log(args)  # named once the session has its id (build_session)
        args.home_writable = settle_home()  # before anything reads the home folder
        if "HOME" in os.environ:
            env["HOME"] = os.environ["HOME"]
        env = with_settings_env(args, env)  # the settings' env blocks, as if exported
        stdin = sys.stdin if stdin is None else stdin
        if argv[:1] == ["doctor"]:  # a reserved first word, as Claude Code's `claude doctor`
            return _doctor(args, env)
        if args.input_format == "stream-json":  # the Agent SDK drives the session (agent.cli.sdk)
            return _sdk_session(args, env, stdin)
        if not args.print and not args.replay and output_format == "text" and is_terminal(stdin):
            from agent.cli.interactive import run_interactive  # prompt_toolkit and rich: only here

            return run_interactive(args, env, args.prompt)
        if args.prompt is not None and args.prompt.strip() == "/doctor":  # a report of ours, not a turn
            return _doctor(args, env)
        stream = StreamJson(args.include_partial_messages, args.include_hook_events) if output_format == "stream-json" else None
        result, session = run(args, env, stdin, stream, ended)
    except AgentError as exc:
        print(shown(f"error: {exc}", sys.stderr), file=sys.stderr)
        if stream is not None:  # after the stream's init line, if the run got as far as holding one back
            stream.result("error_during_execution", str(exc), 0, started, exc.session)
        elif output_format in ("json", "stream-json"):
            print_json("error_during_execution", str(exc), 0, started, exc.session)
        _report_unmet([] if isinstance(exc, ReplayMismatch) else ended.unmet())
        return exc.exit_code
    except KeyboardInterrupt:
        kill_running()  # a subagent's command too, and one Ctrl-C caught as it started
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader of stdout went away (`| head`): not an error of the run
        return reader_gone()
    except Exception as exc:  # a bug of ours: still one line (the traceback only under --verbose)
        print(shown(f"error: {internal_error(exc)}", sys.stderr), file=sys.stderr)
        return 1
    problem = incomplete_because(result, session)
    lost = unwritten(session)  # a full disk: the answer is still printed, then one line says what was not written
    ending = {"stop_reason": result.stop_reason, "is_error": problem is not None or lost is not None,
              "terminal_reason": result.terminal_reason, "structured_output": result.structured_output,
              "local_command": result.local_command}
    on_stdout = output_format == "text" and result.subtype == BUDGET_SPENT  # where Claude Code says it
    if output_format == "json":
        print_json(result.subtype, result.text.strip(), result.turns, started, session, **ending)
    elif output_format == "stream-json":
        stream.result(result.subtype, result.text.strip(), result.turns, started, session, **ending)
    elif on_stdout:
        print(shown(f"Error: {problem}", sys.stdout))
    elif result.text.strip() or result.local_command:  # `/compact` prints an empty line, as Claude Code's does
        print(shown(result.text.strip(), sys.stdout))
    if problem and not on_stdout:
        print(shown(f"error: {problem}", sys.stderr), file=sys.stderr)
    if lost:
        print(shown(f"error: could not write {lost}", sys.stderr), file=sys.stderr)
    unmet = ended.unmet()
    _report_unmet(unmet)
    return 1 if problem or lost or unmet else 0


def _doctor(args, env) -> int:
    """`doctor` and `-p "/doctor"`: where the agents and instruction files come from (agent.cli.doctor)."""
    from agent.cli.doctor import run_doctor

    return run_doctor(args, env)


def _sdk_session(args, env, stdin) -> int:
    """A session driven by the Agent SDK: its lines (the results included) are its own, so a
    failure is one line on stderr and the exit code, never a second result."""
    from agent.cli.sdk.driver import run_sdk

    try:
        return run_sdk(args, env, stdin)
    except AgentError as exc:
        print(shown(f"error: {exc}", sys.stderr), file=sys.stderr)
        return exc.exit_code


def _report_unmet(unmet: list[str]) -> None:
    """One line per expectation of the replayed cassette that the run did not meet."""
    for line in unmet:
        print(shown(f"error: {line}", sys.stderr), file=sys.stderr)

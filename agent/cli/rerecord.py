"""`your_program.sh cassette record FILE... [--model M] [--provider P] [permission options]`: record
each cassette again from its setup, against the provider the environment points at.

A re-recording sends the setup's prompts (all of them, in order, as a replay sends them) with its
options and variables, reading the setup as a regression replay does (`replay.follow_setup`: tools
run for real here, so the permission options are the user's own, given to `cassette record`, never
the cassette's). The provider and model are the recorded ones unless --provider or --model says
otherwise; the key, base URL and the rest of the provider's variables come from the environment,
as for any live run.

The new cassette is recorded to a temporary file beside the old one and then saved in its place in
one step, keeping the user's `match` and `expect` sections; a recording that fails (an error the old
recording did not end in, Ctrl-C) leaves the old file as it was. One line per file says what changed.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, Mapping

from agent.cli.report import configure_logging
from agent.cli.visible import shown
from agent.errors import AgentError, UsageError

log = logging.getLogger("agent")


def add_permission_flags(parser: argparse.ArgumentParser) -> None:
    """The run's permission options (`replay.WIDENING_OPTIONS`), on `cassette record`: a
    re-recording runs tools for real, so these are the user's to give, never the cassette's."""
    from agent.cli.options import build_parser
    from agent.cli.replay import WIDENING_OPTIONS

    for action in build_parser()._actions:
        if action.dest in WIDENING_OPTIONS:
            parser._add_action(action)


def rerecord(given: argparse.Namespace, env: Mapping[str, str]) -> int:
    """Re-record every cassette of `given.files` in turn, printing one line for each; exit 1 when
    any could not be recorded. Bad input (a missing key, a file that is no cassette) stops at once."""
    configure_logging(logging.INFO if given.verbose else logging.WARNING)
    failed = 0
    for path in given.files:
        try:
            line = f"recorded {path}: {record_again(path, given, env)}"
        except UsageError:
            raise
        except AgentError as exc:
            failed += 1
            line = f"failed   {path}: {exc} (the cassette is left as it was)"
        print(shown(line, sys.stdout), flush=True)
    return 1 if failed else 0


def record_again(path: str, given: argparse.Namespace, env: Mapping[str, str]) -> str:
    """Record the cassette at `path` again from its setup (`given`: the flags of `cassette record`)
    and save it in place (unless nothing changed); returns what changed, e.g. `5 requests (was 5), first difference at request 2 $.messages[3].content`."""
    from agent.cli.build import run
    from agent.cli.cassette_run import cassette_folders
    from agent.cli.outcomes import Ending
    from agent.record.cassette_file import USER_SECTIONS, Placeholders, parse, read, read_text, with_user_text
    from agent.record.expect import FAILED
    from agent.workspace import save_file

    old_text = read_text(path)
    sections = {key: value for key, value in parse(old_text, path).items() if key in USER_SECTIONS}
    old = read(path, Placeholders(cassette_folders(Path.cwd())))
    prompts = old.setup.get("prompts") or []
    if old.inferred or not prompts:
        raise UsageError(f"cassette {path} holds no setup with prompts to record from (it was not recorded by this agent)")
    args, run_env = _setup_args(path, old.setup, given, env)
    target = Path(path)
    fd, temporary = tempfile.mkstemp(dir=target.resolve().parent, prefix=f".{target.name}.", suffix=".recording")
    os.close(fd)
    os.unlink(temporary)  # the recording writes it when the run ends
    args.record = temporary
    try:
        try:
            run(args, run_env, ending=Ending(), earlier=prompts[:-1], sections=sections)
        except UsageError:
            raise
        except AgentError:
            ended_so = (old.setup.get("outcomes") or [{}])[-1].get("subtype") == FAILED
            if not (ended_so and Path(temporary).is_file()):
                raise  # the old recording did not end in an error: this one failed
        new_text = with_user_text(read_text(temporary), old_text)  # the user's sections word for word
        if new_text == old_text:
            return "unchanged"
        change = what_changed(read(path), read(temporary))
        save_file(target, new_text.encode("utf-8"))
        return change
    finally:
        if os.path.lexists(temporary):
            os.unlink(temporary)


def _setup_args(path: str, setup: dict[str, Any], given: argparse.Namespace, env: Mapping[str, str]):
    """The parsed flags and the environment of a run that repeats `setup` live."""
    from agent.cli.options import build_parser
    from agent.cli.replay import PROVIDER_PREFIXES, SHAPING_ENVIRONMENT, WIDENING_OPTIONS, follow_setup, withheld_options

    parser = build_parser()
    args = parser.parse_args([])
    for dest in WIDENING_OPTIONS:  # the user's own permission options, as a regression replay takes them
        setattr(args, dest, getattr(given, dest))
    args.replay = path  # read as a regression replay reads it: tools run for real
    run_env = follow_setup(args, parser, setup, path, env)
    if withheld := withheld_options(args, parser, setup):
        log.warning(f"the cassette {path} was recorded with {' '.join(withheld)}; a re-recording runs tools for "
                    "real, so only your own permission options apply: give them to `cassette record` to record "
                    "it as before")
    args.replay = None
    recorded = args.provider
    args.provider = given.provider or recorded
    # the recorded model is named as its provider names it: another provider gets its own default
    args.model = given.model or (setup.get("model") if args.provider == recorded else None)
    # the live provider: keys, base URLs and the rest the environment says, as for any live run
    live = {name: value for name, value in env.items() if name.startswith(PROVIDER_PREFIXES) and name not in SHAPING_ENVIRONMENT}
    return args, {**run_env, **live}


def what_changed(old, new) -> str:
    """What a re-recording changed between two read cassettes (agent.record.cassette_file.CassetteFile):
    the request counts, then the first request that differs and where, else the first reply, the
    tool runs or the setup."""
    from agent.record.drift import first_difference

    counts = f"{len(new.interactions)} requests (was {len(old.interactions)})"
    pairs = list(zip(old.interactions, new.interactions))
    for number, (was, now) in enumerate(pairs, 1):
        if found := first_difference(was.request, now.request):
            return f"{counts}, first difference at request {number} {found[0]}"
    if len(old.interactions) != len(new.interactions):
        more = "more" if len(new.interactions) > len(old.interactions) else "fewer"
        return f"{counts}, first difference at request {len(pairs) + 1} (a request {more})"
    for number, (was, now) in enumerate(pairs, 1):
        if found := first_difference(was.response, now.response):
            return f"{counts}, the same requests; the reply to request {number} differs at {found[0]}"
    for where, what, was, now in (("$.tool_runs", "tool runs differ", old.tool_runs, new.tool_runs),
                                  ("$.setup", "setup differs", old.setup, new.setup)):
        if found := first_difference(was, now, where):
            return f"{counts}, the same requests and replies; the {what} at {found[0]}"
    return f"{counts}, the same requests, replies, tool runs and setup"

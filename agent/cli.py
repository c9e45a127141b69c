"""Command line: parse flags, build the session, run, print the answer (or JSON), map to an exit code.

The only module that writes to stdout.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import sys
import time
from pathlib import Path
from typing import Any, Sequence

from agent import __version__
from agent.conversation import Usage
from agent.errors import AgentError, UsageError
from agent.model.pricing import total_cost_usd
from agent.permissions.policy import MODES

log = logging.getLogger("agent")

EXIT_INTERRUPTED = 130


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, not argparse's usage block
        raise UsageError(f"{message} (see --help)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="your_program.sh", description="A terminal coding agent (Claude Code compatible).")
    parser.add_argument("-p", "--print", dest="prompt", metavar="PROMPT", help="the prompt; print only the final answer")
    parser.add_argument("--provider", choices=["openrouter", "anthropic"], help="model provider (default: from the environment)")
    parser.add_argument("--model", help="model id (default: AGENT_MODEL, else the provider's default)")
    parser.add_argument("--max-turns", type=int, default=None, metavar="N", help="stop after N model replies (default 100)")
    parser.add_argument("--output-format", choices=["text", "json"], default="text", help="text (default) or one JSON result object")
    parser.add_argument("--verbose", action="store_true", help="narrate requests and tool calls on stderr")
    parser.add_argument("--agents", metavar="JSON", help="extra subagent definitions: a JSON object, or a path to a JSON file")
    parser.add_argument("--permission-mode", choices=MODES, help="how tool calls are approved (default: settings, else default)")
    parser.add_argument("--allowedTools", "--allowed-tools", dest="allowed_tools", action="append", default=[], metavar="RULES", help='rules approving tool calls, e.g. "Bash(git:*) Edit"')
    parser.add_argument("--disallowedTools", "--disallowed-tools", dest="disallowed_tools", action="append", default=[], metavar="RULES", help="rules refusing tool calls (they win over everything)")
    parser.add_argument("--dangerously-skip-permissions", action="store_true", help="approve every tool call that no deny rule refuses")
    parser.add_argument("--no-session-persistence", action="store_true", help="do not write transcripts under ~/.claude/projects")
    parser.add_argument("--trace", metavar="FILE", help="append every request payload and reply to FILE as JSON lines")
    recording = parser.add_mutually_exclusive_group()
    recording.add_argument("--record", metavar="CASSETTE", help="run live and record every model exchange to CASSETTE")
    recording.add_argument("--replay", metavar="CASSETTE", help="run offline, answering from CASSETTE")
    parser.add_argument("--version", action="version", version=f"agent {__version__}")
    return parser


def _configure_logging(verbose: bool) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("[agent] %(message)s"))
    log.handlers[:] = [handler]
    log.setLevel(logging.INFO if verbose else logging.WARNING)
    log.propagate = False


def main(argv: Sequence[str] | None = None) -> int:
    """Run the agent with command-line arguments `argv`; returns the exit code."""
    started = time.monotonic()
    output_format = "text"
    try:
        args = build_parser().parse_args(argv)
        output_format = args.output_format
        _configure_logging(args.verbose)
        result, session = _run(args, os.environ)
    except AgentError as exc:
        print(f"error: {exc}", file=sys.stderr)
        if output_format == "json":
            _print_json("error_during_execution", str(exc), 0, started)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:  # a bug of ours: still one line (the traceback only under --verbose)
        log.info("internal error", exc_info=True)
        print(f"error: internal error: {type(exc).__name__}: {' '.join(str(exc).split())[:300]}", file=sys.stderr)
        return 1
    if output_format == "json":
        _print_json(result.subtype, result.text.strip(), result.turns, started, session)
    elif result.text.strip():
        print(result.text.strip())
    if result.subtype == "error_max_turns":
        print(f"error: stopped after reaching the turn limit ({result.turns} turns; raise --max-turns)", file=sys.stderr)
        return 1
    return 0


def _print_json(subtype: str, text: str, turns: int, started: float, session=None) -> None:
    usage = session.client.usage if session else Usage()
    result: dict[str, Any] = {
        "type": "result",
        "subtype": subtype,
        "is_error": subtype != "success",
        "result": text,
        "num_turns": turns,
        "duration_ms": int((time.monotonic() - started) * 1000),
        "usage": {**usage.as_dict(), "requests": usage.requests},
        "total_cost_usd": total_cost_usd(session.client.usage_by_model) if session else None,
        # which Claude Code's result lacks: what each subagent run cost, in start order
        "subagents": session.subagent_runs if session else [],
        "permission_denials": session.permission_denials if session else [],
    }
    if session is not None and session.transcripts is not None:
        result["session_id"] = session.transcripts.session_id
    print(json.dumps(result, ensure_ascii=False))


def _run(args: argparse.Namespace, env: os._Environ | dict):
    from agent.model.client import ModelClient
    from agent.model.providers import select_provider
    from agent.permissions.settings import load_policy
    from agent.run import run_prompt
    from agent.session import Session
    from agent.skills.cache import FrontmatterCache, cache_path
    from agent.skills.catalog import CATALOG_BUDGET_CHARS
    from agent.skills.discovery import discover_skills
    from agent.subagents.discovery import discover_agents
    from agent.transcripts import Transcripts
    from agent.workspace import Workspace

    if args.prompt is None:
        raise UsageError("give a prompt with -p \"<prompt>\"")
    if args.trace and not Path(args.trace).parent.is_dir():
        raise UsageError(f"--trace: the folder of {args.trace} does not exist")
    if not args.prompt.strip():
        raise UsageError("the prompt is empty")
    max_turns = args.max_turns if args.max_turns is not None else 100
    if max_turns < 1:
        raise UsageError("--max-turns must be at least 1")
    provider = select_provider(env, args.provider, dummy_key="replay-key" if args.replay else None)
    timeout_ms = env.get("API_TIMEOUT_MS")
    client = ModelClient(provider, float(timeout_ms) / 1000 if timeout_ms else 600.0, args.trace)
    cwd, home = Path.cwd(), Path.home()
    cache = FrontmatterCache(cache_path(home, env))
    skills = {skill.name: skill for skill in discover_skills(cwd, home, cache)}
    agents = discover_agents(cwd, home, args.agents, cache)
    cache.save()
    session = Session(
        workspace=Workspace(cwd),
        client=client,
        model=args.model or env.get("AGENT_MODEL") or provider.default_model,
        max_turns=max_turns,
        skills=skills,
        agents=agents,
        catalog_budget=_positive_int(env, "SLASH_COMMAND_TOOL_CHAR_BUDGET", CATALOG_BUDGET_CHARS),
        transcripts=None if args.no_session_persistence else Transcripts(home, cwd),
        policy=load_policy(
            cwd, home, args.permission_mode, args.allowed_tools, args.disallowed_tools,
            args.dangerously_skip_permissions,
        ),
    )
    with _recording(args, client, cwd):
        return run_prompt(args.prompt, session), session


def _positive_int(env, name: str, default: int) -> int:
    """A whole number > 0 from the environment variable `name`, or `default` when unset."""
    value = (env.get(name) or "").strip()
    if not value:
        return default
    if not (value.isascii() and value.isdigit() and int(value) > 0):
        raise UsageError(f"{name} must be a whole number greater than 0, not {value!r}")
    return int(value)


def _recording(args: argparse.Namespace, client, cwd: Path):
    if not (args.record or args.replay):
        return contextlib.nullcontext()
    from agent.record.cassette import cassette

    folders = {"workspace": cwd, "home": Path.home()}
    if args.record:
        return cassette(args.record, "record", client.http, folders)
    return cassette(args.replay, "replay", client.http, folders)

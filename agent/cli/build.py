"""From parsed flags and the environment to a session, and a run of it (inside a cassette when
recording or replaying)."""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
from pathlib import Path
from typing import Mapping

from agent.errors import UsageError

log = logging.getLogger("agent")


def run(args: argparse.Namespace, env: Mapping[str, str]):
    from agent.cli.options import build_parser
    from agent.cli.replay import check_model, follow_setup, narration, recorded_setup, replay_provider
    from agent.model import retry
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

    parser = build_parser()
    cwd, home = Path.cwd(), Path.home()
    folders = {"workspace": cwd, "home": home}
    recorded = None
    if args.replay_tools and not args.replay:
        raise UsageError("--replay-tools needs --replay CASSETTE")
    if args.replay:
        from agent.record.cassette_file import Placeholders, read

        recorded = read(args.replay, Placeholders(folders))  # before anything else: a bad cassette is bad input
        env = follow_setup(args, parser, recorded.setup, args.replay, env, recorded.inferred)
        log.info("%s", narration(recorded.setup, args.replay, recorded.inferred))
        if args.replay_tools and recorded.tool_runs is None:
            raise UsageError(f"--replay-tools: the cassette {args.replay} holds no tool results (it was not "
                             "recorded by this agent); replay it without --replay-tools")
    if args.prompt is None:
        raise UsageError("give a prompt with -p \"<prompt>\"")
    if not args.prompt.strip():
        raise UsageError("the prompt is empty")
    check_writable("--trace", args.trace, append=True)
    check_writable("--record", args.record)
    max_turns = args.max_turns if args.max_turns is not None else 100
    if max_turns < 1:
        raise UsageError("--max-turns must be at least 1")
    if recorded:
        provider = replay_provider(recorded.setup, recorded.base_url, args.replay)
    else:
        provider = select_provider(env, args.provider)
    model = args.model or env.get("AGENT_MODEL") or provider.default_model
    if recorded:
        model = check_model(args.model, model, recorded.setup.get("model"), args.replay)
    timeout_ms = env.get("API_TIMEOUT_MS")
    client = ModelClient(
        provider, float(timeout_ms) / 1000 if timeout_ms else 600.0, args.trace,
        max_retries=retry.max_retries_from(env),
        sleep=(lambda seconds: None) if args.replay_tools else None,  # a recorded retry need not wait
    )
    cache = FrontmatterCache(cache_path(home, env))
    skills = {skill.name: skill for skill in discover_skills(cwd, home, cache)}
    agents = discover_agents(cwd, home, args.agents, cache)
    if not args.replay_tools:  # --replay-tools changes nothing on disk
        cache.save()
    tool_runs = None
    if args.record or args.replay_tools:
        from agent.record.tool_runs import ToolRuns

        tool_runs = ToolRuns(recorded.tool_runs or [], args.replay) if args.replay_tools else ToolRuns()
    persist = not (args.no_session_persistence or args.replay_tools)
    session = Session(
        workspace=Workspace(cwd),
        client=client,
        model=model,
        max_turns=max_turns,
        skills=skills,
        agents=agents,
        catalog_budget=_positive_int(env, "SLASH_COMMAND_TOOL_CHAR_BUDGET", CATALOG_BUDGET_CHARS),
        transcripts=Transcripts(home, cwd) if persist else None,
        policy=load_policy(
            cwd, home, args.permission_mode, args.allowed_tools, args.disallowed_tools,
            args.dangerously_skip_permissions,
        ),
        env=env,
        tool_runs=tool_runs,
    )
    setup = recorded_setup(args, parser, provider, model, env) if args.record else None
    with _recording(args, client, folders, setup, tool_runs):
        return run_prompt(args.prompt, session), session


def _positive_int(env, name: str, default: int) -> int:
    """A whole number > 0 from the environment variable `name`, or `default` when unset."""
    value = (env.get(name) or "").strip()
    if not value:
        return default
    if not (value.isascii() and value.isdigit() and int(value) > 0):
        raise UsageError(f"{name} must be a whole number greater than 0, not {value!r}")
    return int(value)


def check_writable(flag: str, path: str | None, append: bool = False) -> None:
    """A file the run will write must be writable before any request is sent: one line naming it
    otherwise. A trace is appended to; a cassette is replaced when the run ends."""
    if not path:
        return
    target = Path(path)
    if target.is_dir():
        raise UsageError(f"{flag}: {path} is a folder; give a file")
    if target.parent.exists() and not target.parent.is_dir():
        raise UsageError(f"{flag}: cannot write {path}: {target.parent} is a file, not a folder")
    if append and not target.parent.is_dir():
        raise UsageError(f"{flag}: the folder of {path} does not exist")
    existed = target.exists()
    try:
        if not append:
            target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise UsageError(f"{flag}: cannot write {path}: {exc.strerror or exc}") from None
    if not existed and not append:
        os.unlink(target)  # the cassette is written when the run ends, not left empty if it fails


def _recording(args: argparse.Namespace, client, folders: dict[str, Path], setup, tool_runs):
    if not (args.record or args.replay):
        return contextlib.nullcontext()
    from agent.record.cassette import Recording, cassette

    if args.record:
        return cassette(args.record, "record", client.http, folders, Recording(setup, client.current_agent, tool_runs))
    return cassette(args.replay, "replay", client.http, folders)

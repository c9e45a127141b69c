"""From parsed flags and the environment to a session, and a run of it (inside a cassette when
recording or replaying)."""

from __future__ import annotations

import argparse
import contextlib
import os
from pathlib import Path

from agent.errors import UsageError


def run(args: argparse.Namespace, env: os._Environ | dict):
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
    client.limits.thinking(session.model)  # a thinking budget that leaves no room fails before any request
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

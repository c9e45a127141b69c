"""From parsed flags and the environment to a session, and a run of it (inside a cassette when
recording or replaying)."""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path
from typing import IO, Mapping

from agent.cli.environment import Environment
from agent.cli.stdin import combine, read_piped
from agent.errors import UsageError


def run(args: argparse.Namespace, env: Mapping[str, str], stdin: IO | None = None, stream=None):
    """Run the prompt of `args` (with what was piped into `stdin`), printing stream-json lines
    through `stream` when given; returns (result, session)."""
    from agent.run import run_prompt

    environment = Environment(env)  # every variable checked before anything else happens
    prompt = combine(args.prompt, read_piped(stdin))
    if prompt is None:
        raise UsageError('no prompt: give one as an argument (-p "<prompt>") or pipe it in')
    if not prompt.strip():
        raise UsageError("the prompt is empty")
    session, history = build_session(args, environment, stream.observe if stream else None)
    if stream is not None:
        stream.session = session
    session.client.limits.thinking(session.model)  # a thinking budget that leaves no room fails before any request
    with _recording(args, session.client, session.workspace.cwd):
        return run_prompt(prompt, session, history), session


def build_session(args: argparse.Namespace, environment: Environment, observer=None):
    """The session `args` describe, and the earlier conversation it continues (empty for a new one)."""
    from agent.memory import load_memory, memory_block
    from agent.model.client import ModelClient
    from agent.model.limits import Limits
    from agent.model.providers import model_aliases, resolve_model, select_provider
    from agent.permissions.settings import load_policy
    from agent.session import Session
    from agent.skills.cache import FrontmatterCache, cache_path
    from agent.skills.discovery import discover_skills
    from agent.subagents.discovery import discover_agents
    from agent.workspace import Workspace

    if args.trace and not Path(args.trace).parent.is_dir():
        raise UsageError(f"--trace: the folder of {args.trace} does not exist")
    max_turns = args.max_turns if args.max_turns is not None else 100
    if max_turns < 1:
        raise UsageError("--max-turns must be at least 1")
    cwd, home = Path.cwd(), Path.home()
    session_id, transcripts, history = _sessions(args, home, cwd)
    provider = select_provider(environment.raw, args.provider, dummy_key="replay-key" if args.replay else None)
    limits = Limits(environment["CLAUDE_CODE_MAX_OUTPUT_TOKENS"], environment["MAX_THINKING_TOKENS"])
    client = ModelClient(provider, environment["API_TIMEOUT_MS"] / 1000, args.trace,
                         max_retries=environment["AGENT_MAX_RETRIES"], limits=limits)
    cache = FrontmatterCache(cache_path(home, environment.raw))
    added = tuple(Path(cwd, folder).expanduser() for folder in args.add_dirs)
    skills = {skill.name: skill for skill in discover_skills(cwd, home, cache, added)}
    agents = discover_agents(cwd, home, args.agents, cache)
    cache.save()
    policy = load_policy(cwd, home, args.permission_mode, args.allowed_tools, args.disallowed_tools,
                         args.dangerously_skip_permissions, extra_settings=args.settings,
                         extra_directories=args.add_dirs)
    aliases = model_aliases(provider.name, provider.default_model, environment.values, policy.mode == "plan")
    session = Session(
        workspace=Workspace(cwd),
        client=client,
        model=resolve_model([args.model, environment["AGENT_MODEL"]], aliases, provider.default_model),
        max_turns=max_turns,
        skills=skills,
        agents=agents,
        catalog_budget=environment["SLASH_COMMAND_TOOL_CHAR_BUDGET"],
        max_depth=environment["CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH"],
        max_concurrent=environment["CLAUDE_CODE_MAX_CONCURRENT_SUBAGENTS"],
        subagent_model=environment["CLAUDE_CODE_SUBAGENT_MODEL"],
        model_aliases=aliases,
        memory=memory_block(load_memory(cwd, home)),
        system_prompt=_text_or_file(args.system_prompt, args.system_prompt_file, "--system-prompt-file"),
        append_system_prompt=_text_or_file(args.append_system_prompt, args.append_system_prompt_file,
                                           "--append-system-prompt-file"),
        session_id=session_id,
        transcripts=transcripts,
        policy=policy,
        observer=observer,
    )
    return session, history


def _sessions(args: argparse.Namespace, home: Path, cwd: Path):
    """This run's session id, the transcripts it writes (None with --no-session-persistence) and,
    for --continue or --resume, the conversation it continues."""
    import uuid

    from agent.transcripts import SESSION_ID, Transcripts, find_session, latest_session, read_conversation

    session_id, history = args.session_id, []
    if session_id is not None:
        if not SESSION_ID.fullmatch(session_id):
            raise UsageError(f"--session-id must be a UUID, not {session_id!r}")
        if find_session(home, cwd, session_id):
            raise UsageError(f"session {session_id} already exists; continue it with --resume {session_id}")
    elif args.continue_session or args.resume:
        session_id = args.resume or latest_session(home, cwd)
        path = find_session(home, cwd, session_id) if session_id else None
        if path is None:
            missing = f"no session {session_id!r} to resume" if args.resume else f"no earlier session in {cwd} to continue"
            raise UsageError(missing)
        try:
            history = read_conversation(path)
        except OSError as error:
            raise UsageError(f"cannot read the session {path}: {error.strerror or error}") from None
    session_id = session_id or str(uuid.uuid4())
    transcripts = None if args.no_session_persistence else Transcripts(home, cwd, session_id)
    return session_id, transcripts, history


def _text_or_file(text: str | None, path: str | None, flag: str) -> str | None:
    if path is None:
        return text
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        raise UsageError(f"{flag}: cannot read {path} ({error.strerror or error})") from None


def _recording(args: argparse.Namespace, client, cwd: Path):
    if not (args.record or args.replay):
        return contextlib.nullcontext()
    from agent.record.cassette import cassette

    from agent.workspace import project_folders

    # the repository root (memory files above the workspace name it) is a placeholder too
    root = project_folders(cwd)[-1]
    folders = {"workspace": cwd, "home": Path.home(), **({"project": root} if root != Path(cwd) else {})}
    if args.record:
        return cassette(args.record, "record", client.http, folders)
    return cassette(args.replay, "replay", client.http, folders)

"""From parsed flags and the environment to a session, and a run of it (inside a cassette when
recording or replaying; a replay takes its setup from the cassette, not the environment)."""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
from pathlib import Path
from typing import IO, Any, Mapping, Sequence

from agent.cli.cassette_run import hook_runs, recording, replay_approver, replay_setup, tool_runs, web_fetches
from agent.cli.debug_log import name_debug_log
from agent.cli.environment import Environment
from agent.cli.mcp_setup import session_servers, stop_servers
from agent.cli.trust import own_trust
from agent.cli.stdin import combine, read_piped
from agent.errors import AgentError, UsageError
from agent.hooks.events import session_end
from agent.tools.todo import TaskList, TodoState, tasks_folder
from agent.workspace import option_file

log = logging.getLogger("agent")


def run(args: argparse.Namespace, env: Mapping[str, str], stdin: IO | None = None, stream=None,
        ending=None, earlier: Sequence[str] = (), sections: Mapping[str, Any] | None = None):
    """Run the prompt of `args` (with what was piped into `stdin`), printing stream-json lines
    through `stream` when given; returns (result, session). `ending` (an agent.cli.outcomes.Ending)
    learns how the run ended. A re-recording sends its `earlier` prompts first and keeps the
    user's `sections` of the cassette it replaces."""
    from agent.cli.outcomes import Ending
    from agent.run import MainConversation

    own = Environment(env)  # every variable the user set is checked before anything else happens
    args.prompt = combine(args.prompt, read_piped(stdin))
    # the user's own trust, read before a replay swaps the environment for the recorded one
    trusted = own_trust(args, own, Path.cwd(), Path.home())
    recorded, env = replay_setup(args, env, trusted)
    ending = Ending() if ending is None else ending
    ending.expect(recorded, args)  # a malformed `expect` section is bad input, before anything runs
    if args.prompt is None:
        raise UsageError('no prompt: give one as an argument (-p "<prompt>") or pipe it in')
    if not args.prompt.strip():
        raise UsageError("the prompt is empty")
    environment = Environment(env)  # a replay's: the recorded variables instead of the user's
    if stream is None and args.include_partial_messages:  # a replay of streamed replies streams too
        stream = _Unshown()
    elif stream is not None:
        stream.partial = args.include_partial_messages  # a replay may have taken it from the cassette
    session, history = build_session(args, environment, stream, recorded, trusted)
    session.observer = ending.watching(session.observer)  # a replay checks which tools were called
    if stream is not None and hasattr(stream, "watch_hooks"):
        stream.watch_hooks(session)
        stream.watch_tasks(session)
    try:
        session.client.limits.thinking(session.model)  # a thinking budget that leaves no room fails before any request
        # a recorded interactive session replays by sending its recorded turns again, in order
        earlier = (recorded.setup.get("prompts") or [])[:-1] if recorded and not recorded.inferred else list(earlier)
        conversation = MainConversation(session, history)
        if stream is not None:
            stream.start(session, conversation.agent)  # before a forked /skill's lines, as the first line
        turns = [*earlier, args.prompt] if args.record and earlier else None
        with recording(args, session, environment, turns, recorded=recorded) as taken:
            kept = taken if args.record else None  # how the run ends goes into its setup before it is saved
            if kept is not None and sections:
                kept.sections.update(sections)
            try:
                for prompt in earlier:
                    answer = conversation.turn(prompt)
                    ending.turned(answer)
                    log.info("replayed turn %r: %s", prompt[:60], " ".join(answer.text.split())[:200])
                result = conversation.turn(args.prompt)
                session.background.finish()  # agents its turn limit left running end before the run does
                session_end(session, "other")
            except AgentError as exc:
                ending.failed(exc, kept)
                with contextlib.suppress(AgentError):  # the run's own failure is the one reported
                    session_end(session, "other")
                raise
            ending.turned(result)
            ending.finished(result, session, kept)
        ending.compare()
        if args.record and taken.unwritten:  # the cassette is saved as the recording ends
            session.unwritten.append(taken.unwritten)
        return result, session
    except AgentError as exc:
        exc.session = session  # the JSON result still reports the session, its usage and cost
        raise
    finally:
        stop_servers(session)


class _Unshown:
    """An observer for a replay of streamed replies that nobody watches: they stream, unseen."""

    wants_text = True

    def start(self, session, agent) -> None:
        pass

    def message(self, agent, message) -> None:
        pass

    def text(self, agent, delta) -> None:
        pass


def build_session(args: argparse.Namespace, environment: Environment, observer=None, recorded=None,
                  trusted: bool | None = None, confirm_trust=None):
    """The session `args` describe, and the earlier conversation it continues (empty for a new one).
    `trusted` is the user's own trust of the workspace (by default read from `args` and
    `environment`); a replay narrows it to the recording's. When the workspace is untrusted but its
    files would grant permissions, `confirm_trust()` (the interactive question) may trust it."""
    from agent.cli.agent_folders import AgentFolders, usable_agents
    from agent.cli.git_context import session_git_status
    from agent.cli.replay import check_model, replay_provider
    from agent.cli.request_flags import request_limits, request_shaping, tool_selection, unsupported_flags
    from agent.cli.instruction_settings import session_instructions
    from agent.cli.resuming import sessions
    from agent.cli.compaction_setup import compaction_settings
    from agent.cli.run_controls import apply_run_controls
    from agent.cli.session_agent import record_agent, session_agent
    from agent.cli.sources import home_content_warning, setting_sources
    from agent.cli.trust import replay_trust
    from agent.hooks.sources import project_hooks
    from agent.mcp.sources import has_project_servers
    from agent.memory import managed_root, memory_block
    from agent.model.client import ModelClient
    from agent.model.providers import model_aliases, pinned_aliases, resolve_model, select_provider
    from agent.permissions.settings import added_directory, load_policy, project_grants
    from agent.session import Session
    from agent.skills.cache import FrontmatterCache, cache_path
    from agent.skills.discovery import discover_skills, without_project_grants
    from agent.subagents.agent_memory import memory_enabled
    from agent.subagents.definitions import BUILTIN_AGENTS, without_disabled_builtins
    from agent.subagents.discovery import discover_agents
    from agent.subagents.servers import live_starter, project_inline_servers
    from agent.tools.instructions import Instructions
    from agent.workspace import Workspace

    check_writable("--trace", args.trace, append=True)
    check_writable("--record", args.record)
    max_turns = args.max_turns if args.max_turns is not None else 100
    if max_turns < 1:
        raise UsageError("--max-turns must be at least 1")
    cwd, home = Path.cwd(), Path.home()
    sources = setting_sources(args.setting_sources, f"the cassette {args.replay}: --setting-sources" if recorded
                              else "--setting-sources")
    # settings files grant permissions: a run that follows a cassette's setup but withholds its grants
    # (a replay running tools, a re-recording) reads the user's own, or a cassette leaving out the
    # user's source would drop the user's deny rules
    withheld = hasattr(args, "own_setting_sources") and not getattr(args, "cassette_grants", args.replay_tools)
    policy_sources = setting_sources(getattr(args, "own_setting_sources", None)) if withheld else sources
    session_id, transcripts, history = sessions(args, home, cwd)
    name_debug_log(args, home, session_id)  # --debug: ~/.claude/debug/<session id>.txt
    if transcripts is not None and args.session_mirror and hasattr(observer, "mirror"):
        transcripts.mirror = observer.mirror  # --session-mirror: each line also goes to the Agent SDK's SessionStore
    if transcripts is not None and not args.replay_tools:  # --replay-tools changes nothing on disk
        from agent.cli.cleanup import remove_old_transcripts

        remove_old_transcripts(cwd, home, policy_sources, args.settings, session_id)
    if recorded:
        provider = replay_provider(recorded.setup, recorded.base_url, args.replay)
    else:
        provider = select_provider(environment.raw, args.provider)
    unsupported_flags(args)
    limits = request_limits(args, environment)  # --max-thinking-tokens or MAX_THINKING_TOKENS
    client = ModelClient(provider, environment["API_TIMEOUT_MS"] / 1000, args.trace,
                         max_retries=environment["AGENT_MAX_RETRIES"], limits=limits,
                         shaping=request_shaping(args, provider.name, limits, environment["CLAUDE_CODE_EFFORT_LEVEL"]),
                         sleep=(lambda seconds: None) if args.replay_tools else None)  # a recorded retry need not wait
    cache = FrontmatterCache(cache_path(home, environment.raw))
    added = tuple(added_directory(folder, cwd) for folder in args.add_dirs)
    found = discover_skills(cwd, home, cache, added, sources)
    trusted = own_trust(args, environment, cwd, home) if trusted is None else trusted
    if recorded:
        trusted = replay_trust(recorded.setup, trusted, getattr(args, "cassette_grants", False))
    builtins = without_disabled_builtins(BUILTIN_AGENTS, environment["CLAUDE_CODE_DISABLE_EXPLORE_PLAN_AGENTS"],
                                         environment["CLAUDE_AGENT_SDK_DISABLE_BUILTIN_AGENTS"])
    managed = managed_root(environment.raw)  # the organisation's folder: its CLAUDE.md, rules and agents
    agents = discover_agents(cwd, home, args.agents, cache, sources, added, builtins=builtins, managed=managed)
    if not trusted and confirm_trust is not None and (
            project_grants(cwd, policy_sources) or any(s.source == "project" and s.allowed_tools for s in found)
            or project_hooks(cwd, home, policy_sources, found, agents.values()) or has_project_servers(cwd, policy_sources)
            or project_inline_servers(agents)):
        trusted = confirm_trust()
    args.workspace_trusted = trusted  # a recording says so, for its replays
    skills = {skill.name: skill for skill in (found if trusted else without_project_grants(found, cwd, home))}
    agents = usable_agents(agents, cwd, home, trusted, args.strict_mcp_config)  # an untrusted project's narrowed
    as_agent = session_agent(args, agents, cwd, home, sources)  # --agent, a resumed session's, or the settings'
    cache.report()
    if not args.replay_tools and getattr(args, "home_writable", True):  # --replay-tools changes nothing on disk
        cache.save()
    policy = load_policy(cwd, home, args.permission_mode, args.allowed_tools, args.disallowed_tools,
                         args.dangerously_skip_permissions, extra_settings=args.settings,
                         extra_directories=added, trusted=trusted, sources=policy_sources)
    if as_agent is not None and as_agent.permission_mode:  # the session's agent's mode, combined as a subagent's
        policy = policy.for_agent(as_agent.permission_mode)
    instructions = session_instructions(args, environment, cwd, home, sources, managed, added)
    memory = instructions.at_start(cwd)
    if args.record and (warning := home_content_warning(found, agents.values(), memory, home, policy_sources)):
        log.warning("%s", warning)
    aliases = model_aliases(provider.name, provider.default_model, environment.values, policy.mode == "plan")
    agent_model = as_agent.model if as_agent is not None and (as_agent.model or "").lower() != "inherit" else None
    model = resolve_model([args.model, agent_model, environment["AGENT_MODEL"]], aliases, provider.default_model)
    if recorded:
        model = check_model(args.model, model, recorded.setup.get("model"), args.replay)
    runs = tool_runs(args, recorded)
    session = Session(
        workspace=Workspace(cwd),
        client=client,
        model=model,
        max_turns=max_turns,
        offered_builtins=tool_selection(args.tools),
        skills=skills,
        agents=agents,
        catalog_budget=environment["SLASH_COMMAND_TOOL_CHAR_BUDGET"],
        max_depth=environment["CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH"],
        max_concurrent=environment["CLAUDE_CODE_MAX_CONCURRENT_SUBAGENTS"],
        fork_mode=environment["CLAUDE_CODE_FORK_SUBAGENT"],
        subagent_model=environment["CLAUDE_CODE_SUBAGENT_MODEL"],
        subagent_model_force=environment["CLAUDE_CODE_SUBAGENT_MODEL_FORCE"],
        pinned_aliases=pinned_aliases(environment.values),
        agent_memory=not environment["CLAUDE_CODE_DISABLE_AUTO_MEMORY"] and memory_enabled(cwd, home, sources, args.settings),
        model_aliases=aliases,
        memory=memory_block(memory),
        instructions=instructions,
        git_status=session_git_status(recorded, environment, cwd, home, sources, args.settings),
        system_prompt=_text_or_file(args, "system_prompt"),
        append_system_prompt=_text_or_file(args, "append_system_prompt"),
        append_subagent_system_prompt=_text_or_file(args, "append_subagent_system_prompt"),
        session_agent=as_agent,
        session_id=session_id,
        transcripts=None if args.replay_tools else transcripts,  # --replay-tools writes nothing
        policy=policy,
        observer=observer,
        tool_runs=runs,
        approver=replay_approver(args, recorded),
    )
    # the task list is kept where Claude Code keeps it (--no-session-persistence too), so --continue and --resume
    # find it; --replay-tools writes nothing
    writes = not args.replay_tools and getattr(args, "home_writable", True)
    session.todo = TodoState(TaskList(tasks_folder(home, session_id) if writes else None),
                             todo_write=not environment["CLAUDE_CODE_ENABLE_TASKS"])
    apply_run_controls(args, session)  # --max-budget-usd, --fallback-model, --json-schema: before any server or request
    session.compaction = compaction_settings(args, environment)  # --autocompact, CLAUDE_CODE_AUTO_COMPACT_WINDOW, ...
    session.mcp = session_servers(args, environment, cwd, home, trusted, recorded, policy_sources)  # they run commands, as hooks do
    if not args.replay_tools:  # an agent's inline servers start as it runs (never under --replay-tools)
        session.start_agent_servers = live_starter(cwd, environment.raw, start_timeout_s=environment["MCP_TIMEOUT"] / 1000,
                                                   call_timeout_s=environment["MCP_TOOL_TIMEOUT"] / 1000,
                                                   output_tokens=environment["MAX_MCP_OUTPUT_TOKENS"])
    session.hooks = session_hooks(args, session, home, policy_sources, trusted, hook_runs(args, recorded, runs))
    session.web_fetches = web_fetches(args, recorded, runs)  # WebFetch's pages, kept in or answered by the cassette
    record_agent(session.transcripts, as_agent)  # so --resume runs the session as this agent again
    session.reread_agents = AgentFolders(args, cwd, home, cache, sources, added, trusted, builtins, managed)  # before each turn
    return session, history


def session_hooks(args: argparse.Namespace, session, home: Path, sources, trusted: bool, runs):
    """The hooks engine of a session: its settings' hooks, the Agent SDK's hook callbacks, and its
    agents' and skills' frontmatter ones (the project's only in a trusted workspace), recorded or
    replayed through `runs`; None when nothing could fire (no hook configured, none recorded, or
    disableAllHooks)."""
    from agent.cli.sdk_bridges import sdk_hooks
    from agent.hooks.config import HookSet
    from agent.hooks.engine import Hooks
    from agent.hooks.sources import settings_hooks
    from agent.transcripts import project_folder

    cwd = session.workspace.cwd
    callbacks, caller = sdk_hooks(args)
    if runs is not None:  # a replay without the SDK answers its callbacks from the cassette, granting nothing
        runs.no_sdk, runs.grants = caller is None, getattr(args, "cassette_grants", False)
    configured = settings_hooks(cwd, home, sources, args.settings, trusted)
    if configured is None:  # disableAllHooks: nothing runs, but a replay still answers (or misses) the recorded firings
        if not getattr(runs, "holds_firings", False):
            return None
        configured, runs.off = HookSet(), True
    else:
        configured = configured.plus(callbacks)
    scoped = any(s.hooks for s in session.skills.values()) or any(a.hooks for a in session.agents.values())
    if not (configured or scoped or getattr(runs, "holds_firings", False)):
        return None
    transcript = project_folder(home, cwd) / f"{session.session_id}.jsonl"
    return Hooks(configured, cwd, session.session_id, str(transcript), "sdk-cli" if args.print else "cli", runs,
                 callback=caller)


def _text_or_file(args: argparse.Namespace, dest: str) -> str | None:
    """A --system-prompt style flag's text, read from its -file form when that was given; the text
    replaces the file in `args`, so a cassette records what was sent, not a path."""
    path = getattr(args, f"{dest}_file")
    if path is not None:
        text = option_file(f"--{dest.replace('_', '-')}-file", path).decode("utf-8", errors="replace")
        setattr(args, dest, text)
        setattr(args, f"{dest}_file", None)
    return getattr(args, dest)


def check_writable(flag: str, path: str | None, append: bool = False) -> None:
    """A file the run will write must be writable before any request is sent: one line naming it
    otherwise. A trace is appended to; a cassette is replaced when the run ends. A device, FIFO or
    socket is refused: saving would change what it is, and opening a FIFO would wait forever."""
    from agent.workspace import append_text, special_file

    if not path:
        return
    target = Path(path)
    if target.is_dir():
        raise UsageError(f"{flag}: {path} is a folder; give a file")
    if kind := special_file(target):
        raise UsageError(f"{flag}: {path} is {kind}, not a regular file; give a file")
    if target.parent.exists() and not target.parent.is_dir():
        raise UsageError(f"{flag}: cannot write {path}: {target.parent} is a file, not a folder")
    if append and not target.parent.is_dir():
        raise UsageError(f"{flag}: the folder of {path} does not exist")
    existed = target.exists()
    try:
        if not append:
            target.parent.mkdir(parents=True, exist_ok=True)
        append_text(target, "")
    except OSError as exc:
        raise UsageError(f"{flag}: cannot write {path}: {exc.strerror or exc}") from None
    if not existed and not append:
        os.unlink(target)  # the cassette is written when the run ends, not left empty if it fails

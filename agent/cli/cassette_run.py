"""The cassette side of a run: the cassette a replay reads and the setup it follows
(`replay_setup`), what a replay answers with (its approver, its tool runs), and the cassette
context a run goes through, recording (vcrpy) or replaying (`agent.record.replaying`)."""

from __future__ import annotations

import argparse
import contextlib
import logging
from pathlib import Path
from typing import Any, Mapping

from agent.cli.environment import Environment
from agent.errors import UsageError

log = logging.getLogger("agent")


def replay_setup(args: argparse.Namespace, env: Mapping[str, str], trusted: bool = False):
    """For --replay: the cassette read (a bad one is bad input, before anything else) and `args`
    filled from its setup; returns it and the environment the run then uses. The recorded grants
    (permission options, trust, approvals) are followed with --replay-tools, or when the user
    (whose own trust of the workspace is `trusted`) vouches for the cassette; otherwise one
    warning names those withheld. `args.cassette_grants` says which, for `build_session`."""
    if not args.replay:
        return None, env
    from agent.cli.options import build_parser
    from agent.cli.replay import follow_setup, narration, withheld_options
    from agent.cli.trust import SETUP_KEY, vouched, warn_withheld
    from agent.record.approvals import RecordedApprovals
    from agent.record.cassette_file import Placeholders, read

    recorded = read(args.replay, Placeholders(cassette_folders(Path.cwd())))
    parser = build_parser()
    args.cassette_grants = args.replay_tools or vouched(args.replay, trusted, Path.cwd())
    env = follow_setup(args, parser, recorded.setup, args.replay, env, recorded.inferred, args.cassette_grants)
    log.info("%s", narration(recorded.setup, args.replay, recorded.inferred))
    if args.replay_tools and recorded.tool_runs is None:
        raise UsageError(f"--replay-tools: the cassette {args.replay} holds no tool results (it was not "
                         "recorded by this agent); replay it without --replay-tools")
    if not args.cassette_grants:
        warn_withheld(args.replay, withheld_options(args, parser, recorded.setup),
                      recorded.setup.get(SETUP_KEY) is True and not trusted,
                      RecordedApprovals(recorded.tool_runs, grants=False).withheld, trusted, Path.cwd())
    return recorded, env


def replay_approver(args: argparse.Namespace, recorded):
    """A replay's approver, answering as the recording's did (only its refusals when the
    cassette's grants are not followed); None when not replaying. A call it has no answer for is
    refused, as in -p mode."""
    if not recorded:
        return None
    from agent.record.approvals import RecordedApprovals

    return RecordedApprovals(recorded.tool_runs, grants=getattr(args, "cassette_grants", False))


def tool_runs(args: argparse.Namespace, recorded):
    """Where tool results go (--record) or come from (--replay-tools); None otherwise."""
    if not (args.record or args.replay_tools):
        return None
    from agent.record.tool_runs import ToolRuns

    return ToolRuns(recorded.tool_runs or [], args.replay) if args.replay_tools else ToolRuns()


def hook_runs(args: argparse.Namespace, recorded, tool_runs):
    """Where hook firings go (--record: beside the tool runs) or come from (--replay-tools: the
    recorded ones answer; --replay: the recorded ones are compared); None otherwise."""
    if not (args.record or args.replay):
        return None
    from agent.record.hook_runs import HookRuns

    if args.record:
        return HookRuns(sink=tool_runs)
    return HookRuns(entries=recorded.tool_runs or [], answering=args.replay_tools, path=args.replay)


def web_fetches(args: argparse.Namespace, recorded, tool_runs):
    """Where WebFetch's pages go (--record: beside the tool runs) or come from (--replay, with or
    without --replay-tools: the recorded pages answer, so no replay touches the network); None otherwise."""
    if not (args.record or args.replay):
        return None
    from agent.record.web_fetches import WebFetches

    if args.record:
        return WebFetches(sink=tool_runs)
    return WebFetches(entries=recorded.tool_runs or [], answering_tools=args.replay_tools, path=args.replay)


def cassette_folders(cwd: Path) -> dict[str, Path]:
    """The folders a cassette writes as placeholders, so it replays anywhere: the workspace, home,
    the repository root when it is above the workspace (memory files there name it), and the
    project's folder of Claude Code data."""
    from agent.workspace import project_folders

    from agent.transcripts import project_folder

    root = project_folders(cwd)[-1]
    # the project's folder under ~/.claude/projects is named after the workspace's path (a binary
    # page WebFetch saved is there, named in its result)
    return {"workspace": cwd, "home": Path.home(), **({"project": root} if root != Path(cwd) else {}),
            "project_data": project_folder(Path.home(), cwd)}


def recording(args: argparse.Namespace, session, environment: Environment, turns: list[str] | None = None,
              recorded=None):
    """The cassette context of a run: recording (with its setup: `turns` are the user's prompts,
    by default the one of `args`) or replaying `recorded` (the cassette `replay_setup` read);
    nothing otherwise. The session's MCP servers go through the cassette too (`mcp_in_cassette`)."""
    if not (args.record or args.replay):
        return contextlib.nullcontext()
    client = session.client
    if args.replay:
        from agent.record.replaying import replaying

        from agent.cli.git_context import replay_worktree_snapshots

        if args.replay_tools:
            mcp_in_cassette(session, recorded.setup, replaying=True)
        replay_worktree_snapshots(session, recorded)  # worktree agents' git snapshots, as recorded

        return replaying(recorded, client.http, client.current_agent, match_rules(args, recorded),
                         update=getattr(args, "update_cassette", None), explain=drift_cause,
                         folders=cassette_folders(session.workspace.cwd))
    from agent.cli.options import build_parser
    from agent.cli.git_context import keep_in_setup
    from agent.cli.replay import recorded_setup
    from agent.cli.trust import SETUP_KEY as TRUST_SETUP_KEY
    from agent.record.cassette import Recording, record_to

    folders = cassette_folders(session.workspace.cwd)
    setup: dict[str, Any] = recorded_setup(args, build_parser(), client.provider, session.model, environment.raw,
                                           turns)
    if getattr(args, "workspace_trusted", False):
        setup[TRUST_SETUP_KEY] = True
    mcp_in_cassette(session, setup, replaying=False)
    keep_in_setup(session, setup)  # the git status snapshot, for its replays (agent.cli.git_context)
    return record_to(args.record, client.http, folders, Recording(setup, client.current_agent, session.tool_runs))


def mcp_in_cassette(session, setup: dict[str, Any], replaying: bool) -> None:
    """Recording, the `setup` keeps the tool lists of the session's MCP servers and of the inline
    servers agents start as they run; with --replay-tools (`replaying`), agents' inline servers
    are the recorded ones, started nowhere (the session's are already: agent.cli.mcp_setup)."""
    from agent.cli.mcp_replay import keeping_agent_servers, offered, replayed_agent_servers
    from agent.record.mcp_servers import SETUP_KEY as MCP_SETUP_KEY

    if replaying:
        session.start_agent_servers = replayed_agent_servers(setup)
        return
    if session.mcp is not None:
        setup[MCP_SETUP_KEY] = offered(session.mcp)
    if getattr(session, "start_agent_servers", None) is not None:
        session.start_agent_servers = keeping_agent_servers(session.start_agent_servers, setup)


def drift_cause(recorded: Any, sent: Any) -> str | None:
    """Why a request differs from the recorded one when this folder is the cause, in words: other
    skills, agent types or CLAUDE.md text (`workspace_drift`), or other MCP tools (`mcp_drift`)."""
    from agent.record.mcp_drift import mcp_cause
    from agent.record.workspace_drift import workspace_cause

    return workspace_cause(recorded, sent) or mcp_cause(recorded, sent)


def match_rules(args: argparse.Namespace, recorded):
    """What a replay compares: the cassette's own `match` section and the --ignore, --scrub and
    --match flags together."""
    from agent.record.match import MatchRules

    given = MatchRules.from_flags(args.match_ignore, args.match_scrub, args.match_preset)
    return MatchRules.from_section(recorded.match, args.replay).merged(given)

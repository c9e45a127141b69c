"""Whether a run trusts the workspace's own settings and skills to grant permissions (see
`agent.permissions.trust`): the user's own word for it, the interactive trust question, and what
a replay may take from a cassette."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import Any

from agent.cli.environment import Environment
from agent.permissions.trust import TRUST_FLAG, config_path, is_trusted, store_trust, trust_folder

log = logging.getLogger("agent")
SETUP_KEY = "trusted_workspace"  # what a cassette's setup says when its run trusted the workspace


def own_trust(args: argparse.Namespace, environment: Environment, cwd: Path, home: Path) -> bool:
    """Whether the user trusts `cwd`: --trust-workspace, AGENT_TRUST_WORKSPACE=1, or the trust
    recorded in ~/.claude.json (by Claude Code's dialog or our question). -p mode alone never does."""
    return bool(getattr(args, "trust_workspace", False) or environment["AGENT_TRUST_WORKSPACE"]
                or is_trusted(home, cwd))


def replay_trust(setup: dict[str, Any], own: bool, replay_tools: bool, path: str) -> bool:
    """The trust a replay decides with. A cassette may come from someone else, so it can only
    narrow: with tools running for real, the workspace is trusted when the recording trusted it
    and the replaying user does too (a recording the user's trust would widen is warned about);
    with --replay-tools nothing runs and the recording is followed."""
    recorded = setup.get(SETUP_KEY) is True
    if replay_tools:
        return recorded
    if recorded and not own:
        log.warning(f"the cassette {path} was recorded in a trusted workspace; this replay runs tools for real, "
                    f"so only your own trust applies (give {TRUST_FLAG} to replay it as recorded, or use "
                    "--replay-tools)")
    return recorded and own


def ask_trust(terminal, cwd: Path, home: Path) -> bool:
    """The interactive trust question, asked once in a folder whose own files would grant
    permissions: yes stores the trust in ~/.claude.json, as Claude Code's dialog does; no goes on
    untrusted."""
    folder = trust_folder(cwd)
    terminal.say(f"{folder}: this folder's own settings or skills grant permissions (allow rules, added "
                 "folders, skills' allowed-tools). Trust them only if you trust who wrote the files here.")
    if terminal.ask("Trust this folder? y: yes (remembered), n: no (its grants are ignored)", "yn") != "y":
        return False
    if store_trust(home, cwd):
        terminal.say(f"trusted; remembered in {config_path(home)}", "dim")
    return True

"""Whether a run trusts the workspace's own settings and skills to grant permissions (see
`agent.permissions.trust`): the user's own word for it, the interactive trust question, and what
a replay may take from a cassette."""

from __future__ import annotations

import argparse
import logging
import os
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


def vouched(cassette: str, trusted: bool, cwd: Path) -> bool:
    """Whether the user vouches for a cassette's grants (its permission options, trust and
    approvals) in a replay that runs tools for real: they trust the workspace (`trusted`, their
    own trust) and the cassette file, its real path, lies inside the folder that trust covers: a
    team's own committed cassettes. That same trust lets the repository's settings grant anything
    (bypass mode included), so a cassette there can grant no more than its neighbours can."""
    return trusted and Path(os.path.realpath(cassette)).is_relative_to(trust_folder(cwd))


def replay_trust(setup: dict[str, Any], own: bool, grants: bool) -> bool:
    """The trust a replay decides with: the recording's, when the cassette's grants are followed
    (--replay-tools, or a cassette the user vouches for); otherwise it can only narrow the user's
    own trust (trusted when the recording trusted the workspace and the user does too)."""
    return setup.get(SETUP_KEY) is True and (grants or own)


def warn_withheld(path: str, options: list[str], trust: bool, approvals: int, own: bool, cwd: Path) -> None:
    """The one warning of a replay that runs tools for real and does not follow the grants the
    cassette recorded: which (`options`, the recorded `trust`, the number of `approvals`) and how
    the user can vouch for them."""
    granted = [f"with {' '.join(options)}"] if options else []
    granted += ["in a trusted workspace"] if trust else []
    granted += [f"with {approvals} approval{'s' if approvals != 1 else ''} given"] if approvals else []
    if not granted:
        return
    why = [] if own else ["this workspace is not trusted"]
    if not Path(os.path.realpath(path)).is_relative_to(trust_folder(cwd)):
        why.append(f"the cassette lies outside {trust_folder(cwd)}")
    yours = options + ([TRUST_FLAG] if trust else [])
    give = f", or give {' '.join(yours)} yourself" if yours else ""
    listed = ", ".join(granted[:-1]) + " and " + granted[-1] if len(granted) > 1 else granted[0]
    log.warning(f"the cassette {path} was recorded {listed}; this replay runs tools for real, so only your own "
                f"permission options and trust apply, and the recording's grants do not. To replay it as recorded, "
                f"vouch for it: keep it inside a workspace you trust ({'; '.join(why)}){give}; or use --replay-tools, "
                "which runs nothing")


def ask_trust(terminal, cwd: Path, home: Path) -> bool:
    """The interactive trust question, asked once in a folder whose own files would grant
    permissions or run hooks: yes stores the trust in ~/.claude.json, as Claude Code's dialog does;
    no goes on untrusted."""
    folder = trust_folder(cwd)
    terminal.say(f"{folder}: this folder's own settings, skills, agents or .mcp.json grant permissions (allow rules, "
                 "added folders, skills' allowed-tools) or run commands (hooks) and MCP servers. Trust them only if you "
                 "trust who wrote the files here.")
    if terminal.ask("Trust this folder? y: yes (remembered), n: no (its grants are ignored)", "yn") != "y":
        return False
    if store_trust(home, cwd):
        terminal.say(f"trusted; remembered in {config_path(home)}", "dim")
    return True

"""Permission updates an approver's answer makes (the Agent SDK's `updatedPermissions`, in the
plain form `agent.record.approvals` keeps), applied for the rest of the session as an
interactive "always" is, whatever destination the answer named: no settings file is ever written.

- `addRules` allow: the rules approve the calls they cover for every agent of the session
  (`session.approved`, consulted at each call).
- `addRules` deny or ask: the rules join the session's policy and the asking agent's.
- `setMode`: the asking agent's mode, and the session's when the main conversation asked (as the
  SDK's set_permission_mode sets it); a subagent's own mode was combined from its parent's when
  it started, so its question changes only its own.
- `addDirectories`: the folders join the workspace where edits are approved (acceptEdits) and
  commands may write, as --add-dir does.
"""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path
from typing import Any, Iterable

from agent.permissions.paths import normal_path
from agent.permissions.policy import MODES
from agent.permissions.rules import merge_rules, read_rule

log = logging.getLogger("agent")


def apply_updates(updates: Iterable[dict[str, Any]], session: Any, agent: Any) -> None:
    """Apply `updates` (their shape already checked) to `session` and the asking `agent`."""
    for update in updates:
        kind = update.get("type")
        if kind == "addRules" and update.get("behavior") == "allow":
            rules = [rule for rule in update["rules"] if _approves(rule)]
            with session.lock:  # every agent of the session, running or started later, sees them
                session.approved = tuple(dict.fromkeys((*session.approved, *rules)))
        elif kind == "addRules":
            behavior = update["behavior"]
            _change(session, agent, lambda policy: dataclasses.replace(
                policy, **{behavior: merge_rules(getattr(policy, behavior), list(update["rules"]))}))
        elif kind == "setMode":
            _set_mode(update["mode"], session, agent)
        elif kind == "addDirectories":
            _change(session, agent, lambda policy: dataclasses.replace(
                policy, directories=_with_folders(policy.directories, update["directories"], policy.cwd)))


def _approves(rule: str) -> bool:
    """Whether an added allow rule can approve anything (one that does not parse approves nothing)."""
    reading = read_rule(rule)
    if reading.strict is None:
        log.warning("a permission update's allow rule %r %s; it approves nothing", rule[:200],
                    reading.problem or "cannot be read")
        return False
    return True


def _set_mode(mode: str, session: Any, agent: Any) -> None:
    if mode not in MODES:
        log.warning("a permission update's mode %r is not one of %s; ignored", mode[:40], ", ".join(MODES))
        return
    if getattr(agent, "policy", None) is not None:
        agent.policy = dataclasses.replace(agent.policy, mode=mode)
    if getattr(agent, "depth", 0) == 0 and session.policy is not None:
        session.policy = dataclasses.replace(session.policy, mode=mode)
    log.info("permission mode set to %s by a permission update", mode)


def _change(session: Any, agent: Any, change) -> None:
    """`change` applied to the session's policy and the asking agent's."""
    with session.lock:
        if session.policy is not None:
            session.policy = change(session.policy)
    if getattr(agent, "policy", None) is not None:
        agent.policy = change(agent.policy)


def _with_folders(current: tuple[Path, ...], added: Iterable[str], cwd: Path) -> tuple[Path, ...]:
    """`current` and the `added` folders (relative ones to the workspace, `~` expanded), each once,
    normalised; a path that is no folder is left out (warned), as --add-dir refuses one."""
    folders = []
    for folder in added:
        try:
            path = normal_path(cwd / Path(folder).expanduser())
            usable = path.is_dir()
        except (OSError, ValueError, RuntimeError):  # a NUL, no home folder to expand
            usable = False
        if not usable:
            log.warning("a permission update's directory %r is not a folder; ignored", folder[:200])
            continue
        folders.append(path)
    return tuple(dict.fromkeys((*current, *folders)))

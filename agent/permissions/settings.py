"""Settings: the permission rules and mode of a session, read from Claude Code's settings files and
merged with the command-line flags."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any, Iterable

from agent.errors import UsageError
from agent.permissions.policy import MODES, Policy
from agent.permissions.paths import normal_path
from agent.permissions.rules import merge_rules, split_rules

log = logging.getLogger("agent")


def load_policy(cwd: Path, home: Path, mode: str | None = None, allowed: Iterable[str] = (),
                disallowed: Iterable[str] = (), skip_permissions: bool = False) -> Policy:
    """The policy of a session in `cwd`: the three settings files merged, then the flags added.
    Lists are joined; defaultMode comes from the most specific file; --permission-mode beats it and
    --dangerously-skip-permissions beats both. An unknown flag mode raises UsageError."""
    if mode is not None and mode not in MODES:
        raise UsageError(f"unknown permission mode {mode!r}; valid modes: {', '.join(MODES)}")
    lists: dict[str, tuple[str, ...]] = {"allow": (), "deny": (), "ask": ()}
    chosen = "default"
    files = [home / ".claude" / "settings.json", cwd / ".claude" / "settings.json",
             cwd / ".claude" / "settings.local.json"]  # least specific first
    for path in dict.fromkeys(normal_path(p) for p in files):  # home == cwd must not load a file twice
        permissions = _read_permissions(path)
        for key in lists:
            lists[key] = merge_rules(lists[key], _rule_list(permissions, key, path))
        value = permissions.get("defaultMode")
        if value in MODES:
            chosen = value
        elif value is not None:
            log.warning("ignoring defaultMode %r in %s; valid modes: %s", value, path, ", ".join(MODES))
    flag_rules = lambda values: [r for value in values for r in split_rules(value)]  # noqa: E731
    chosen = "bypassPermissions" if skip_permissions else mode or chosen
    return Policy(mode=chosen, allow=merge_rules(lists["allow"], flag_rules(allowed)),
                  deny=merge_rules(lists["deny"], flag_rules(disallowed)), ask=lists["ask"],
                  cwd=normal_path(cwd), home=normal_path(home))


def _read_permissions(path: Path) -> dict[str, Any]:
    """The `permissions` object of a settings file; {} when it is missing or unusable (warned)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as error:
        log.warning("ignoring %s: cannot read it (%s)", path, getattr(error, "strerror", None) or error)
        return {}
    except (ValueError, RecursionError) as error:
        log.warning("ignoring %s: invalid JSON (%s)", path, str(error).splitlines()[0] if str(error) else "")
        return {}
    if not isinstance(data, dict):
        log.warning("ignoring %s: the settings are not a JSON object", path)
        return {}
    if not isinstance(data.get("permissions", {}), dict):
        log.warning("ignoring the permissions in %s: \"permissions\" is not an object", path)
        return {}
    return data.get("permissions", {})


def _rule_list(permissions: dict[str, Any], key: str, path: Path) -> list[str]:
    value = permissions.get(key, [])
    if not isinstance(value, list) or not all(isinstance(rule, str) for rule in value):
        log.warning("ignoring non-text rules in permissions.%s of %s", key, path)
        value = value if isinstance(value, list) else []
    return [rule.strip() for rule in value if isinstance(rule, str) and rule.strip()]

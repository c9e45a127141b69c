"""The `env` block of settings files, applied at start as if its variables had been exported, as
Claude Code 2.1.332 applies it: `~/.claude/settings.json`, then `.claude/settings.json`, then
`.claude/settings.local.json`, then --settings, each later one winning, and all of them winning
over the environment the run was started with. Only the files of the setting sources the run
reads count (--setting-sources).

Commands the agent runs (Bash, hooks, MCP servers) see the variables too, except those whose names
say they hold a secret: those stay in the run's own configuration and join the redaction rule.

A settings file is untrusted input. Names must be environment variable names and values text (a
number or true/false is taken as written); anything else is one warning naming the file. In a
workspace that is not trusted, the project's own files (settings.json and settings.local.json) set
only this agent's variables that shape what the model is asked (models, effort, limits, the
catalogs, subagent switches): never one that chooses or reaches the provider (its keys and base
URLs, AGENT_PROVIDER, so a cloned repository cannot send the user's key elsewhere), trusts the
workspace, or moves where files are written, and no other variable (commands would run with
them: a PATH of the repository's choosing would change what an approved command runs). Claude
Code applies them all in -p mode; here they wait for trust, one warning naming them.
"""

from __future__ import annotations

import argparse
import logging
import os
import re
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Mapping

from agent.cli.environment import BY_NAME, SECRETS, Environment
from agent.cli.sources import setting_sources
from agent.cli.trust import own_trust
from agent.model.providers import KINDS
from agent.permissions.settings import settings_documents
from agent.permissions.trust import how_to_trust
from agent.secrets.redact import is_secret_name, register, registered

log = logging.getLogger("agent")

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
MAX_VALUE_CHARS = 32 * 1024
# what an untrusted project may never set: choosing or reaching the provider, trust, where files go
_PROVIDER = {name for kind in KINDS.values() for name in (kind.key_variable, kind.base_variable)} | {"AGENT_PROVIDER"}
UNTRUSTED_WITHHELD = frozenset(_PROVIDER | {"AGENT_TRUST_WORKSPACE", "XDG_CACHE_HOME"})
# HOME found the settings files already, and the run's own folders follow it; AGENT_MANAGED_DIR says
# where the organisation's instructions and agents are, which no settings file may move
NEVER = frozenset({"HOME", "AGENT_MANAGED_DIR"})
_exported: dict[str, str | None] = {}  # name -> its value before the block (None: unset), for environment_restored


def with_settings_env(args: argparse.Namespace, env: Mapping[str, str]) -> dict[str, str]:
    """The run's environment `env` with the settings' env blocks applied over it; the variables
    that are not secrets are also exported to this process's environment, for its commands (see
    `environment_restored` for an in-process caller)."""
    cwd, home = Path.cwd(), Path.home()
    sources = setting_sources(args.setting_sources)
    trusted = own_trust(args, Environment(env), cwd, home)
    block = settings_env(settings_documents(cwd, home, sources, args.settings), trusted, cwd, home)
    if not block:
        return dict(env)
    secrets = {name: value for name, value in block.items() if name in SECRETS or is_secret_name(name)}
    if secrets:
        register({**registered(), **secrets})
    for name, value in block.items():
        if name not in secrets:
            _exported.setdefault(name, os.environ.get(name))
            os.environ[name] = value
    return {**env, **block}


def settings_env(documents: list[tuple[str, dict[str, Any], bool]], trusted: bool, cwd: Path, home: Path) -> dict[str, str]:
    """The variables the `env` blocks of `documents` (where, data, whether it is the project's own;
    least specific first) set, later ones winning; the project's own limited when not `trusted`."""
    merged: dict[str, str] = {}
    withheld: list[str] = []
    for where, data, project in documents:
        for name, value in _block(data.get("env"), where).items():
            if name in NEVER:
                log.warning(f"ignoring env {name} in {where}: the run's {name} cannot be set in settings")
                continue
            if project and not trusted and (name in UNTRUSTED_WITHHELD or name not in BY_NAME):
                withheld.append(name)
                continue
            merged[name] = value
    if withheld:
        names = ", ".join(dict.fromkeys(withheld))
        log.warning(f"Ignoring {names} in the env of the project's settings (until a workspace is trusted, its own "
                    f"settings set only this agent's variables that shape requests): {how_to_trust(home, cwd)}")
    return merged


def _block(value: Any, where: str) -> dict[str, str]:
    """The usable entries of one `env` block, each unusable one a warning naming `where`."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        log.warning(f"ignoring env in {where}: it must be an object of variable names and values")
        return {}
    usable: dict[str, str] = {}
    for name, raw in value.items():
        text = _text(raw)
        if not _NAME.fullmatch(name) or text is None or "\0" in text or len(text) > MAX_VALUE_CHARS:
            log.warning(f"ignoring env {name[:60]!r} in {where}: it must be a variable name with a text value")
            continue
        variable = BY_NAME.get(name)
        if variable is not None and text.strip():
            try:
                variable.parse(text.strip())
            except (ValueError, OverflowError):
                log.warning(f"ignoring env {name} in {where}: it must be {variable.accepts}")
                continue
        usable[name] = text
    return usable


def _text(value: Any) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    return None


@contextmanager
def environment_restored() -> Iterator[None]:
    """Around a run: the variables its settings exported are put back as they were when it ends,
    so a run in-process (the tests, the pytest plugin) leaves none of them to the next."""
    try:
        yield
    finally:
        for name, value in _exported.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        _exported.clear()

"""Folder trust: whether the project's own files may grant permissions, read and stored where
Claude Code keeps it, `projects[<folder>].hasTrustDialogAccepted` in `~/.claude.json`.

What Claude Code 2.1.332 was seen to do (run headless with `-p` against a scripted model, fresh
HOME, `IS_SANDBOX=1`, one case per run; December 2026):

- In an untrusted folder it drops the project's `permissions.allow` rules and
  `permissions.additionalDirectories`, one stderr line per kind: `Ignoring 1 permissions.allow entry
  from .claude/settings.json: this workspace has not been trusted. Run Claude Code interactively here
  once and accept the trust dialog, or set projects["<folder>"].hasTrustDialogAccepted: true in
  <home>/.claude.json.` Deny and ask rules apply (an `ask` in the project beat an `--allowedTools`
  allow of the same command, trusted or not).
- `.claude/settings.local.json` grants were honoured untrusted when git does not track the file,
  and dropped like the project's (`... from .claude/settings.json and .claude/settings.local.json`)
  when it does. We drop them whenever the folder is untrusted: a repository (or an archive) can
  ship that file as easily as any other, and the warning says how to trust the folder.
- Project and local `defaultMode: acceptEdits` and `plan` applied untrusted, silently;
  `defaultMode: bypassPermissions` from either file never applied, trusted or not (no warning).
  We ignore a project or local bypassPermissions only while untrusted, with a warning.
- The folder whose trust counts is the repository root (the nearest folder holding `.git`), else
  the working folder itself; only that exact entry counts: a trusted parent outside the repository,
  or a trusted subfolder of it, did not count; a trusted repository root covered its subfolders.
- The Skill call of a skill with `allowed-tools` (project or user, trusted or not) needs approval:
  in `-p` default or acceptEdits mode the model is told `Execute skill: sk. The user can add the
  allow rule Skill(sk) to .claude/settings.local.json to let it run without asking.`; a skill
  without `allowed-tools` loads (`Launching skill: pl`). Once `Skill(sk)` is allowed (by the
  command line, or a settings file that counts), the skill's `allowed-tools` approve its commands,
  even for a project skill in an untrusted folder. We withhold a project skill's `allowed-tools`
  while untrusted instead (one warning per skill), so a repository cannot approve its own commands.

Trust here comes from `~/.claude.json` as Claude Code stores it, from the interactive trust
question (whose yes is stored there), or, for CI that checked out the folder itself, from
`--trust-workspace` or `AGENT_TRUST_WORKSPACE=1`. `-p` never asks and never counts as trust.
`~/.claude.json` is untrusted input too: bounded in size, and anything wrong with it reads as
"not trusted" after one warning.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any, Iterable

from agent.workspace import CONFIG_FILE_BYTES, load_json, project_folders, read_bounded, save_file

log = logging.getLogger("agent")

TRUST_FLAG = "--trust-workspace"
TRUST_VARIABLE = "AGENT_TRUST_WORKSPACE"


class ConfigError(Exception):
    """`~/.claude.json` exists but cannot be used (unreadable, too big, not JSON, not an object)."""


def config_path(home: Path) -> Path:
    """Where Claude Code keeps its global state, trust included."""
    return Path(home) / ".claude.json"


def trust_folder(cwd: Path) -> Path:
    """The folder whose trust counts for a session in `cwd`: the repository root, else `cwd`
    (symlinks resolved, as Claude Code keys it)."""
    return Path(os.path.realpath(project_folders(Path(cwd))[-1]))


def read_config(home: Path) -> dict[str, Any]:
    """The parsed `~/.claude.json`; {} when it does not exist. Raises ConfigError (one line) when
    it exists but cannot be used."""
    path = config_path(home)
    try:
        data = read_bounded(path, CONFIG_FILE_BYTES)
    except FileNotFoundError:
        return {}
    except OSError as error:  # unreadable, not a regular file, over the cap
        raise ConfigError(f"cannot read {path} ({error.strerror or error})") from None
    try:
        config = load_json(data.decode("utf-8"), "the file")
    except ValueError as error:  # UnicodeDecodeError is a ValueError
        raise ConfigError(f"{path} is not valid JSON ({str(error).splitlines()[0] if str(error) else ''})") from None
    if not isinstance(config, dict):
        raise ConfigError(f"{path} does not hold a JSON object")
    return config


def is_trusted(home: Path, cwd: Path) -> bool:
    """Whether `~/.claude.json` records the trust dialog as accepted for `cwd`'s trust folder.
    A file that cannot be used counts as no trust, after one warning."""
    try:
        config = read_config(home)
    except ConfigError as error:
        log.warning("%s; treating this workspace as not trusted", error)
        return False
    projects = config.get("projects")
    entry = projects.get(str(trust_folder(cwd))) if isinstance(projects, dict) else None
    return isinstance(entry, dict) and entry.get("hasTrustDialogAccepted") is True


def store_trust(home: Path, cwd: Path) -> bool:
    """Record `cwd`'s trust folder as trusted in `~/.claude.json`, as Claude Code does, keeping
    everything else in the file (created when missing), saved as the tools save files (atomically;
    a link to it stays a link). Returns False, after one warning, when it cannot be stored: a file that
    cannot be read is never overwritten."""
    path = config_path(home)
    try:
        config = read_config(home)
    except ConfigError as error:
        log.warning("not storing trust: %s", error)
        return False
    projects = config.get("projects")
    if not isinstance(projects, dict):
        projects = config["projects"] = {}
    key = str(trust_folder(cwd))
    entry = projects.get(key)
    projects[key] = {**(entry if isinstance(entry, dict) else {}), "hasTrustDialogAccepted": True}
    try:
        save_file(path, (json.dumps(config, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    except OSError as error:
        log.warning("not storing trust: cannot write %s (%s)", path, error.strerror or error)
        return False
    return True


def how_to_trust(home: Path, cwd: Path) -> str:
    """The sentence that tells the user how to trust this workspace."""
    return (f"this workspace has not been trusted. Run the agent interactively here once and accept the trust "
            f"question, give {TRUST_FLAG} (or set {TRUST_VARIABLE}=1), or set "
            f"projects[{json.dumps(str(trust_folder(cwd)))}].hasTrustDialogAccepted: true in {config_path(home)}.")


def ignored(count: int, what: str, files: Iterable[str], home: Path, cwd: Path) -> str:
    """Claude Code's line for grants dropped in an untrusted folder, e.g. `Ignoring 1
    permissions.allow entry from .claude/settings.json: this workspace has not been trusted. ...`."""
    return (f"Ignoring {count} {what} {'entry' if count == 1 else 'entries'} from {' and '.join(files)}: "
            + how_to_trust(home, cwd))

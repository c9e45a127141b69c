"""The instruction files a conversation starts with, as Claude Code 2.1.332 loads them, in order:

1. the organisation's (the managed folder, `/etc/claude-code` on Linux): its `CLAUDE.md`, then its
   `.claude/rules/`; always loaded, whatever --setting-sources says;
2. the user's: `~/.claude/CLAUDE.md`, then `~/.claude/rules/` (setting source `user`);
3. from the file system's top down to the working folder (not only up to the repository root:
   Claude Code reads every parent), each folder's `CLAUDE.md`, `.claude/CLAUDE.md` and
   `.claude/rules/` (source `project`), then its `CLAUDE.local.md` (source `local`).

Each file's imports follow it, within the bounds of one loading (agent.memory.files). Rules with
`paths` are not loaded at the start: they wait for a file
they match (agent.tools.instructions), as do the `CLAUDE.md` files of folders below the working one.
`AGENTS.md` is not read: Claude Code 2.1.332 reads it neither at the start nor on demand (a
`CLAUDE.md` holding `@AGENTS.md` imports it).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Collection, Mapping, Sequence

from agent.memory.files import Loader, MemoryFile
from agent.memory.rules import Rule, load_rules, within_globs

MANAGED_VARIABLE = "AGENT_MANAGED_DIR"  # the user's own environment only: settings cannot set it
_MANAGED_DEFAULTS = {"darwin": "/Library/Application Support/ClaudeCode", "win32": "C:\\Program Files\\ClaudeCode"}
FOLDER_FILES = (("CLAUDE.md", "project"), (".claude/CLAUDE.md", "project"))


@dataclass
class Levels:
    """What a conversation starts with (`files`) and the rules waiting for a file they match."""

    files: list[MemoryFile] = field(default_factory=list)
    waiting: list[Rule] = field(default_factory=list)


def managed_root(environ: Mapping[str, str]) -> Path:
    """The organisation's folder, as Claude Code places it for this platform (`/etc/claude-code`
    on Linux). AGENT_MANAGED_DIR (an absolute path) moves it, for tests and for a user who keeps
    it elsewhere: settings files cannot set that variable (agent.cli.settings_env), so a cloned
    repository cannot make its own files pass for the organisation's."""
    chosen = (environ.get(MANAGED_VARIABLE) or "").strip()
    if chosen and os.path.isabs(chosen):
        return Path(os.path.normpath(chosen))
    return Path(_MANAGED_DEFAULTS.get(sys.platform, "/etc/claude-code"))


def load_levels(cwd: Path, home: Path, sources: Collection[str] = ("user", "project", "local"),
                managed: Path | None = None, excluded: Callable[[Path, str], bool] | None = None,
                added: Sequence[Path] = ()) -> Levels:
    """Every instruction file a conversation in `cwd` starts with, imports included, in order (see
    the module's docstring), and the rules that wait; `managed` None reads no organisation's folder;
    `excluded(path, kind)` names the files the settings' claudeMdExcludes leave out; `added` are
    --add-dir folders whose files load after the working folder's (each within its own fence),
    as CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD asks."""
    loader, levels = Loader(Path(home), excluded=excluded), Levels()
    if managed is not None:
        loader.load(managed / "CLAUDE.md", "managed", managed)
        levels.waiting += load_rules(managed, "managed", Path(cwd), managed, loader)
    if "user" in sources:
        user = Path(home) / ".claude"
        loader.load(user / "CLAUDE.md", "user", Path(home))
        levels.waiting += load_rules(Path(home), "user", Path(cwd), Path(home), loader)
    for folder in folders_down_to(Path(cwd)):
        levels.waiting += load_folder(folder, sources, loader)
    for folder in added:
        levels.waiting += load_folder(Path(folder), sources, loader)
    levels.files = loader.loaded
    levels.waiting, _ = within_globs(levels.waiting)
    return levels


def load_folder(folder: Path, sources: Collection[str], loader: Loader, local_last: bool = True) -> list[Rule]:
    """One folder's files into `loader`: `CLAUDE.md`, `.claude/CLAUDE.md`, the rules and
    `CLAUDE.local.md` (at the start the rules come before CLAUDE.local.md; on demand after it,
    `local_last` False, as Claude Code orders them); returns its rules that wait."""
    for name, kind in FOLDER_FILES:
        if kind in sources:
            loader.load(folder / name, kind, folder)
    if not local_last and "local" in sources:
        loader.load(folder / "CLAUDE.local.md", "local", folder)
    waiting = load_rules(folder, "project", folder, folder, loader) if "project" in sources else []
    if local_last and "local" in sources:
        loader.load(folder / "CLAUDE.local.md", "local", folder)
    return waiting


def folders_down_to(cwd: Path) -> list[Path]:
    """`cwd`'s parents from the top (the file system's root itself left out) down to `cwd`."""
    start = Path(os.path.abspath(cwd))
    chain = [start, *start.parents]
    return [folder for folder in reversed(chain) if folder != Path(folder.anchor)]

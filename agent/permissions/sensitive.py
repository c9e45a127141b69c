"""Sensitive paths: files whose change can run code or grant permissions later (git hooks and
`core.fsmonitor`, Claude Code settings and skills, editor tasks, shell start-up files, ssh keys),
so writing one always asks, in acceptEdits and under broad allow rules alike, as Claude Code asks
before a "sensitive file". Only bypassPermissions, or an allow rule naming the path, approves.

A path is judged relative to the deepest of the workspace, the additional directories and the
home folder that holds it (the whole path when none does), so a workspace that itself lies in
`~/.claude` is not all sensitive:

- at any depth: a folder or file named `.git`, `.claude`, `.vscode` or `.idea` and everything in
  it (a nested repository's `.git` too), and a file named `.mcp.json`;
- in the home folder: `.bashrc`, `.bash_profile`, `.profile`, `.zshrc`, `.zprofile`, `.gitconfig`,
  and everything in `.config/fish/`, `.ssh/` and `.claude/`.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Iterable

ANY_DEPTH = (".git", ".claude", ".vscode", ".idea", ".mcp.json")  # each name, and all inside it
IN_HOME = (".bashrc", ".bash_profile", ".profile", ".zshrc", ".zprofile", ".gitconfig",
           ".config/fish", ".ssh", ".claude")  # relative to home: each entry, and all inside it


def sensitive_name(path: Path, homes: Iterable[Path], folders: Iterable[Path]) -> str | None:
    """The sensitive entry `path` is or lies in (`.git`, `.ssh`, `.config/fish`, ...), or None.
    `path` is absolute and normalised; `homes` are the home folder as given and as its real path,
    `folders` the workspace and the additional directories (each as given and real)."""
    homes = tuple(homes)
    bases = [folder for folder in (*folders, *homes) if folder == path or folder in path.parents]
    base = max(bases, key=lambda folder: len(folder.parts), default=Path(path.anchor or "/"))
    parts = path.relative_to(base).parts
    if base in homes:
        for entry in IN_HOME:
            size = len(PurePosixPath(entry).parts)
            if "/".join(parts[:size]).lower() == entry:
                return entry
    # compared in any case: on a case-insensitive file system (macOS) `.GIT/config` is `.git/config`
    return next((part.lower() for part in parts if part.lower() in ANY_DEPTH), None)


def names_entry(specifier: str, entry: str) -> bool:
    """Whether a file rule's pattern names the sensitive `entry` literally: its folders and file
    names, split at `/`, hold the entry's names in a row (`.git/**` names `.git`, `~/.config/fish/*`
    names `.config/fish`; `**`, `*.json` or `src/**` name nothing)."""
    segments = [segment for segment in specifier.split("/") if segment not in ("", ".", "~")]
    wanted = list(PurePosixPath(entry).parts)
    return any(segments[i:i + len(wanted)] == wanted for i in range(len(segments) - len(wanted) + 1))

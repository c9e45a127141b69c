"""What a worktree-isolated agent may not do (see `worktrees`), refused in Claude Code's words
before the tool runs: Write, Edit and NotebookEdit of a file in the shared checkout (outside its worktree), and
a Bash command that points git at the shared checkout: `git -C`, `--git-dir` or `--work-tree`
there, `GIT_DIR` or `GIT_WORK_TREE` set to it, or a `cd` into it before git runs. As the seed
says, a command is refused too when its text cannot show that every git it runs stays in the
worktree: a command name or a command line computed at run time, or a line the checker cannot read
fully that mentions git. A command whose working folder is gone (the worktree removed while the
agent runs) is refused rather than run elsewhere. Other commands run: the permission policy (whose
workspace is the worktree) decides them as usual.

The checks read the agent's workspace from the call's context (`Workspace.shared` set), so an
agent that a worktree-isolated agent starts is held to its worktree too."""

from __future__ import annotations

import os
import re
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterable

from agent.permissions.bash_tree import analyse
from agent.permissions.bash_words import SimpleCommand, Word
from agent.permissions.commands import deny_forms
from agent.permissions.runs import command_lines
from agent.permissions.wrappers import command_name
from agent.tools.base import Tool, ToolError
from agent.workspace import Workspace

EDIT_TOOLS = ("Write", "Edit", "NotebookEdit")
_PATH_ARGUMENT = {"NotebookEdit": "notebook_path"}  # the others name the file in file_path
_VARIABLES = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR")
_DECLARES = ("export", "declare", "typeset", "local", "readonly")
_VALUE_OPTIONS = ("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix")  # their value may follow
_REDIRECTS = ("-C", "--git-dir", "--work-tree")
_MAX_LINES = 16  # inner command lines (`sh -c`, `eval`) read per command
RUN_TIME = "a location computed at runtime"
REFUSAL = ("This agent is isolated in the worktree {worktree}, but this command {reason}. Refusing to run it \u2014 "
           "a worktree-isolated agent's git operations must target its own worktree. Run the equivalent from "
           "{worktree} without the redirect.")
EDIT_REFUSAL = ("This agent is isolated in the worktree {worktree}. Edit the worktree copy of this file instead of "
                "the shared-checkout path.")


def guarded(tools: Iterable[Tool]) -> list[Tool]:
    """`tools` with the checks above in front of Bash, Write, Edit and NotebookEdit (others unchanged)."""
    return [replace(tool, run=_checked(tool)) if tool.name in ("Bash", *EDIT_TOOLS) else tool for tool in tools]


def _checked(tool: Tool):
    def run(arguments: dict[str, Any], context) -> str:
        workspace = context.workspace
        if workspace.shared:
            refusal = bash_refusal(arguments.get("command"), workspace) if tool.name == "Bash" else \
                edit_refusal(arguments.get(_PATH_ARGUMENT.get(tool.name, "file_path")), workspace)
            if refusal:
                raise ToolError(refusal)
        return tool.run(arguments, context)
    return run


def edit_refusal(file_path: Any, workspace: Workspace) -> str | None:
    """Why an edit of `file_path` is refused to an agent isolated in `workspace`, or None."""
    if not isinstance(file_path, str) or not file_path or "\x00" in file_path:
        return None  # the tool says what is wrong with it
    return EDIT_REFUSAL.format(worktree=workspace.cwd) if _shared(workspace.resolve(file_path), workspace) else None


def bash_refusal(command: Any, workspace: Workspace) -> str | None:
    """Why the Bash `command` is refused to an agent isolated in `workspace`, or None."""
    if not isinstance(command, str):
        return None
    if not workspace.cwd.is_dir():
        return (f"This agent is isolated in the worktree {workspace.cwd}, which no longer exists. Refusing to run "
                "the command, which would run outside its worktree.")
    reason = _reason(command, workspace, workspace.cwd, 0)
    return REFUSAL.format(worktree=workspace.cwd, reason=reason) if reason else None


def _reason(command: str, workspace: Workspace, start: Path | None, depth: int) -> str | None:
    """Why `command`, started in `start` (None: a folder decided at run time), may reach the shared
    checkout through git, or None."""
    analysis = analyse(command)
    if analysis.problems and re.search(r"\bgit\b", command):
        return f"cannot be read fully ({analysis.problems[0]}), so it cannot be checked that its git stays in the worktree"
    here: Path | None = start
    variables: dict[str, Word] = {}
    for simple in analysis.commands:
        _assigned(simple, variables)
        if not simple.words:
            continue
        name = command_name(simple.words[0])
        if name is None:
            return "runs a command whose name is computed at runtime, so it cannot be checked that its git stays in the worktree"
        if name in ("cd", "pushd", "popd"):
            here = _moved(here, simple.words, workspace)
            continue
        forms = deny_forms(simple)
        git = next((form for form in forms if command_name(form[0]) == "git"), None)
        if git is not None and (reason := _git_reason(git, simple, variables, here, workspace)):
            return reason
        for line in [line for form in forms for line in command_lines(form)][:_MAX_LINES]:
            if line is None:
                return "runs a command line computed at runtime, so it cannot be checked that its git stays in the worktree"
            if isinstance(line, str) and depth < 4 and (reason := _reason(line, workspace, here, depth + 1)):
                return reason
    return None


def _assigned(simple: SimpleCommand, variables: dict[str, Word]) -> None:
    """Note the git variables a bare assignment or `export` sets for the commands after it."""
    pairs = list(simple.assignments) if not simple.words else []
    if simple.words and command_name(simple.words[0]) in _DECLARES:
        for word in simple.words[1:]:
            name, equals, value = word.shown.partition("=")
            if equals:
                pairs.append((name, Word(value, None if word.text is None else value)))
    variables.update((name, value) for name, value in pairs if name in _VARIABLES)


def _git_reason(git: tuple[Word, ...], simple: SimpleCommand, variables: dict[str, Word], here: Path | None,
                workspace: Workspace) -> str | None:
    """Why this git command (its words from `git` on) reaches the shared checkout, or None."""
    given = dict(variables)
    given.update((name, value) for name, value in simple.assignments if name in _VARIABLES)
    for word in simple.words:  # `env GIT_DIR=... git`
        name, equals, value = word.shown.partition("=")
        if equals and name in _VARIABLES:
            given[name] = Word(value, None if word.text is None else value)
    for name, value in given.items():
        target = _path(value.text, here)
        if target is None:
            return f"sets {name} to {RUN_TIME}"
        if _shared(target, workspace):
            return f"sets {name} to the shared checkout ({value.text})"
    where = here
    words = list(git[1:])
    while words and words[0].shown.startswith("-"):
        option, equals, value = words.pop(0).shown.partition("=")
        if option not in _VALUE_OPTIONS:
            continue
        if not equals:
            value_word = words.pop(0) if words else Word("", "")
            value = value_word.text
        if option not in _REDIRECTS:
            continue
        target = _path(value, where)
        if target is None:
            return f"redirects git via {option} to {RUN_TIME}"
        if _shared(target, workspace):
            return f"redirects git to the shared checkout via {option}"
        if option == "-C":
            where = target
    if here is None:
        return f"changes directory to {RUN_TIME} before running git"
    if _shared(here, workspace):
        return f"changes directory to the shared checkout ({here}) before running git"
    return None


def _moved(here: Path | None, words: tuple[Word, ...], workspace: Workspace) -> Path | None:
    """Where `cd`/`pushd`/`popd` leaves the shell (None: decided at run time)."""
    name = command_name(words[0])
    operands = [word for word in words[1:] if not (word.text or "").startswith(("-", "+")) or word.text == "-"]
    if name == "popd" or any(word.text == "-" for word in operands) or name == "pushd" and len(operands) < len(words) - 1:
        return None
    if not operands:
        return Path(os.path.expanduser("~"))
    return _path(operands[0].text, here)


def _path(text: str | None, here: Path | None) -> Path | None:
    """`text` as a path from `here` (`~` expanded); None when run time decides it."""
    if text is None:
        return None
    expanded = os.path.expanduser(text)
    if os.path.isabs(expanded):
        return Path(os.path.normpath(expanded))
    return None if here is None else Path(os.path.normpath(here / expanded))


def _shared(path: Path, workspace: Workspace) -> bool:
    """Whether `path` (or where its symlinks lead) is in a shared checkout and not in the worktree."""
    def inside(candidate: str, folder: Path) -> bool:
        return any(candidate == form or candidate.startswith(form.rstrip(os.sep) + os.sep)
                   for form in {str(folder), os.path.realpath(folder)})

    for candidate in dict.fromkeys((str(path), os.path.realpath(path))):
        if inside(candidate, workspace.cwd):
            continue
        if any(inside(candidate, folder) for folder in workspace.shared):
            return True
    return False

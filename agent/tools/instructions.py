"""Instructions loaded on demand: when an agent (the main conversation or any subagent, Explore and
Plan included) reads, edits or writes a file below its working folder (with a tool, or with cat,
head, tail, sed or grep in a Bash command), the `CLAUDE.md` files of
the folders between the two, and the rules whose `paths` match the file, are attached after that
turn's tool results, as Claude Code 2.1.332 attaches them: one `<system-reminder>` text block per
file, `Contents of <path>:`, a blank line and the file's text, each block but the last ending in a
line break.

Each conversation gets a file once: what it was already given (at the start or since) is read back
from its own messages, so a subagent, a resumed session and the main conversation each keep their
own account, and the blocks are the same bytes every run. Per folder: `CLAUDE.md`,
`.claude/CLAUDE.md`, `CLAUDE.local.md`, then its rules that always apply; the outer folder first;
then the rules (of any level) the file matches, at most MAX_WAITING_GLOBS globs of them in all (one
warning a session when there are more). At most MAX_ATTACHED files per turn. A folder that really
lies outside the working folder (a link out of it, to another project's private CLAUDE.local.md)
gives none, nor do the folders inside it, with one warning.
"""

from __future__ import annotations

import logging
import os
import re
import shlex
from pathlib import Path
from typing import Any, Callable, Collection, Iterable

from agent.memory.files import Loader, MemoryFile, inside
from agent.memory.levels import Levels, load_folder, load_levels
from agent.memory.rules import Rule, within_globs
from agent.permissions.paths import normal_path, path_matches

log = logging.getLogger("agent")

MAX_ATTACHED = 40
FILE_TOOLS = {"Read": "file_path", "Edit": "file_path", "Write": "file_path", "NotebookEdit": "notebook_path"}
BASH_READERS = frozenset({"cat", "head", "tail", "sed", "grep"})  # the commands Claude Code was seen to notice
MAX_BASH_CHARS, MAX_BASH_FILES = 10_000, 20
_OPERATORS = re.compile(r"[|;&<>`\n]|\$\(")  # what makes a part more than one plain command
_OPEN = "<system-reminder>\nContents of "
_GIVEN = re.compile(r"^Contents of (\S.*) \([^()\n]*\):$", re.MULTILINE)  # an entry of the start's block


class Instructions:
    """A session's instruction files: those a conversation starts with, and those it is given on
    demand. `sources` are the setting sources (--setting-sources), `managed` the organisation's
    folder (None: none)."""

    def __init__(self, home: Path, sources: Collection[str], managed: Path | None,
                 excluded: Callable[[Path, str], bool] | None = None, added: Iterable[Path] = ()) -> None:
        self.home, self.sources, self.managed = Path(home), tuple(sources), managed
        self.excluded = excluded  # the files claudeMdExcludes leave out (agent.cli.instruction_settings)
        self.added = tuple(added)  # --add-dir folders whose files load too (agent.cli.instruction_settings)
        self._waiting: dict[Path, list[Rule]] = {}  # per working folder, read once
        self._started: set[str] = set()  # the real paths of the files any start loaded (see given_paths)
        self._warned = False  # that the rules a file may match held too many globs
        self._outside: set[Path] = set()  # folders below a working folder that link out of it (warned about)

    def levels(self, cwd: Path) -> Levels:
        """What a conversation in `cwd` starts with, and the rules that wait (agent.memory.levels),
        read now."""
        return load_levels(cwd, self.home, self.sources, self.managed, self.excluded, self.added)

    def at_start(self, cwd: Path) -> list[MemoryFile]:
        """The files a conversation in `cwd` starts with (agent.memory.levels)."""
        levels = self.levels(cwd)
        self._waiting.setdefault(Path(cwd), levels.waiting)
        self._started.update(os.path.realpath(file.path) for file in levels.files)
        return levels.files

    def attached(self, cwd: Path, messages: Iterable[dict[str, Any]], calls: list, results: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The text blocks to add after `results`, the tool results of `calls`, in a conversation
        in `cwd` whose messages so far are `messages`: the instructions of the files the calls read
        or edited that it has not been given yet."""
        roots = self._roots(cwd)
        touched = [path for call, result in zip(calls, results) for path in _touched(call, result, cwd, roots)]
        if not touched:
            return []
        given = given_paths(messages, self._started)
        loader = Loader(self.home, given, self.excluded)
        for path in touched:
            self._load_for(Path(cwd), path, loader)
        files = loader.loaded
        if len(files) > MAX_ATTACHED:
            log.warning(f"memory: {len(files)} instruction files apply to this turn's files; attaching the first {MAX_ATTACHED}")
            files = files[:MAX_ATTACHED]
        texts = [f"<system-reminder>\nContents of {file.path}:\n\n{file.text}\n</system-reminder>" for file in files]
        return [{"type": "text", "text": text + ("\n" if index < len(texts) - 1 else "")}
                for index, text in enumerate(texts)]

    def _load_for(self, cwd: Path, path: Path, loader: Loader) -> None:
        """Into `loader`: the folders' files between `cwd` and `path`, then the rules `path` matches."""
        waiting = list(self._waiting[cwd] if cwd in self._waiting else self._start_rules(cwd))
        root = next((root for root in self._roots(cwd) if normal_path(root) in path.parents), Path(cwd))
        for folder in _folders_between(root, path):
            if not inside(real := os.path.realpath(folder), root):  # a link out of its folder: not one of its own
                if folder not in self._outside:
                    self._outside.add(folder)
                    log.warning(f"memory: not reading the instructions of {folder}: it leads to {real}, outside {root}")
                break  # nor those of the folders inside it
            waiting += load_folder(folder, self.sources, loader, local_last=False)
        waiting, left_out = within_globs(waiting, f" for {path}", warn=not self._warned)  # warned once a session
        self._warned = self._warned or left_out > 0
        for rule in waiting:
            if _applies(rule, path, self.home) and loader.claim(rule.path, rule.fence, rule.kind):
                loader.load(rule.path, rule.kind, rule.fence, text=rule.text)

    def _roots(self, cwd: Path) -> tuple[Path, ...]:
        """The folders whose files' instructions come on demand: the working one, then the --add-dir ones."""
        return (Path(cwd), *self.added)

    def _start_rules(self, cwd: Path) -> list[Rule]:
        """The waiting rules of a working folder no conversation started in (a worktree's); the
        files a start there loads count as ones a start block may name."""
        if cwd not in self._waiting:
            levels = self.levels(cwd)
            self._waiting[cwd] = levels.waiting
            self._started.update(os.path.realpath(file.path) for file in levels.files)
        return self._waiting[cwd]


def given_paths(messages: Iterable[dict[str, Any]], started: Collection[str]) -> set[str]:
    """The real paths of the instruction files a conversation was given: every block attached
    since its start (read from its user messages' text: a block's first line names its file), and
    the entries of its start's block ("Contents of <path> (<kind>):") that name a file a start
    loads (`started`, real paths). A file's text in that block is someone else's and may hold
    lines shaped as entries: taken at their word, a repository's CLAUDE.md could name the
    organisation's rule for `secret/**`, which would then never be attached."""
    found, entries = [], []
    for message in messages:
        content = message.get("content") if isinstance(message, dict) and message.get("role") == "user" else None
        for block in content if isinstance(content, list) else []:
            text = block.get("text") if isinstance(block, dict) and block.get("type") == "text" else None
            if not isinstance(text, str) or not text.startswith("<system-reminder>\n"):
                continue
            if text.startswith(_OPEN):  # one attached file: its path is the rest of that line
                line = text[len(_OPEN):text.find("\n", len(_OPEN))]
                found += [line[:-1]] if line.endswith(":") else []
            else:
                entries += _GIVEN.findall(text)
    return {os.path.realpath(path) for path in found} | ({os.path.realpath(path) for path in entries} & set(started))


def _touched(call: Any, result: dict[str, Any], cwd: Path, roots: Iterable[Path] = ()) -> list[Path]:
    """The files below one of `roots` (`cwd`, and the --add-dir folders whose files load; never a
    root itself: its instructions came at the start) that a successful call worked on: a Read,
    Edit, Write or NotebookEdit's file, or the files a Bash command reads with cat, head, tail,
    sed or grep (`bash_reads`)."""
    name, arguments = getattr(call, "name", ""), getattr(call, "arguments", None) or {}
    if result.get("is_error"):
        return []
    if name == "Bash":
        values = bash_reads(arguments.get("command"), cwd)
    else:
        value = arguments.get(FILE_TOOLS[name]) if name in FILE_TOOLS else None
        values = [value] if isinstance(value, str) and value.strip() and "\0" not in value else []
    tops = [normal_path(Path(root)) for root in (roots or (cwd,))]
    paths = [normal_path(Path(cwd) / os.path.expanduser(value.strip())) for value in values]
    return [path for path in paths if any(top in path.parents for top in tops)]


def bash_reads(command: Any, cwd: Path) -> list[str]:
    """The files a Bash command reads as Claude Code 2.1.332 notices them: each `&&`-joined part
    that is one plain command (no pipe, redirection, substitution or other operator) run by cat,
    head, tail, sed or grep, and of its words those naming an existing file (relative to `cwd`).
    `cd x && cat y` reads `y` from `cwd`, as Claude Code takes it; `wc`, `ls` and pipelines count
    for nothing. At most MAX_BASH_FILES, from a command of at most MAX_BASH_CHARS."""
    if not isinstance(command, str) or len(command) > MAX_BASH_CHARS or "\0" in command:
        return []
    found = []
    for part in command.split("&&"):
        if _OPERATORS.search(part):
            continue
        try:
            words = shlex.split(part)
        except ValueError:  # an unclosed quote: not a command we can read
            continue
        if not words or os.path.basename(words[0]) not in BASH_READERS:
            continue
        found += [word for word in words[1:] if not word.startswith("-") and os.path.isfile(Path(cwd) / word)]
    return found[:MAX_BASH_FILES]


def _applies(rule: Rule, path: Path, home: Path) -> bool:
    """Whether the file at the absolute `path` is one `rule` is about (its globs are gitignore-like,
    relative to its base folder, matched in linear time: agent.permissions.paths)."""
    return any(path_matches(pattern, path, rule.base, home) for pattern in rule.patterns)


def _folders_between(cwd: Path, path: Path) -> list[Path]:
    """The folders below `cwd` (a working or --add-dir folder) that hold `path`, the outer first."""
    root = normal_path(Path(cwd))
    return [folder for folder in reversed(path.parents) if root in folder.parents]

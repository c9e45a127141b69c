"""`/doctor` (at the prompt, and `-p "/doctor"`) and the `doctor` subcommand: a report of where this
session's agent definitions and instruction files come from, and what is wrong with them.

Claude Code 2.1.332's `/doctor` hands a long checklist to the model, and its `claude doctor`
checks the installation; the seeds ask that `/doctor` name an agent defined twice in one folder
tree, where one file is loaded by read order. This report is ours, made without the model (so it
sends no request and records nothing): each agent folder with its files, every name defined twice
in one tree with the file that is used (the first in sorted path order) and those ignored, the
files skipped and why, which definition wins a name several folders define, then the instruction
files a conversation starts with and the rules waiting for files they match.
"""

from __future__ import annotations

import argparse
import logging
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Iterator, Mapping

from agent.memory import KINDS, managed_root
from agent.skills.cache import FrontmatterCache
from agent.skills.frontmatter import NO_FRONTMATTER, FrontmatterError
from agent.subagents.authoring import QuietSkip
from agent.subagents.discovery import agent_files, agent_from_fields
from agent.tools.instructions import Instructions

log = logging.getLogger("agent")

COMMAND = "/doctor"


def run_doctor(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    """The `doctor` subcommand and `-p "/doctor"`: print the report for the working folder as the
    run's flags (--setting-sources, --add-dir, --agents) would load it; exit code 0."""
    from agent.cli.agent_folders import AgentFolders
    from agent.cli.environment import Environment
    from agent.cli.instruction_settings import session_instructions
    from agent.cli.sources import setting_sources
    from agent.permissions.settings import added_directory
    from agent.subagents.definitions import BUILTIN_AGENTS
    from agent.subagents.discovery import discover_agents

    cwd, home = Path.cwd(), Path.home()
    sources = setting_sources(args.setting_sources)
    added = tuple(added_directory(folder, cwd) for folder in args.add_dirs)
    managed = managed_root(env)
    cache = FrontmatterCache(None)
    agents = discover_agents(cwd, home, args.agents, cache, sources, added, managed=managed)
    folders = AgentFolders(args, cwd, home, cache, sources, added, True, BUILTIN_AGENTS, managed).folders()
    if args.record or args.replay:
        log.warning(f"{COMMAND} sends no request: there is nothing to record or replay")
    instructions = session_instructions(args, Environment(env), cwd, home, sources, managed, added)
    print("\n".join(doctor_lines(folders, agents, cwd, instructions)))
    return 0


def session_doctor_lines(session) -> list[str]:
    """The report for a running session (`/doctor` at the prompt): its agents and agent folders as
    they are now, and its working folder's instruction files."""
    if session.reread_agents is not None:  # a file written since the last message counts too
        session.reread_agents(session)
    folders = session.reread_agents.folders() if session.reread_agents is not None else []
    instructions = session.instructions or Instructions(Path.home(), (), None)
    return doctor_lines(folders, session.agents, session.workspace.cwd, instructions)


def doctor_lines(folders: Iterable[tuple[str, Path]], agents: Mapping, cwd: Path,
                 instructions: Instructions) -> list[str]:
    """The report's lines: the agent `folders` (kind, folder; in precedence order), the session's
    `agents` (name -> definition), and the instruction files of a conversation in `cwd`, as the
    session's `instructions` read them."""
    lines, problems = ["Agent definitions"], 0
    defined: dict[str, list[tuple[str, Path]]] = {}
    for kind, root in folders:
        found, skipped = _definitions_in(root, kind)
        lines.append(f"  {kind:<9} {root}  ({_count(len(found) + len(skipped), 'file')})")
        by_name: dict[str, list[Path]] = {}
        for name, path in found:
            by_name.setdefault(name, []).append(path)
            defined.setdefault(name, []).append((kind, path))
        for name, paths in by_name.items():
            if len(paths) > 1:
                problems += 1
                ignored = ", ".join(str(path.relative_to(root)) for path in paths[1:])
                lines.append(f"    ✗ agent {name!r} is defined {len(paths)} times in this folder: "
                             f"{paths[0].relative_to(root)} is used, {ignored} ignored (files are read in sorted order)")
        for path, reason, quiet in skipped:  # a quiet one is documentation, or skipped as Claude Code skips it
            problems += not quiet
            lines.append(f"    {'-' if quiet else '✗'} {path.relative_to(root)} is skipped: {reason}")
    for name, definition in agents.items():
        others = [f"the {kind} agent in {path}" for kind, path in dict.fromkeys(defined.get(name, []))
                  if path != definition.path]
        if others:
            where = f" in {definition.path}" if definition.path else " (--agents)"
            lines.append(f"  agent {name!r}: the {definition.source} agent{where} is used over {', '.join(others)}")
    levels = instructions.levels(cwd)
    lines += ["", "Instruction files a conversation starts with"]
    lines += [f"  {file.path} ({KINDS[file.kind]})" for file in levels.files] or ["  none"]
    if levels.waiting:
        lines.append(f"  and {_count(len(levels.waiting), 'rule')} waiting for the files they match: "
                     + ", ".join(str(rule.path) for rule in levels.waiting))
    if instructions.managed is not None:
        lines.append(f"  (the organisation's folder: {instructions.managed})")
    lines += ["", f"{_count(problems, 'problem')} found" if problems else "No problems found"]
    return lines


def _definitions_in(root: Path, kind: str) -> tuple[list[tuple[str, Path]], list[tuple[Path, str, bool]]]:
    """The agent names defined under `root` with their files, in read order, and the files that
    cannot be used with why and whether that is silent (documentation, say); read quietly (the
    session's start has warned about them already)."""
    found, skipped = [], []
    cache = FrontmatterCache(None)
    with _quiet():
        for path in agent_files(root):
            try:
                definition = agent_from_fields(cache.read(path, strict=True), path, kind)
            except FrontmatterError as error:
                skipped.append((path, str(error), isinstance(error, QuietSkip) or str(error) == NO_FRONTMATTER))
            except OSError as error:
                skipped.append((path, f"cannot read it ({error.strerror or error})", False))
            else:
                found.append((definition.name, path))
    return found, skipped


@contextmanager
def _quiet() -> Iterator[None]:
    """The `agent` logger holds its warnings while the report reads the files again."""
    drop = logging.Filter("nothing")  # a filter naming no logger lets no record through
    log.addFilter(drop)
    try:
        yield
    finally:
        log.removeFilter(drop)


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"

"""The folders a session's agent definitions come from: read again before each turn when anything
in them changed, so an agent file written or edited during a session (by the person, or by the
model) is callable from the next message, as Claude Code picks up changes to its agent folders;
and listed by `/agents`, with each agent's file.

A re-read narrows the definitions exactly as the session's start did (an untrusted workspace's
project agents get no hooks, wider permissionMode, memory grants or inline servers), and a
problem it finds is said once per session, not at every turn.
"""

from __future__ import annotations

import argparse
import logging
import os
from pathlib import Path
from typing import Collection

from agent.errors import AgentError
from agent.skills.cache import FrontmatterCache
from agent.subagents.agent_memory import without_memory_grants
from agent.subagents.discovery import agents_without_project_grants, discover_agents, managed_agents_folder
from agent.subagents.servers import withheld_servers
from agent.workspace import project_folders

log = logging.getLogger("agent")


def usable_agents(agents: dict, cwd: Path, home: Path, trusted: bool, strict_mcp: bool) -> dict:
    """The discovered `agents` as the session may use them: in a workspace that is not `trusted`,
    project agents without what would let the repository grant itself more (hooks, a wider
    permissionMode, memory writes), and without the inline servers they may not start."""
    if not trusted:
        agents = without_memory_grants(agents_without_project_grants(agents, cwd, home), cwd, home)
    return withheld_servers(agents, cwd, home, trusted, strict_mcp)


class AgentFolders:
    """Where one session's agent files live, and a re-read of them (`session.reread_agents`)."""

    def __init__(self, args: argparse.Namespace, cwd: Path, home: Path, cache: FrontmatterCache,
                 sources: Collection[str], added: tuple[Path, ...], trusted: bool, builtins: dict,
                 managed: Path | None = None) -> None:
        """The folders as the session's start read them: the same flags, setting `sources`,
        --add-dir folders (`added`), workspace trust, built-in agents and organisation's folder."""
        self.args, self.cwd, self.home, self.cache, self.managed = args, cwd, home, cache, managed
        self.sources, self.added, self.trusted, self.builtins = sources, added, trusted, builtins
        self.seen = self._state()
        self.said: set[str] = set()  # the warnings re-reads have given

    def folders(self) -> list[tuple[str, Path]]:
        """`(kind, folder)` for every folder agent files are read from, in precedence order: the
        organisation's, the project's (the working folder's, then each parent's up to the
        repository root), the --add-dir folders', then the user's."""
        found = [] if self.managed is None else [("managed", managed_agents_folder(self.managed))]
        if "project" in self.sources:
            found += [("project", folder / ".claude" / "agents") for folder in project_folders(self.cwd)]
            found += [("--add-dir", folder / ".claude" / "agents") for folder in self.added]
        if "user" in self.sources:
            found.append(("user", self.home / ".claude" / "agents"))
        return found

    def __call__(self, session) -> None:
        """Read the folders again if any file in them changed since the last read, and put the
        definitions in place when they differ (session.use_agents)."""
        state = self._state()
        if state == self.seen:
            return
        self.seen = state
        said_once = _SaidOnce(self.said)
        log.addFilter(said_once)
        try:
            found = discover_agents(self.cwd, self.home, self.args.agents, self.cache, self.sources, self.added,
                                    builtins=self.builtins, managed=self.managed)
            agents = usable_agents(found, self.cwd, self.home, self.trusted, self.args.strict_mcp_config)
        except AgentError as error:  # an --agents file gone bad since the start: the session keeps its agents
            log.warning(f"cannot read the agent definitions again: {error}")
            return
        finally:
            log.removeFilter(said_once)
        if agents != session.agents:
            log.info(f"agent definitions changed: {', '.join(sorted(set(agents) ^ set(session.agents))) or 'edited'}")
            session.use_agents(agents)

    def _state(self) -> frozenset[tuple]:
        """What identifies the folders' Markdown files as they are now: path, size, times, inode."""
        state = set()
        for _, root in self.folders():
            for folder, _, files in os.walk(root):  # symlinked folders are not followed, as in discovery
                for name in files:
                    if name.endswith(".md"):
                        path = os.path.join(folder, name)
                        try:
                            stat = os.stat(path)
                        except OSError:
                            continue
                        state.add((path, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino))
        return frozenset(state)


class _SaidOnce(logging.Filter):
    """Lets a warning through only the first time a session's re-reads give it."""

    def __init__(self, said: set[str]) -> None:
        super().__init__()
        self.said = said

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING:
            return True
        message = record.getMessage()
        if message in self.said:
            return False
        self.said.add(message)
        return True


def agents_listing(session, folders: AgentFolders | None) -> list[str]:
    """What `/agents` prints: where agent definitions live (each folder, and whether it holds any
    yet), how to add one, then every agent with where it comes from and its file."""
    lines = ["Agents are Markdown files with YAML frontmatter (name and description; the body is the agent's "
             "prompt). Add or edit one in these folders, or ask to have one written; a change applies from the "
             "next message:"]
    for kind, folder in folders.folders() if folders is not None else []:
        count = sum(1 for _, _, files in os.walk(folder) for name in files if name.endswith(".md"))
        held = f"{count} file{'s' if count != 1 else ''}" if count else ("empty" if folder.is_dir() else "not created yet")
        lines.append(f"  {kind:<9} {folder}  ({held})")
    lines.append("Agents:")
    for definition in session.agents.values():
        where = f"  {definition.path}" if definition.path else ""
        lines.append(f"  {definition.name} ({definition.source}){where}")
    return lines

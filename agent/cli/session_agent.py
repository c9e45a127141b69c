"""A session run as an agent: which agent (`--agent`, a resumed session's, or the settings'
`agent` field), and the transcript entry that lets `--resume` run the session as it again.

Claude Code writes `{"type": "agent-setting", "agentSetting": <name>}` into the session's
transcript; reading it back is how a resumed session knows its agent."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any, Collection, Mapping

from agent.errors import UsageError
from agent.permissions.settings import settings_documents
from agent.transcripts import find_session
from agent.workspace import TRANSCRIPT_FILE_BYTES, append_text, load_json, read_bounded

log = logging.getLogger("agent")

SETTING_TYPE = "agent-setting"


def session_agent(args, agents: Mapping[str, Any], cwd: Path, home: Path, sources: Collection[str]):
    """The AgentDefinition the session runs as, or None: `--agent NAME` (an unknown name is bad
    input), else the agent a resumed session ran as (one warning when it no longer exists: the
    session goes on as itself), else the settings' `agent` field (one warning when unknown)."""
    if args.agent is not None:
        name = args.agent.strip()
        if name not in agents:
            raise UsageError(f"--agent: no agent named {name!r}; available agents: {', '.join(agents)}")
        return agents[name]
    resumed = _resumed_agent(args, cwd, home)
    if resumed is not None:
        if resumed in agents:
            return agents[resumed]
        log.warning(f"the session ran as the agent {resumed!r}, which no longer exists; it goes on without it")
        return None
    where, name = settings_agent(cwd, home, sources, args.settings)
    if name is None:
        return None
    if name not in agents:
        log.warning(f"ignoring agent {name!r} in {where}: no agent has that name (available: {', '.join(agents)})")
        return None
    return agents[name]


def settings_agent(cwd: Path, home: Path, sources: Collection[str], extra_settings: str | None) -> tuple[str, str | None]:
    """Where the settings' `agent` field is set and the name it gives (the most specific file's,
    --settings last); a value that is not a name is one warning and left out."""
    where, name = "", None
    for path, data, _ in settings_documents(cwd, home, sources, extra_settings):
        value = data.get("agent")
        if value is None:
            continue
        if isinstance(value, str) and value.strip() and len(value) <= 256:
            where, name = path, value.strip()
        else:
            log.warning(f"ignoring agent in {path}: it must be an agent's name")
    return where, name


def record_agent(transcripts, definition) -> None:
    """Note in the session's transcript that it runs as `definition` (nothing when not persisting
    or not an agent's session), so `--resume` runs it as that agent again."""
    if transcripts is None or definition is None:
        return
    entry = {"type": SETTING_TYPE, "agentSetting": definition.name, "sessionId": transcripts.session_id}
    path = transcripts.folder / f"{transcripts.session_id}.jsonl"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        append_text(path, json.dumps(entry, ensure_ascii=False) + "\n")
    except OSError as exc:  # the session still runs; only a later --resume forgets the agent
        log.warning(f"cannot note the session's agent in {path}: {exc.strerror or exc}")


def _resumed_agent(args, cwd: Path, home: Path) -> str | None:
    """The agent the session being resumed (--resume, --continue) last ran as, from its
    transcript (untrusted: bounded, and only a name of text is taken)."""
    session_id = getattr(args, "resumed_session", None)
    path = find_session(home, cwd, session_id) if session_id else None
    if path is None:
        return None
    try:
        text = read_bounded(path, TRANSCRIPT_FILE_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return None  # reading the conversation has already failed or warned
    name = None
    for line in text.split("\n"):
        if SETTING_TYPE not in line:
            continue
        try:
            entry = load_json(line, "a transcript line")
        except ValueError:
            continue
        if isinstance(entry, dict) and entry.get("type") == SETTING_TYPE:
            value = entry.get("agentSetting")
            name = value if isinstance(value, str) and 0 < len(value) <= 256 else name
    return name

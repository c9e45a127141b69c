"""Transcripts: each conversation of a run appended to a JSONL file after every turn, where Claude
Code keeps them, so a crash or Ctrl-C leaves a record.

Main conversation: `~/.claude/projects/<cwd-slug>/<session-id>.jsonl`; each subagent:
`~/.claude/projects/<cwd-slug>/<session-id>/subagents/agent-<id>.jsonl`.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
import uuid
from pathlib import Path
from typing import Any

log = logging.getLogger("agent")


def project_slug(cwd: Path) -> str:
    """Claude Code's folder name for a project: the absolute path, every other character a dash."""
    return re.sub(r"[^A-Za-z0-9]", "-", str(cwd))


class Transcripts:
    """The transcript files of one run."""

    def __init__(self, home: Path, cwd: Path, session_id: str | None = None):
        self.session_id = session_id or str(uuid.uuid4())
        self.cwd = cwd
        self.folder = home / ".claude" / "projects" / project_slug(cwd)
        self._failed = threading.Event()  # warn once, then stop trying

    def main(self) -> "Transcript":
        """The main conversation's transcript."""
        return Transcript(self, self.folder / f"{self.session_id}.jsonl", agent_id=None, agent_type="main")

    def subagent(self, agent_type: str) -> "Transcript":
        """A new subagent's transcript, under the session's subagents folder."""
        agent_id = "a" + uuid.uuid4().hex[:16]
        path = self.folder / self.session_id / "subagents" / f"agent-{agent_id}.jsonl"
        return Transcript(self, path, agent_id=agent_id, agent_type=agent_type)


class Transcript:
    """One conversation's JSONL file; `append` writes a message as one line."""

    def __init__(self, owner: Transcripts, path: Path, agent_id: str | None, agent_type: str):
        self.owner = owner
        self.path = path
        self.agent_id = agent_id
        self.agent_type = agent_type

    def append(self, message: dict[str, Any]) -> None:
        """Append one message of the conversation (never raises: a transcript must not end a run)."""
        if self.owner._failed.is_set():
            return
        entry = {
            "type": message.get("role"),
            "message": message,
            "sessionId": self.owner.session_id,
            "cwd": str(self.owner.cwd),
            "isSidechain": self.agent_id is not None,
            "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        if self.agent_id:
            entry.update(agentId=self.agent_id, agentType=self.agent_type)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a", encoding="utf-8") as out:
                out.write(json.dumps(entry, ensure_ascii=False) + "\n")
        except (OSError, ValueError) as exc:  # ValueError: text that cannot be encoded
            self.owner._failed.set()
            log.warning("transcripts disabled: cannot write %s (%s)", self.path, getattr(exc, "strerror", None) or exc)

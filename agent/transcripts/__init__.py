"""Transcripts: each conversation of a run appended to a JSONL file after every turn, where Claude
Code keeps them, so a crash or Ctrl-C leaves a record, and `--continue` / `--resume` can pick a
session up again.

Main conversation: `~/.claude/projects/<cwd-slug>/<session-id>.jsonl`; each subagent:
`~/.claude/projects/<cwd-slug>/<session-id>/subagents/agent-<id>.jsonl`. Each line has its `uuid`
and its `parentUuid` (the line before it in the conversation), as Claude Code writes them: a
resume at an earlier message (--resume-session-at) branches there, and reading a transcript back
follows the branch its last line is on. A compaction is marked by a `compact_boundary` line
(`marks`): reading back starts after the last one.

May import: `conversation`, `errors`, `secrets`, `workspace` (it is in the bottom layer).
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from agent.conversation import repaired
from agent.errors import UsageError
from agent.secrets import redact
from agent.transcripts.marks import boundary_entry, is_boundary, kept_by
from agent.transcripts.places import (AGENT_ID, SESSION_ID, agent_id_for, find_session, latest_session,  # noqa: F401
                                      project_folder, project_slug, recent_sessions)
from agent.workspace import TRANSCRIPT_FILE_BYTES, append_text, load_json, open_regular, read_bounded, special_file

log = logging.getLogger("agent")


def read_conversation(path: Path) -> list[dict[str, Any]]:
    """The messages of a main transcript, in order, made fit to send again (see `messages_of`)."""
    return messages_of(conversation_entries(path), path)


def conversation_entries(path: Path) -> list[dict[str, Any]]:
    """The lines of a transcript that hold the messages of its conversation, in order: a line whose
    `parentUuid` is an earlier line of the conversation continues from there (the lines after
    that one were a branch given up, and are left out); any other line follows the one before it
    (older transcripts have no uuids). Lines that are not messages are skipped. Only a regular
    file of at most TRANSCRIPT_FILE_BYTES is read (OSError otherwise); a line nested deeper than
    the JSON limit is skipped like any line that is not JSON. A `compact_boundary` line (a
    compaction) starts the conversation anew: only the lines after it are read, a Claude Code
    transcript's kept messages put back after its summary."""
    chain: list[dict[str, Any]] = []
    where: dict[str, int] = {}  # uuid -> its place in `chain`
    preserved = None  # after a Claude Code compact_boundary: (its summary's uuid, the messages kept)
    text = read_bounded(path, TRANSCRIPT_FILE_BYTES).decode("utf-8", errors="replace")
    for line in text.split("\n"):  # not splitlines: U+2028 inside a JSON string is no line break
        try:
            entry = load_json(line, "a transcript line")
        except ValueError:
            continue
        if is_boundary(entry):
            before = {e.get("uuid"): e for e in chain if isinstance(e.get("uuid"), str)}
            chain, where = [], {}  # the conversation goes on from the summary after it
            preserved = kept_by(entry, before)
            continue
        if not isinstance(entry, dict) or "message" not in entry:
            continue
        parent = entry.get("parentUuid")
        at = where.get(parent) if isinstance(parent, str) else None
        if at is not None and at < len(chain) - 1:
            for dropped in chain[at + 1:]:  # each line is dropped at most once
                where.pop(dropped.get("uuid"), None)
            del chain[at + 1:]
        if isinstance(entry.get("uuid"), str):
            where[entry["uuid"]] = len(chain)
        chain.append(entry)
        if preserved and entry.get("uuid") == preserved[0]:  # Claude Code's kept messages follow its summary
            for kept in preserved[1]:
                where[kept["uuid"]] = len(chain)
                chain.append(kept)
            where[preserved[0]] = len(chain) - 1  # what follows the summary follows them
            preserved = None
    return chain



def messages_of(entries: list[dict[str, Any]], path: Path) -> list[dict[str, Any]]:
    """The messages of transcript `entries`, made fit to send again (a transcript is untrusted:
    see `conversation.repaired`); what had to be dropped is one warning naming the session."""
    messages, dropped = repaired([entry["message"] for entry in entries])
    if dropped:
        log.warning(f"session {path.stem}: {dropped} malformed message part{'s' if dropped != 1 else ''} "
                    "of its transcript left out")
    return messages


class Transcripts:
    """The transcript files of one run. A device, FIFO or socket where the main transcript goes is
    a UsageError here, before any request (appending would write into it or wait forever)."""

    def __init__(self, home: Path, cwd: Path, session_id: str | None = None):
        self.session_id = session_id or str(uuid.uuid4())
        self.home = home
        self.cwd = cwd
        self.folder = project_folder(home, cwd)
        self._failed = threading.Event()  # once a write failed, stop trying
        self.unwritten: str | None = None  # what could not be written, and why: the run ends saying so
        self.mirror: Any = None  # mirror(path, line): every line as written (--session-mirror)
        self._latest: dict[Path, str] = {}  # each file's latest uuid: the parentUuid of its next line
        self._carried: list[dict[str, Any]] = []  # a fork's earlier lines, written before its first new one
        self._looked_at: set[Path] = set()  # files whose last line was checked for a line break
        self._lock = threading.Lock()
        main = self.folder / f"{self.session_id}.jsonl"
        if kind := special_file(main):
            raise UsageError(f"the session transcript {main} is {kind}, not a regular file; remove it or "
                             "run with --no-session-persistence")

    def main(self) -> "Transcript":
        """The main conversation's transcript."""
        return Transcript(self, self.folder / f"{self.session_id}.jsonl", agent_id=None, agent_type="main")

    def continue_from(self, entries: list[dict[str, Any]], carry: bool = False) -> None:
        """Continue the main conversation after `entries` (a transcript's, see
        `conversation_entries`): its next line's parent is their last one. With `carry` they are
        written into this session's transcript before its first new line (a fork's copy of the
        conversation it continues, written as the run's own lines are, so a mirror sees them too)."""
        last = entries[-1].get("uuid") if entries else None
        with self._lock:
            if isinstance(last, str):
                self._latest[self.main().path] = last
            self._carried = [{**entry, "sessionId": self.session_id} for entry in entries] if carry else []

    def _break_first(self, path: Path) -> str:
        """"\n" when the file at `path`, about to be written for the first time in this run, ends
        without one (a crash cut its last line off): the next line then starts a line of its own,
        instead of being glued to that broken one and lost with it. "" otherwise."""
        with self._lock:
            if path in self._looked_at:
                return ""
            self._looked_at.add(path)
        try:
            with open_regular(path) as handle:
                size = os.fstat(handle.fileno()).st_size
                handle.seek(max(0, size - 1))
                last = handle.read(1)
        except OSError:  # none yet (or no regular file, which the write refuses)
            return ""
        return "\n" if last not in (b"", b"\n") else ""

    def _take_carried(self) -> list[dict[str, Any]]:
        with self._lock:
            carried, self._carried = self._carried, []
        return carried

    def subagent(self, agent_type: str, agent_id: str, name: str | None = None, model: str | None = None,
                 effort: str | None = None) -> "Transcript":
        """The transcript of subagent `agent_id`, under the session's subagents folder (a
        continued agent's file grows); every line also says its `name` and `model` (and the
        `effort` its Agent call asked for), so the agent can be reached and continued as it was
        after a restart."""
        extra = {"agentName": name or agent_type, "model": model, **({"effort": effort} if effort else {})}
        return Transcript(self, self.subagent_path(agent_id), agent_id=agent_id, agent_type=agent_type,
                          extra=extra if model else {})

    def subagent_path(self, agent_id: str) -> Path:
        """Where subagent `agent_id`'s transcript is."""
        return self.folder / self.session_id / "subagents" / f"agent-{agent_id}.jsonl"

    def subagents(self) -> list[dict[str, Any]]:
        """The subagents this session's transcripts hold, oldest first: each one's agentId,
        agentType, agentName and model as its first line says (files whose first line does not
        say them are none; the files are untrusted), and the effort it gives, if any (a text,
        checked by whoever uses it)."""
        folder = self.folder / self.session_id / "subagents"
        try:
            entries = [e for e in os.scandir(folder) if e.name.startswith("agent-") and e.name.endswith(".jsonl")
                       and AGENT_ID.fullmatch(e.name[6:-6]) and e.is_file(follow_symlinks=False)]
        except OSError:
            return []
        found = []
        for entry in sorted(entries, key=lambda e: (_mtime(e), e.name))[:_MAX_AGENTS]:
            first = _first_line(Path(entry.path))
            fields = {key: first.get(key) for key in ("agentId", "agentType", "agentName", "model")}
            if fields["agentId"] == entry.name[6:-6] and all(isinstance(v, str) and 0 < len(v) <= 256 for v in fields.values()):
                effort = first.get("effort")
                found.append({**fields, **({"effort": effort} if isinstance(effort, str) and len(effort) <= 16 else {})})
        return found


class Transcript:
    """One conversation's JSONL file; `append` writes a message as one line."""

    def __init__(self, owner: Transcripts, path: Path, agent_id: str | None, agent_type: str,
                 extra: dict[str, Any] | None = None):
        self.owner = owner
        self.path = path
        self.agent_id = agent_id
        self.agent_type = agent_type
        self.extra = extra or {}

    @property
    def last_uuid(self) -> str | None:
        """The uuid of the latest line written (a stream-json line of the message says it too)."""
        with self.owner._lock:
            return self.owner._latest.get(self.path)

    def compact_boundary(self, trigger: str, pre_tokens: int, post_tokens: int, duration_ms: int) -> str:
        """Mark a compaction (`trigger`: manual or auto) as Claude Code does: a `system`
        `compact_boundary` line that starts a new chain (its logicalParentUuid is the line before
        it); the conversation read back starts after it. Returns its uuid."""
        with self.owner._lock:
            entry_uuid, parent = str(uuid.uuid4()), self.owner._latest.get(self.path)
            self.owner._latest[self.path] = entry_uuid
        entry = boundary_entry(entry_uuid, parent, trigger, {"preTokens": pre_tokens, "durationMs": duration_ms,
                                                             "postTokens": post_tokens})
        entry.update(isSidechain=self.agent_id is not None, sessionId=self.owner.session_id, cwd=str(self.owner.cwd))
        if self.agent_id:
            entry.update(agentId=self.agent_id, agentType=self.agent_type, **self.extra)
        self.write(entry)
        return entry_uuid

    def append(self, message: dict[str, Any], marks: dict[str, Any] | None = None) -> None:
        """Append one message of the conversation (never raises: a transcript must not end a run);
        `marks` are extra fields of its line (isCompactSummary on a compacted conversation's first)."""
        for carried in self.owner._take_carried() if self.agent_id is None else []:
            self.write(carried)
        with self.owner._lock:
            entry_uuid, parent = str(uuid.uuid4()), self.owner._latest.get(self.path)
            self.owner._latest[self.path] = entry_uuid
        entry = {
            "type": message.get("role"),
            "message": message,
            "uuid": entry_uuid,
            "parentUuid": parent,
            "sessionId": self.owner.session_id,
            "cwd": str(self.owner.cwd),
            "isSidechain": self.agent_id is not None,
            "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        if self.agent_id:
            entry.update(agentId=self.agent_id, agentType=self.agent_type, **self.extra)
        self.write({**entry, **(marks or {})})

    def write(self, entry: dict[str, Any]) -> None:
        """Write `entry` as one line, redacted, and hand it to the mirror (a failed write never raises;
        a file a crash left with its last line cut off gets a line break first)."""
        if self.owner._failed.is_set():
            return
        line = redact(json.dumps(entry, ensure_ascii=False))
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            append_text(self.path, self.owner._break_first(self.path) + line + "\n")
        except (OSError, ValueError) as exc:  # a full disk: the file keeps its whole lines, the run goes on
            if not self.owner._failed.is_set():
                self.owner._failed.set()
                self.owner.unwritten = f"the transcript {self.path} ({getattr(exc, 'strerror', None) or exc})"
            return
        if self.owner.mirror is not None:
            self.owner.mirror(self.path, line)


_MAX_AGENTS = 1000  # subagent transcripts of one session that are looked at
_FIRST_LINE_BYTES = 64 * 1024


def _mtime(entry: os.DirEntry) -> float:
    try:
        return entry.stat(follow_symlinks=False).st_mtime
    except OSError:  # gone since it was listed
        return 0.0


def _first_line(path: Path) -> dict[str, Any]:
    """The first line of a transcript as a JSON object ({} when it is none)."""
    try:
        with open(path, "rb") as handle:
            line = handle.read(_FIRST_LINE_BYTES).split(b"\n", 1)[0]
        entry = load_json(line.decode("utf-8", errors="replace"), "a transcript line")
    except (OSError, ValueError):
        return {}
    return entry if isinstance(entry, dict) else {}

"""Which session a run is: a new one, or an earlier one continued (--continue, --resume), as
Claude Code 2.1.332 continues it: only up to one of its messages with --resume-session-at (the
turns after it are left behind: the transcript goes on from that message, and reading it back
follows the branch its last line is on), under a new session id with --fork-session (the new
transcript starts with a copy of the conversation it continues; the earlier one stays as it was),
that id given by --session-id when it is."""

from __future__ import annotations

import argparse
import uuid
from pathlib import Path
from typing import Any

from agent.cli.options import PICK_SESSION
from agent.errors import UsageError
from agent.transcripts import (SESSION_ID, Transcripts, conversation_entries, find_session, latest_session,
                               messages_of)


def sessions(args: argparse.Namespace, home: Path, cwd: Path) -> tuple[str, Transcripts | None, list[dict[str, Any]]]:
    """This run's session id, the transcripts it writes (None with --no-session-persistence) and,
    for --continue or --resume, the conversation it continues."""
    session_id, history, entries, forked = args.session_id, [], [], False
    if session_id is not None:
        if not SESSION_ID.fullmatch(session_id):
            raise UsageError(f"--session-id must be a UUID, not {session_id!r}")
        if find_session(home, cwd, session_id):
            raise UsageError(f"session {session_id} already exists; continue it with --resume {session_id}")
    if args.resume == PICK_SESSION:  # the interactive mode asks which before it gets here
        raise UsageError("--resume without a session id picks one in the interactive mode; give the id here, "
                         "or --continue for this folder's latest session")
    if args.continue_session or args.resume:
        resumed = args.resume or latest_session(home, cwd)
        args.resumed_session = resumed  # whose agent the session runs as again (agent.cli.session_agent)
        path = find_session(home, cwd, resumed) if resumed else None
        if path is None:
            missing = f"no session {resumed!r} to resume" if args.resume else f"no earlier session in {cwd} to continue"
            raise UsageError(missing)
        try:
            entries = _up_to(conversation_entries(path), args.resume_session_at, resumed)
        except OSError as error:
            raise UsageError(f"cannot read the session {path}: {error.strerror or error}") from None
        history = messages_of(entries, path)
        forked = args.fork_session
        if not forked:
            session_id = resumed
    session_id = session_id or str(uuid.uuid4())
    persist = not args.no_session_persistence and getattr(args, "home_writable", True)  # see cli.home
    transcripts = Transcripts(home, cwd, session_id) if persist else None
    if transcripts is not None and entries:
        transcripts.continue_from(entries, carry=forked)
    return session_id, transcripts, history


def _up_to(entries: list[dict[str, Any]], message_uuid: str | None, session_id: str) -> list[dict[str, Any]]:
    """`entries` up to and including the one whose uuid is `message_uuid` (all of them for None);
    a uuid the conversation does not hold is Claude Code's error."""
    if message_uuid is None:
        return entries
    for index, entry in enumerate(entries):
        if entry.get("uuid") == message_uuid:
            return entries[:index + 1]
    raise UsageError(f"No message found with message.uuid of: {message_uuid} (in session {session_id})")

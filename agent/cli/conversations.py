"""The conversations of an interactive session, one after another: /clear starts a new one,
/resume picks up an earlier one, and leaving ends the last. Each end and start is a moment the
session's hooks see, as in Claude Code: SessionEnd with its reason (clear, resume,
prompt_input_exit), then SessionStart with its source (clear, resume) for the conversation that
follows, under the new conversation's session id."""

from __future__ import annotations

import uuid
from pathlib import Path

from agent.cli.terminal import Terminal
from agent.hooks.events import session_end
from agent.processes.running import kill_running


def cleared(session):
    """/clear: the conversation ends and a new one starts, with a session id of its own."""
    from agent.run import MainConversation

    session_end(session, "clear")
    switch_session(session)
    return MainConversation(session, source="clear")


def leaving(terminal: Terminal, session, recording: bool) -> None:
    """The person left (/exit, Ctrl-D, Ctrl-C twice at the prompt): the session ends. Background
    agents still running are stopped with their commands, so leaving never waits on them (their
    threads are daemons here), and a worktree one of them works in stays where it is; while
    recording, they are waited for instead (Ctrl-C gives up, the recording too), since a replay
    runs them to the end and needs every request they send."""
    unfinished = session.background.unfinished()
    count = f"{len(unfinished)} background agent{'s' if len(unfinished) > 1 else ''}"
    if unfinished and recording:
        terminal.say(f"waiting for {count} to finish: the recording needs their requests (Ctrl-C gives up, and "
                     "no cassette is written)", "dim")
        session.background.finish()
    elif unfinished:
        kill_running()  # the commands they run, whole process groups
        terminal.say(f"stopped {count} still running: " + ", ".join(task.description for task in unfinished), "dim")
        for task in unfinished:
            if task.worktree is not None:
                terminal.say(f"  its worktree stays at {task.worktree.path} (branch {task.worktree.branch})", "dim")
    session_end(session, "prompt_input_exit")


def picked_session(terminal: Terminal, cwd: Path, current: str | None = None) -> Path | None:
    """The transcript of one of this folder's recent sessions (not `current`), as the person
    picks it from a numbered list; None when there is none, or they chose none."""
    from agent.transcripts import project_folder, recent_sessions

    folder = project_folder(Path.home(), cwd)
    recent = [folder / f"{found}.jsonl" for found in recent_sessions(Path.home(), cwd, 10) if found != current][:9]
    if not recent:
        terminal.say("no earlier sessions in this folder")
        return None
    for number, path in enumerate(recent, 1):
        terminal.say(f"{number}. {path.stem}  {_first_prompt(path)}")
    choice = terminal.ask("Resume which?", "".join(str(n) for n in range(1, len(recent) + 1)) + "q")
    return None if choice == "q" else recent[int(choice) - 1]


def resumed(terminal: Terminal, session):
    """/resume: pick one of this folder's recent sessions; the conversation it holds continues
    (None when there is none, or the person chose none)."""
    from agent.run import MainConversation
    from agent.transcripts import read_conversation

    path = picked_session(terminal, session.workspace.cwd, session.session_id)
    if path is None:
        return None
    try:
        history = read_conversation(path)
    except OSError as error:  # swapped for a FIFO, grown past the cap, gone: this conversation goes on
        terminal.say(f"cannot read the session {path.stem}: {error.strerror or error}", "yellow")
        return None
    session_end(session, "resume")
    switch_session(session, path.stem)
    terminal.say(f"(resumed {path.stem})", "dim")
    return MainConversation(session, history)


def switch_session(session, session_id: str | None = None) -> None:
    """Point the session (its transcript, its task list, and what its hooks are told) at a new
    session id, or the given one: the task list is that session's, as Claude Code keeps one per
    session (a new one starts empty, a resumed one has its own back)."""
    from agent.tools.todo import TaskList, TodoState
    from agent.transcripts import Transcripts

    session.session_id = session_id or str(uuid.uuid4())
    if session.todo is not None:
        folder = session.todo.tasks.folder
        session.todo = TodoState(TaskList(folder.with_name(session.session_id) if folder is not None else None),
                                 todo_write=session.todo.todo_write)
    if session.transcripts is not None:
        session.transcripts = Transcripts(session.transcripts.home, session.workspace.cwd, session.session_id)
    if session.hooks is not None:
        session.hooks.session_id = session.session_id
        session.hooks.transcript_path = str(Path(session.hooks.transcript_path).with_name(f"{session.session_id}.jsonl"))


def _first_prompt(path: Path) -> str:
    """What the picker shows of a session: its first prompt, on one line ('' when it has none,
    or when it cannot be read)."""
    from agent.transcripts import read_conversation

    try:
        messages = read_conversation(path)
    except OSError:  # a FIFO, a file past the cap, one gone since it was listed
        return "(cannot be read)"
    for message in messages:
        content = message["content"]
        if message["role"] == "user" and isinstance(content, str):
            return " ".join(content.split())[:60]
        if message["role"] == "user" and isinstance(content, list):
            texts = [b.get("text", "") for b in content if b.get("type") == "text"]
            if texts:
                return " ".join(texts[-1].split())[:60]
    return ""

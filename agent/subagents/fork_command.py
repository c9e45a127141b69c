"""/fork and /subtask: the person forks the conversation with a directive of their own.

Claude Code 2.1.332 has two pairs of meanings for these: without its agent view, `/fork
<directive>` starts a forked subagent whose report comes back to the conversation (and
`/subtask` does not exist); with the agent view, `/subtask <task>` does that and `/fork` copies the
session into a new background session. This agent has no agent view: both start the fork. Its
report comes back as a background agent's notification, in one user message with a note of the
command, and the conversation answers it. The turn waits for the report, so a recording replays
the same requests in the same order.
"""

from __future__ import annotations

import re

from agent.conversation import text_block, user_message
from agent.errors import UsageError
from agent.subagents.background import Task
from agent.subagents.forks import FORK_TYPE, Inherited, directive_text, fork_spec, run_fork
from agent.transcripts import agent_id_for

COMMANDS = ("fork", "subtask")
NAME_CHARS = 24  # a fork's name: the first words of its directive, as Claude Code names it
SUMMARY_CHARS = 100  # of the directive, in the notification's summary
COMMAND_NOTE = ("The user ran /{command} {directive}\n(a fork of this conversation, {name}, worked on that "
                "directive in the background; its report follows)")


def fork_command(prompt: str) -> tuple[str, str] | None:
    """(command, directive) when `prompt` is `/fork <directive>` or `/subtask <directive>`, else None."""
    words = prompt.strip().split(maxsplit=1)
    if not words or words[0][:1] != "/" or words[0][1:] not in COMMANDS:
        return None
    return words[0][1:], words[1].strip() if len(words) > 1 else ""


def fork_name(directive: str) -> str:
    """What a fork is called (in its transcript, and on the screen): its directive's first words,
    lower case, joined by dashes."""
    return "-".join(re.findall(r"[a-z0-9]+", directive.lower()))[:NAME_CHARS].strip("-") or FORK_TYPE


def forked_turn(session, agent, messages: list[dict], command: str, directive: str) -> dict:
    """The user message of a `/fork <directive>` turn of `agent`'s conversation `messages`: a fork
    of it starts in the background with `directive` (it takes one of the running-agent places, but
    the limit never refuses it, as in Claude Code), and once its report is in (Ctrl-C stops the
    wait), the message holds a note of the command and the report's notification."""
    if not directive:
        raise UsageError(f"usage: /{command} <directive> (what a fork of this conversation should do)")
    if not messages:
        raise UsageError(f"nothing to fork yet: send a message first, then /{command} <directive>")
    name = fork_name(directive)
    agent_id = agent_id_for(f"/{command} {len(messages)} {directive}")  # the same in a replay
    spec = fork_spec(session, agent, None, agent_id, name)
    last = messages[-1]
    if last.get("role") == "user":  # a turn that ended on tool results (its turn limit): the directive joins them
        blocks = last["content"] if isinstance(last["content"], list) else [text_block(last["content"])]
        inherited = Inherited(messages[:-1], {**last, "content": [*blocks, text_block(directive_text(directive))]})
    else:
        inherited = Inherited(list(messages), user_message(directive_text(directive)))
    with session.lock:
        session.running_subagents += 1

    def work():
        try:
            return run_fork(spec, inherited, session, directive, background=True)
        finally:
            with session.lock:
                session.running_subagents -= 1

    task = Task(agent_id, None, FORK_TYPE, " ".join(directive.split())[:SUMMARY_CHARS], directive)
    session.background.launch(task, work)
    notes = session.background.deliver(session.cancelled)
    note = COMMAND_NOTE.format(command=command, directive=directive, name=name)
    return {"role": "user", "content": [text_block(note), *notes["content"]]}

"""An interactive session: a conversation at a terminal, on the same session, loop and recording
as `-p`. Each line the user submits is one turn; the answer streams onto the screen; each tool
call is one compact line; calls that need approval ask the person. Built-in slash commands manage
the session; `/name args` runs a skill as in `-p`."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Mapping

from agent.cli.agent_board import Board
from agent.cli.conversations import cleared, leaving, picked_session, resumed
from agent.cli.environment import Environment
from agent.cli.options import PICK_SESSION
from agent.cli.screen import Screen
from agent.cli.terminal import Terminal
from agent.cli.todo_view import TodoView
from agent.cli.turn_keys import TurnKeys
from agent.cli.visible import visible
from agent.errors import AgentError
from agent.subagents.fork_command import fork_name

BUILTINS = {
    "help": "list the commands",
    "clear": "start a new conversation",
    "cost": "tokens and cost so far",
    "model": "show or change the model: /model [name]",
    "skills": "the skills found, and where",
    "agents": "the agent types, and the folders to add or edit them in",
    "doctor": "agents defined twice, skipped files, and the instruction files loaded",
    "resume": "continue a recent session of this folder",
    "fork": "fork the conversation: /fork <directive>; the fork's report comes back here",
    "subtask": "the same as /fork: /subtask <task>",
    "tasks": "the agents running or just finished: /tasks [<n> | stop <n> | x]",
    "compact": "summarise the conversation so far to free its context: /compact [instructions]",
    "exit": "end the session",
}
_MENTION = re.compile(r"(?:^|(?<=\s))@(\S+)")
MAX_MENTION_CHARS = 50_000


def approval_question(tool: str, arguments: dict, agent: str = "main") -> str:
    """What the person is asked before a call runs: the whole argument that says what it does, every
    line of it and never cut (a command's tail is what would hide `; touch pwned`), with control
    characters made visible so the screen shows exactly what runs; a subagent's call names the
    agent (a background one asks while the conversation has moved on)."""
    value = next((arguments[key] for key in ("command", "file_path", "pattern", "skill", "subagent_type",
                                             "description", "path") if isinstance(arguments.get(key), str)), "")
    shown = "\n".join("    " + visible(line, keep="") for line in value.split("\n")) if value else "    (no arguments)"
    asker = "" if agent == "main" else f" (asked by the {visible(agent, keep='')} agent)"
    return f"Allow {tool}{asker}?\n{shown}\ny: yes, a: always (this session), n: no"


def run_interactive(args: argparse.Namespace, env: Mapping[str, str], first_prompt: str | None) -> int:
    """Hold a conversation at the terminal until /exit, Ctrl-D, or Ctrl-C twice at an empty prompt."""
    from agent.cli.build import build_session
    from agent.cli.cassette_run import recording
    from agent.cli.trust import ask_trust
    from agent.record.approvals import Approval
    from agent.run import MainConversation

    environment = Environment(env)
    args.include_partial_messages = True  # replies stream onto the screen; a recording says so
    home = Path.home()
    terminal = Terminal(Path.cwd(), home / ".cache" / "agent" / "history", {**BUILTINS})
    board = Board()
    screen = Screen(terminal, board)
    if args.resume == PICK_SESSION:  # -r without an id: which of this folder's sessions, before it is built
        picked = picked_session(terminal, Path.cwd())
        args.resume = picked.stem if picked is not None else None
        if picked is None:
            terminal.say("(a new session)", "dim")
    session, history = build_session(args, environment, screen, confirm_trust=lambda: ask_trust(terminal, Path.cwd(), home))
    board.tasks = lambda: list(session.background.tasks)  # how its background agents are doing
    session.background.daemon = True  # leaving stops them (agent.cli.conversations.leaving)
    board.stoppable = not args.record  # a replay could not stop an agent where the person did
    keys, todo = TurnKeys(terminal, board), TodoView(session)
    terminal.below = lambda: todo.live_lines() + keys.lines()  # the todo list and the panel of agents
    terminal.during_turn, terminal.activity, terminal.after_turn = keys.reading, todo.activity, todo.after_turn
    if session.hooks is not None:  # what hooks tell the person (a systemMessage) shows among the tool lines
        session.hooks.listener = screen.hook
    session.approver = lambda agent, call_id, tool, arguments: Approval(
        {"y": "once", "a": "always", "n": "no"}[terminal.ask(approval_question(tool, arguments, agent), "yan")], "user")
    terminal.prompt.completer.commands.update({name: "skill" for name, s in session.skills.items() if s.user_invocable})
    conversation = MainConversation(session, history)
    as_agent = f"@{session.session_agent.name} · " if session.session_agent is not None else ""
    terminal.say(f"agent · {as_agent}{session.model} · {session.workspace.cwd}", "bold")
    if first_prompt is None:  # an agent's initialPrompt is the first turn
        first_prompt = conversation.initial_prompt
    terminal.say("Type a message, /help for commands, Ctrl-D to quit.", "dim")
    turns: list[str] = []  # what a recording stores: every prompt sent, so a replay can send them again
    with recording(args, session, environment, turns) as taken:
        code = _loop(terminal, session, conversation, first_prompt, args, _Turns(turns, taken))
        leaving(terminal, session, recording=bool(args.record))
        return code


class _Turns:
    """The prompts a recording stores, so a replay can send them again, with how each ended (the
    setup's `outcomes`): only those of turns that finished; a turn that failed or was cancelled is
    left out of the cassette whole."""

    def __init__(self, prompts: list[str], recording) -> None:
        self.prompts = prompts
        self.recording = recording  # agent.record.cassette.Recording, or None when not recording

    def run(self, terminal: Terminal, conversation, prompt: str) -> None:
        from agent.cli.outcomes import outcome_of

        mark = self.recording.mark() if self.recording is not None else None
        result = _turn(terminal, conversation, prompt)
        if result is not None:
            self.prompts.append(prompt)
            if self.recording is not None:
                self.recording.setup.setdefault("outcomes", []).append(outcome_of(result))
        elif mark is not None:
            self.recording.leave_out_since(mark)
            terminal.say("(that turn is left out of the recording)", "dim")


def _loop(terminal: Terminal, session, conversation, first_prompt: str | None, args, turns: _Turns) -> int:
    """Read and answer lines until the session ends; returns the exit code (0)."""
    pending, interrupted = first_prompt, False
    while True:
        try:
            if pending is not None:
                line, pending = pending, None
            else:
                line = terminal.read()
            interrupted = False
            outcome = _handle(line, terminal, session, conversation, args, turns)
        except EOFError:
            return 0
        except KeyboardInterrupt:  # at the prompt (a turn handles its own): twice in a row quits
            if interrupted:
                return 0
            interrupted = True
            terminal.say("(Ctrl-C again to quit)", "dim")
            continue
        if outcome == "exit":
            return 0
        if outcome is not None:
            conversation = outcome


def _handle(line: str, terminal: Terminal, session, conversation, args, turns: _Turns):
    """One line: a built-in command, a hint for an unknown one, or a turn of the conversation.
    Returns "exit", a new conversation, or None."""
    if not line.strip():
        return None
    word = line.split()[0]
    if word in ("/fork", "/subtask", "/compact"):  # a turn of the conversation, so a recording replays it
        if word == "/compact":  # agent.compaction.command: one summary request, then the conversation goes on from it
            terminal.say("compacting the conversation: the next prompt continues from its summary", "dim")
        elif directive := line[len(word):].strip():
            terminal.say(f"⑂ forked {fork_name(directive)}: its report comes back here", "dim")
        turns.run(terminal, conversation, line.strip())
        return None
    if word.startswith("/") and word[1:] in BUILTINS:
        rest = line[len(word):].strip()
        if args.record and (word[1:] in ("clear", "resume") or (word[1:] == "model" and rest)):
            terminal.say(f"{word} is not available while recording: a replay sends the recorded prompts to one "
                         "conversation with one model", "yellow")
            return None
        return _builtin(word[1:], rest, terminal, session, conversation)
    if word.startswith("/") and word[1:] not in session.skills:
        terminal.say(f"Unknown command {word}; /help lists the commands and skills.", "yellow")
        return None
    turns.run(terminal, conversation, _with_mentions(line, session.workspace.cwd))
    return None


def _turn(terminal: Terminal, conversation, prompt: str):
    """Answer one prompt on the screen; the turn's result when it finished (its answer is in the
    conversation), None otherwise."""
    terminal.waiting()
    try:
        with terminal.during_turn():  # the panel's keys
            result = conversation.turn(prompt)
    except KeyboardInterrupt:
        terminal.answer_done("")
        terminal.say("(cancelled; the conversation is as it was before that message)", "dim")
        return None
    except AgentError as error:
        terminal.answer_done("")
        terminal.say(f"error: {error}", "red")
        return None
    terminal.answer_done(result.text.strip())
    for line in terminal.after_turn(result.messages):  # the todo list, when the turn changed it
        terminal.say(line)
    if result.subtype == "error_max_turns":
        terminal.say(f"(stopped at the turn limit: {result.turns} turns)", "yellow")
    return result


def _builtin(name: str, rest: str, terminal: Terminal, session, conversation):
    """Run a built-in command; returns "exit", a new conversation, or None."""
    from agent.model.pricing import total_cost_usd
    from agent.model.providers import resolve_model

    if name == "exit":
        return "exit"
    if name == "help":
        for command, meaning in BUILTINS.items():
            terminal.say(f"/{command:<8} {meaning}")
        for skill in session.skills.values():
            if skill.user_invocable:
                terminal.say(f"/{skill.name:<8} {skill.description[:70]}", "dim")
        terminal.say("@path in a message adds that file, @agent-<name> hands its task to that agent; "
                     "Alt-Enter starts a new line.", "dim")
    elif name == "clear":
        conversation = cleared(session)
        terminal.say("(new conversation)", "dim")
        return conversation
    elif name == "cost":
        usage = session.client.usage
        cost = total_cost_usd(session.client.usage_by_model)
        terminal.say(f"{usage.requests} requests, {usage.input_tokens} input + {usage.output_tokens} output tokens "
                     f"({usage.cache_read_tokens} read from cache), "
                     + (f"${cost:.4f}" if cost is not None else "cost unknown for this model"))
    elif name == "model":
        if rest:
            session.model = conversation.agent.model = resolve_model([rest], session.model_aliases, session.model)
        terminal.say(f"model: {session.model}")
    elif name == "skills":
        for skill in session.skills.values():
            terminal.say(f"{skill.name} ({skill.source}, {skill.path})")
        if not session.skills:
            terminal.say("no skills found (.claude/skills/<name>/SKILL.md)")
    elif name == "agents":
        from agent.cli.agent_folders import agents_listing

        if session.reread_agents is not None:  # a file written since the last message is listed too
            session.reread_agents(session)
        for line in agents_listing(session, session.reread_agents):
            terminal.say(line)
    elif name == "doctor":
        from agent.cli.doctor import session_doctor_lines

        for line in session_doctor_lines(session):
            terminal.say(line)
    elif name == "resume":
        return resumed(terminal, session)
    elif name == "tasks":
        from agent.cli.tasks_command import tasks_command

        for line in tasks_command(rest, session.observer.board):
            terminal.say(line)
    return None


def _with_mentions(line: str, cwd: Path) -> str:
    """`line` with the contents of each `@path` it mentions (an existing regular file) added after
    it, at most MAX_MENTION_CHARS bytes of each; a binary file is not pasted, a note says so."""
    from agent.tools.reading import looks_binary
    from agent.workspace import open_regular

    added = []
    for mention in _MENTION.findall(line):
        path = (cwd / mention).resolve() if not Path(mention).is_absolute() else Path(mention)
        try:
            if path.is_file():
                with open_regular(path) as handle:
                    if looks_binary(handle):
                        added.append(f"(@{mention} is a binary file; its contents were not added.)")
                        continue
                    text = handle.read(MAX_MENTION_CHARS).decode("utf-8", errors="replace")
                added.append(f"Contents of {mention}:\n```\n{text.rstrip()}\n```")
        except OSError:
            continue
    return "\n\n".join([line, *added])

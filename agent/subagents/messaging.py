"""Continuing a finished subagent: the agents a session knows (by id and by name) and the
SendMessage tool that sends one of them a message.

A continued agent gets its whole earlier conversation back (rebuilt from its transcript,
`agent-<id>.jsonl` under the session's subagents folder, or kept in memory when the session writes
no transcripts: --no-session-persistence, --replay-tools), then the message as a new user turn,
with the same definition, tools and model as before, and the effort its Agent call asked for (a
call's `effort` stays in effect when the agent is continued, as the subagents page says). After
`--resume` the session's earlier agents are found in its transcripts, so ids, names and those
choices survive a restart.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from agent.errors import ProviderError
from agent.model.reasoning import EFFORT_LEVELS
from agent.subagents.results import ended_early, format_result
from agent.subagents.runner import run_subagent, subagent_spec
from agent.subagents.servers import agent_servers
from agent.subagents.worktrees import reopen_worktree
from agent.tools.base import Tool, ToolError, object_schema
from agent.transcripts import read_conversation

NOT_RESUMABLE = ("Explore", "Plan")  # read-only helpers: their results carry no agentId (Claude Code)
COORDINATOR = ("The coordinator sent a message while you were working:\n{message}\n\n"
               "Address this before completing your current task.")
MAX_MESSAGE_CHARS = 100_000


@dataclass
class KnownAgent:
    """A subagent of this session that can be continued."""

    agent_id: str
    kind: str  # its definition's name
    name: str  # what SendMessage may call it instead of its id
    model: str
    messages: list[dict[str, Any]] | None = None  # its conversation, kept when no transcript holds it
    isolated: bool = False  # it ran in a worktree of its own: continued there while that is kept
    effort: str | None = None  # the effort its Agent call asked for, kept when it is continued
    background: bool = False  # it first ran in the background: continued with the tools it had there


@dataclass
class AgentRegistry:
    """The session's continuable agents, by id, and which agents held each name (in the order
    they took it: the last one holds it now). Transcripts of a resumed session are read once,
    when an agent is first looked for."""

    agents: dict[str, KnownAgent] = field(default_factory=dict)
    holders: dict[str, list[str]] = field(default_factory=dict)
    running: set[str] = field(default_factory=set)
    loaded: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)

    def remember(self, agent: KnownAgent) -> None:
        """Add `agent`, or update the conversation of one already known."""
        with self.lock:
            if agent.agent_id not in self.agents:
                self.holders.setdefault(agent.name, []).append(agent.agent_id)
            self.agents[agent.agent_id] = agent

    def find(self, to: str, transcripts) -> KnownAgent:
        """The agent `to` names (an id, or a name only one agent ever held); ToolError otherwise."""
        with self.lock:
            if not self.loaded and transcripts is not None:
                earlier = [KnownAgent(e["agentId"], e["agentType"], e["agentName"], e["model"],
                                      effort=e.get("effort") if e.get("effort") in EFFORT_LEVELS else None)
                           for e in transcripts.subagents() if e["agentId"] not in self.agents]
                for agent in earlier:
                    self.holders.setdefault(agent.name, []).insert(0, agent.agent_id)
                self.agents = {**{a.agent_id: a for a in earlier}, **self.agents}
            self.loaded = True
            if to in self.agents:
                return self.agents[to]
            held = self.holders.get(to, [])
        if len(held) > 1:
            raise ToolError(f"the name {to!r} is now held by agent {held[-1]}; it no longer names the earlier "
                            f"{'agents' if len(held) > 2 else 'agent'} {', '.join(held[:-1])}. Send to an agentId instead.")
        if held:
            return self.agents[held[0]]
        known = ", ".join(self.agents) or "none"
        raise ToolError(f"no agent {to!r} to send a message to (agents of this session: {known})")


def remember_run(session, agent_id: str, kind: str, name: str, model: str, messages: list[dict[str, Any]],
                 isolated: bool = False, effort: str | None = None, background: bool = False) -> bool:
    """Register a subagent run that can be continued (not Explore or Plan); whether it can. Its
    messages are kept only when no transcript holds them; `isolated`: it ran in a worktree;
    `effort`: the one its Agent call asked for; `background`: it first ran in the background."""
    if kind in NOT_RESUMABLE:
        return False
    session.agent_registry.remember(KnownAgent(agent_id, kind, name, model,
                                               list(messages) if session.transcripts is None else None, isolated,
                                               effort, background))
    return True


def send_message_tool() -> Tool:
    """The SendMessage tool: continue a finished agent with a message; its answer comes back as an
    Agent call's report does (agent.subagents.results)."""

    def run(arguments: dict[str, Any], context) -> str:
        missing = [key for key in ("to", "message") if not isinstance(arguments.get(key), str) or not arguments[key].strip()]
        if missing:
            raise ToolError(f"missing required argument(s): {', '.join(missing)}")
        session = context.session
        known = session.agent_registry.find(arguments["to"].strip(), session.transcripts)
        definition = session.agents.get(known.kind)
        if definition is None:
            raise ToolError(f"agent {known.agent_id} cannot be continued: its agent type {known.kind!r} is no longer defined")
        history = _history(session, known)
        registry = session.agent_registry
        with registry.lock:
            if known.agent_id in registry.running:
                raise ToolError(f"agent {known.agent_id} is still working; send your message once it has finished")
            registry.running.add(known.agent_id)
        prompt = COORDINATOR.format(message=arguments["message"][:MAX_MESSAGE_CHARS])
        summary = arguments.get("summary") if isinstance(arguments.get("summary"), str) else "message"
        worktree = reopen_worktree(session, context.agent.name, known.agent_id) if known.isolated else None
        try:
            with agent_servers(session, definition) as own:
                spec = subagent_spec(session, definition, context.agent, known.kind, [known.model],
                                     parent_tool_use_id=context.call_id, own=own,
                                     agent_id=known.agent_id, agent_name=known.name, effort=known.effort,
                                     workspace=worktree.workspace if worktree else None, background=known.background)
                result = run_subagent(spec, prompt, session, known.kind, summary, history=history)
        except ProviderError as exc:  # stopped before it wrote anything new (after some, it hands that back)
            raise ToolError(ended_early(f"the {known.kind} agent {known.agent_id}", exc)) from None
        finally:
            with registry.lock:
                registry.running.discard(known.agent_id)
        remember_run(session, known.agent_id, known.kind, known.name, known.model, result.messages, known.isolated,
                     known.effort, known.background)
        return format_result(known.kind, known.agent_id, result, True, worktree.lines() if worktree else ())

    properties = {
        "to": {"type": "string", "description": "The agentId of the agent to continue (from its Agent result), or its name."},
        "message": {"type": "string", "description": "What to tell the agent: it continues with its whole earlier conversation."},
        "summary": {"type": "string", "description": "A 5-10 word recap of the message."},
    }
    description = ("Send a message to a subagent that has finished, to continue it: it picks up its earlier "
                   "conversation, its tools and model, does what the message asks and reports back. Address it "
                   "by the agentId its Agent result gave (or its name).")
    return Tool("SendMessage", description, object_schema(properties, ["to", "message"]), run,
                read_only=True, delegates=True)


def _history(session, known: KnownAgent) -> list[dict[str, Any]]:
    """The agent's conversation so far: its transcript when the session writes them, else memory."""
    if session.transcripts is not None:
        path = session.transcripts.subagent_path(known.agent_id)
        try:
            messages = read_conversation(path)
        except OSError as error:
            raise ToolError(f"agent {known.agent_id} cannot be continued: its transcript {path} cannot be read "
                            f"({error.strerror or error})") from None
    else:
        messages = known.messages or []
    if not messages:
        raise ToolError(f"agent {known.agent_id} has no saved conversation to continue")
    return messages

"""The agent loop: one function, used by the main conversation and by every subagent."""

from __future__ import annotations

import dataclasses
import json
import logging
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

from agent.compaction.guard import PROMPT_TOO_LONG, Compacting, PromptTooLong
from agent.conversation import Reply, Stop, ToolCall, Usage, tool_result, user_message
from agent.errors import Interrupted, ProviderError
from agent.hooks.events import halted, stopping
from agent.model.fallback import ModelUnavailable, switch_line
from agent.model.output_limit import MAX_CONTINUATIONS, continuation
from agent.model.reasoning import SESSION_EFFORT
from agent.tools import structured_output as structured
from agent.tools.base import Tool
from agent.tools.execute import execute_all
from agent.tools.todo.reminder import with_reminder

log = logging.getLogger("agent")


@dataclass
class AgentSpec:
    """What runs a conversation: its system prompt, tools, model and turn limit."""

    name: str
    system: str
    tools: dict[str, Tool]
    model: str
    max_turns: int
    depth: int = 0  # 0 is the main conversation; each subagent level adds one
    transcript: Any = None  # agent.transcripts.Transcript, or None when not persisting
    policy: Any = None  # agent.permissions.Policy: what this agent may run without asking
    observer: Any = None  # sees each message (.message) and, when it wants_text, the answer streaming (.text)
    parent_tool_use_id: str | None = None  # for a subagent: the Agent (or Skill) call that started it
    hooks: Any = None  # agent.hooks.config.HookSet: its frontmatter's and its active skills' hooks
    context: tuple[str, ...] = ()  # what a new conversation's first message opens with (CLAUDE.md, git status)
    effort: str | None = SESSION_EFFORT  # the effort its requests ask (the run's; a subagent may have its own)
    workspace: Any = None  # agent.workspace.Workspace its tools work in (a worktree-isolated agent's); None: the session's
    switches: list[str] = field(default_factory=list)  # the --fallback-model models it switched to, in order
    compact_window: int | None = None  # its definition's autoCompactWindow: compacts ahead of time within it


@dataclass
class Result:
    """How a conversation ended. A "success" is the model's last word, which may still be
    incomplete: `stop_reason` says whether it was cut off, refused or out of context."""

    text: str
    subtype: str  # "success", "error_max_turns", "error_max_budget_usd" or "error_during_execution"
    turns: int
    usage: Usage = field(default_factory=Usage)
    messages: list[dict[str, Any]] = field(default_factory=list)
    stop_reason: str = Stop.END  # of the last reply
    # "hook_stopped": a hook ended the run (continue: false); "budget_exhausted": --max-budget-usd did
    terminal_reason: str | None = None
    structured_output: dict[str, Any] | None = None  # --json-schema: the object the model answered with
    error: str | None = None  # the provider error that cut it off (subtype "error_during_execution")
    switched_to: str | None = None  # a subagent's: the fallback model it ended on (agent.subagents.runner)
    local_command: str | None = None  # "compact": the turn ran a command here (`/compact`), no prompt was sent

    @property
    def is_error(self) -> bool:
        return self.subtype != "success"


@dataclass(frozen=True)
class ToolContext:
    """What a running tool can reach: the session (workspace, client, skills) and its agent."""

    session: Any
    agent: AgentSpec
    call_id: str | None = None  # the tool call being run (execute sets it for each call)
    messages: Any = None  # the agent's conversation as last sent, with the reply making the call (a fork's start)

    @property
    def workspace(self):
        return getattr(self.agent, "workspace", None) or self.session.workspace


REPEAT_WARNING_AFTER = 3  # identical consecutive calls before the model is told to change course


def run_loop(agent: AgentSpec, messages: list[dict[str, Any]], session: Any,
             history: list[dict[str, Any]] = ()) -> Result:
    """Send, append the reply, act on why it stopped, and repeat until the model has had its last
    word (success) or `agent.max_turns` replies have been received (error_max_turns). `history`
    is an earlier conversation being continued (already in its transcript); `messages` follow it.

    A reply with tool calls has them run, unless it was cut off at the output limit: then none
    runs (their arguments may be incomplete) and each gets an error result, so the model can try
    again in smaller pieces. A text-only reply cut off there is asked to go on, up to
    MAX_CONTINUATIONS times (agent.model.output_limit); the run ends on the next one. A paused
    reply is sent back so the model goes on. A reply without
    tool calls, or one that was refused or filled the context window, ends the run, unless the main
    conversation has background agents not yet reported on (it waits for them, and their
    notifications are sent) or a Stop (SubagentStop) hook blocks the end of a finished one: its
    reason is sent, and the model goes on.
    A hook that answers `continue: false` ends the run once the tool results are in; so does a
    StructuredOutput call (--json-schema) that was accepted: its object is the answer. A model
    asked for structured output that answers in text only is reminded once. No request is sent
    once the run has spent its --max-budget-usd; a model that cannot answer gives way to the
    --fallback-model chain for the rest of the turn (see `_ask`)."""
    usage = Usage()
    schemas = [tool.schema() for tool in agent.tools.values()]
    repeats = _RepeatWatch()
    for message in messages:
        _record(agent, message)
    messages = [*history, *messages]
    context = ToolContext(session, agent, messages=messages)
    text, stop = "", Stop.END
    watching = agent.observer is not None and agent.observer.wants_text
    on_text = (lambda delta: agent.observer.text(agent, delta)) if watching else None
    cancelled = session.cancelled  # this turn's: a later turn has its own
    stop_hook_active = False  # a Stop hook already made the model go on
    reminded = not structured.offered(agent.tools)  # to answer through StructuredOutput (once)
    continued = 0  # replies cut off at the output limit that the model was asked to go on from
    compacting = Compacting(session)  # the conversation is summarised when it no longer fits (agent.compaction)
    for turn in range(1, agent.max_turns + 1):
        _check(cancelled)
        if session.budget is not None and session.budget.exhausted(session.client):
            return Result(text, "error_max_budget_usd", turn - 1, usage, messages, stop, "budget_exhausted")
        try:
            reply, agent = compacting.ask(agent, messages, lambda: _ask(agent, messages, schemas, session, on_text))
        except PromptTooLong:  # DISABLE_AUTO_COMPACT: Claude Code's ending, an error result
            return Result(PROMPT_TOO_LONG, "success", turn, usage, messages, stop, "prompt_too_long")
        except ProviderError as error:  # what was said before it stays with it (a subagent's partial report)
            error.partial = Result(text, "error_during_execution", turn - 1, usage, messages, stop, error=str(error))
            raise
        context = context if context.agent is agent else ToolContext(session, agent, messages=messages)
        usage.add(reply.usage)
        compacting.replied(reply.usage)
        if reply.blocks:  # an empty assistant turn could not be sent back
            _record(agent, _append(messages, reply.as_message()))
        text, stop = reply.text, reply.stop_reason
        if stop == Stop.PAUSE:
            continue
        if not reply.tool_calls or stop in (Stop.REFUSAL, Stop.CONTEXT_EXCEEDED):
            if reply.tool_calls:  # answered, so the conversation can be continued
                _record(agent, _append(messages, {"role": "user", "content": [
                    _not_run(call, _ENDED_BY[stop]) for call in reply.tool_calls]}))
            elif stop == Stop.END and agent.depth == 0 and (notes := session.background.deliver(cancelled)):
                _record(agent, _append(messages, notes))  # its background agents' reports: it goes on
                continue
            elif stop == Stop.END and not reminded:
                reminded = True
                _record(agent, _append(messages, user_message(structured.ENFORCE)))
                continue
            elif stop == Stop.END and (feedback := stopping(session, agent, text, stop_hook_active)):
                _record(agent, _append(messages, feedback))
                stop_hook_active = True
                continue
            elif stop == Stop.MAX_TOKENS and continued < MAX_CONTINUATIONS:  # cut off mid-answer: go on
                continued += 1
                _record(agent, _append(messages, continuation(agent.depth, continued)))
                continue
            return Result(text, "success", turn, usage, messages, stop)
        if stop == Stop.MAX_TOKENS:
            results = [_not_run(call, _CUT_OFF) for call in reply.tool_calls]
        else:
            _check(cancelled)
            results = execute_all(reply.tool_calls, agent.tools, context)
            repeats.warn(reply.tool_calls, results)
            results = with_reminder(results, messages, agent, session)  # Claude Code's nudge to keep the list
            if session.instructions is not None:  # a subfolder's CLAUDE.md and the rules its files match
                results += session.instructions.attached(context.workspace.cwd, messages, reply.tool_calls, results)
        _record(agent, _append(messages, {"role": "user", "content": results}))
        if (output := structured.delivered(reply.tool_calls, results)) is not None:
            return Result(structured.compact(output), "success", turn, usage, messages, stop, structured_output=output)
        if halted(session) is not None:
            return Result("", "success", turn, usage, messages, stop, "hook_stopped")
    return Result(text, "error_max_turns", agent.max_turns, usage, messages, stop)


def _ask(agent: AgentSpec, messages: list[dict[str, Any]], schemas: list[dict[str, Any]], session: Any,
         on_text: Callable[[str], None] | None) -> tuple[Reply, AgentSpec]:
    """The model's reply, and the agent as it got it: on the agent's own model or, when that one is
    overloaded or not found, on the first model of the --fallback-model chain that answers, for the
    rest of the turn (this call of the loop: the next one tries its own model again). Each switch is
    told to the observer (Claude Code's `model_fallback` line), with --verbose on stderr, and kept
    in `agent.switches` (a subagent's report says so: agent.subagents.results)."""
    chain = list(session.fallback_models)  # on a fallback already: the models after it
    chain = chain[chain.index(agent.model) + 1:] if agent.model in chain else chain
    while True:
        try:
            return session.client.complete(agent.system, messages, schemas, agent.model, agent.name, on_text,
                                           bool(chain), effort=agent.effort), agent
        except ModelUnavailable as failure:
            if not chain:
                raise
            fallback = chain.pop(0)
            line, why = switch_line(failure.trigger, agent.model, fallback), str(failure)
        log.info("%s: %s (%s); it answers for the rest of the turn", agent.name, line["content"], why)
        if (notify := getattr(agent.observer, "system", None)) is not None:
            notify(agent, line)
        agent.switches.append(fallback)  # the list is shared with the spec the turn started from
        agent = dataclasses.replace(agent, model=fallback)


def _check(cancelled: threading.Event) -> None:
    if cancelled.is_set():  # Ctrl-C in the main thread: a parallel subagent stops here
        raise Interrupted("interrupted")


_CUT_OFF = ("your reply was cut off at the output token limit, so this call may be incomplete. Make "
            "it again with less in it (for example, write a long file in several smaller steps)")
_ENDED_BY = {Stop.REFUSAL: "the reply was refused, which ended the turn",
             Stop.CONTEXT_EXCEEDED: "the conversation filled the context window, which ended the turn"}


def _not_run(call: ToolCall, why: str) -> dict[str, Any]:
    return tool_result(call.id, f"{call.name} was not run: {why}.", is_error=True)


def _append(messages: list[dict[str, Any]], message: dict[str, Any]) -> dict[str, Any]:
    messages.append(message)
    return message


def _record(agent: AgentSpec, message: dict[str, Any]) -> None:
    if agent.transcript is not None:
        agent.transcript.append(message)
    if agent.observer is not None:
        agent.observer.message(agent, message)


class _RepeatWatch:
    """Notices the same tool call with the same arguments made again and again in a row."""

    def __init__(self) -> None:
        self.last: tuple[str, str] | None = None
        self.count = 0

    def warn(self, calls: list, results: list[dict[str, Any]]) -> None:
        for call, result in zip(calls, results):
            signature = (call.name, json.dumps(call.arguments, sort_keys=True))
            self.count = self.count + 1 if signature == self.last else 1
            self.last = signature
            if self.count >= REPEAT_WARNING_AFTER:
                result["content"] += (
                    f"\n\n[warning: this is call {self.count} in a row to {call.name} with the same "
                    "arguments; repeating it will not change the result. Try something different, or "
                    "give your final answer.]"
                )

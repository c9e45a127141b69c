"""Forks: a subagent that continues its parent's own conversation instead of starting fresh.

A fork runs with its parent's exact system prompt, tools and model, and its first request is
the parent's latest request (the same system prompt, tools, model and messages) plus the
parent's reply holding the Agent call and one user turn: that call's result and the fork's
directive. Every request of the parent is therefore a byte prefix of the fork's first one, and the
prompt cache the parent wrote serves the fork. As Claude Code 2.1.332 does, the fork type is on
unless CLAUDE_CODE_FORK_SUBAGENT=0, a fork runs in the background when its caller's other agents
would (agent.subagents.background), and may start other agents but never a fork. (agent.subagents.fork
runs forked skills, which start fresh.)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable

from agent.conversation import text_block, tool_result
from agent.errors import ProviderError
from agent.loop import AgentSpec, Result
from agent.subagents.background import Task
from agent.subagents.results import ended_early, format_result
from agent.subagents.runner import run_subagent
from agent.subagents.worktree_guard import guarded
from agent.subagents.worktrees import WORKTREE_FACTS, Worktree, close_worktree, open_worktree, wants_worktree
from agent.tools.base import ToolError
from agent.tools.execute import by_name

FORK_TYPE = "fork"
STARTED = "Fork started: this fork is you. Your directive follows."
NESTED = ("A fork cannot start another fork. Do this part of your directive yourself, with your own tools, "
          "and report it.")
INSTRUCTIONS = """\
<fork-instructions>
You are a fork of the agent whose conversation is above. That conversation is what you inherited, as \
background: you are not that agent, and its open questions are not yours. Carry out the one directive \
below, then stop.
- Do the work yourself with your tools: a fork may not fork again.
- Report once, at the end, and stop: no questions back, no offers of next steps. Nobody will answer you.
- Keep to the directive: other forks may be doing the work next to it. Mention anything outside it in \
one sentence and move on.
- Begin your report with one line that restates the directive, so your parent sees at once whether \
you kept to it.
- Be brief and plain: the shortest report that fully answers.
- If you changed files or made commits, list the paths (and the commit hashes).
</fork-instructions>

Directive: {directive}"""
LAUNCHED = (  # a background fork's launch result; SendMessage does not continue a fork, so it names none
    "Fork launched in the background. (This tool result is internal metadata: never quote any part of it, "
    "its agentId included, in a reply to the user.)\n"
    "agentId: {id} (internal ID - do not mention to user.)\n"
    "The fork is working on its directive. You will be notified automatically when it completes. Until then "
    "you know nothing of what it found: do not guess it or do its work; go on with something else, or end your "
    "turn to wait for its report."
)
IN_WORKTREE = (  # what an isolated fork is told after its directive (its system prompt stays its parent's)
    "You work in an isolated git worktree at {worktree}: a separate copy of the repository your parent works "
    "in at {parent}, with the same files at the same relative paths. Paths in the conversation above are your "
    "parent's: use the same paths relative to your worktree. Your parent may have changed files since they "
    "appear above, so read a file again before you edit it. Your changes stay in the worktree; your parent's "
    "files are not touched."
)
AGENT_INTRO = (  # the Agent tool's description opens so in fork mode
    "Launch a subagent to handle a task on its own: it does the work with its own tools and returns one "
    "final report. Several Agent calls in one reply run at the same time.\n"
    "subagent_type \"fork\" forks you: the fork continues from this very conversation, with your system "
    "prompt, tools and model (a `model` given is ignored), so it shares your prompt cache and needs no "
    "background. Its prompt is a directive: what to do, and what is in and out of its scope. Its tool calls "
    "and their output stay out of your context; only its report comes back. Fork when a task's intermediate "
    "output (searches, logs, files read) is not worth keeping here, or to try independent approaches side "
    "by side. A fork cannot fork again. Until a fork's report arrives you know nothing of what it found: "
    "never guess it.\n"
    "Every other type starts fresh, with only your prompt (none of this conversation): write that prompt "
    "as a complete brief. Available agent types:"
)


@dataclass(frozen=True)
class Inherited:
    """What a fork starts from: the conversation it continues and the user turn it starts with."""

    history: list[dict[str, Any]]
    opening: dict[str, Any]


def is_fork(agent: AgentSpec) -> bool:
    """Whether `agent` is a fork (the main conversation never is, whatever it is called)."""
    return agent.depth > 0 and agent.name == FORK_TYPE


def directive_text(directive: str) -> str:
    """The text that tells a fork what it is and what to do."""
    return INSTRUCTIONS.format(directive=directive)


def forked_conversation(context, arguments: dict[str, Any]) -> Inherited:
    """What the fork an Agent call (with `arguments`) starts inherits: the caller's conversation as
    its latest request sent it, the reply that made the call (its other calls left out: they are
    the caller's to run), and a user turn answering the call and giving the call's prompt as the
    directive. A fork's own fork call is refused (ToolError)."""
    if is_fork(context.agent):
        raise ToolError(NESTED)
    directive = arguments["prompt"]
    messages = list(context.messages or ())
    reply = messages[-1] if messages else None
    if reply is None or reply.get("role") != "assistant" or not isinstance(reply.get("content"), list):
        raise ToolError("this conversation cannot be forked here")
    own = [block for block in reply["content"]
           if block.get("type") != "tool_use" or block.get("id") == context.call_id]
    opening = {"role": "user", "content": [tool_result(context.call_id or "", STARTED),
                                           text_block(directive_text(directive))]}
    return Inherited([*messages[:-1], {**reply, "content": own}], opening)


def fork_spec(session, parent: AgentSpec, call_id: str | None, agent_id: str, name: str | None = None,
              worktree: Worktree | None = None) -> AgentSpec:
    """The fork of `parent` (started by the call `call_id`, or by /fork), one level below it:
    everything else the parent's (its system prompt; its tools, the same objects, so the same
    schemas in the same order; its model, effort, turn limit, permissions and folder), with its
    own transcript and its hooks as a subagent's (its Stop is SubagentStop). In a `worktree`, that
    is its folder and its permissions' workspace, and its Bash, Write and Edit are held to it
    (agent.subagents.worktree_guard): the same tools, checked first, with the same schemas."""
    spec = replace(parent, name=FORK_TYPE, depth=parent.depth + 1, parent_tool_use_id=call_id,
                   transcript=session.transcript(FORK_TYPE, agent_id, name, parent.model),
                   hooks=parent.hooks.for_subagent() if parent.hooks is not None else None)
    if worktree is None:
        return spec
    policy = replace(parent.policy, cwd=worktree.workspace.cwd) if parent.policy is not None else None
    return replace(spec, workspace=worktree.workspace, policy=policy, tools=by_name(guarded(parent.tools.values())))


def in_worktree(inherited: Inherited, parent_folder, worktree: Worktree) -> Inherited:
    """What a fork isolated in `worktree` inherits: its opening turn also says where it works."""
    note = " ".join([IN_WORKTREE.format(worktree=worktree.path, parent=parent_folder), *WORKTREE_FACTS])
    opening = inherited.opening
    return Inherited(inherited.history, {**opening, "content": [*opening["content"], text_block(note)]})


def run_fork(spec: AgentSpec, inherited: Inherited, session, description: str, background: bool = False) -> Result:
    """Run the fork `spec` from what it `inherited`, accounted as any subagent. Its transcript
    gets the inherited conversation first: the fork's whole conversation is there."""
    if spec.transcript is not None:
        for message in inherited.history:
            spec.transcript.append(message)
    return run_subagent(spec, "", session, FORK_TYPE, description, history=inherited.history,
                        background=background, opening=inherited.opening)


def start_fork(context, inherited: Inherited, arguments: dict[str, Any], agent_id: str, background: bool,
               release: Callable[[], None]) -> str:
    """Run the fork of the Agent call in `context` (its running-agent place taken; `release` frees
    it when it ends), in a worktree of its own when the call asks for isolation: in the
    background, the launch result at once and its report as a notification later; in the
    foreground, its report as the call's result (with the kept worktree's path and branch).
    Neither offers SendMessage: a fork is not continued."""
    session, caller = context.session, context.agent
    try:  # a worktree it cannot have is this call's error, before the fork starts
        worktree = open_worktree(session, caller.name, agent_id) if wants_worktree(arguments, None) else None
    except ToolError:
        release()
        raise
    spec = fork_spec(session, caller, context.call_id, agent_id, worktree=worktree)
    if worktree is not None:
        inherited = in_worktree(inherited, context.workspace.cwd, worktree)

    def work() -> Result:
        try:
            return run_fork(spec, inherited, session, arguments["description"], background)
        finally:
            release()
            if worktree is not None:  # kept when it changed, else removed with its branch
                close_worktree(session, caller.name, worktree)

    if background:
        task = Task(agent_id, context.call_id, FORK_TYPE, arguments["description"], arguments["prompt"],
                    worktree=worktree)
        session.background.launch(task, work)
        return LAUNCHED.format(id=agent_id)
    try:
        result = work()
    except ProviderError as exc:  # stopped before it wrote anything: its caller's error result, and it goes on
        raise ToolError(ended_early("the fork", exc)) from None
    return format_result(FORK_TYPE, agent_id, result, False, worktree.lines() if worktree and worktree.kept else ())

"""The Agent tool: delegate a task to a subagent that starts from the task alone.

Its description lists the agent types it may start (their catalog lines, which share the skill
catalog's budget, with the tools each will really get). When those lines had to be shortened,
the tool also answers `search` with the full entries.
"""

from __future__ import annotations

from typing import Any, Collection

from agent.errors import ProviderError
from agent.skills.catalog import SHORTENED_NOTE, Entry, one_line, search
from agent.subagents.background import Task, in_background
from agent.subagents.definitions import AgentDefinition, filter_tools
from agent.subagents.forks import AGENT_INTRO, FORK_TYPE, forked_conversation, start_fork
from agent.subagents.messaging import remember_run
from agent.subagents.models import call_properties, check_call_choices
from agent.subagents.results import ended_early, format_result
from agent.subagents.runner import run_subagent, subagent_spec
from agent.subagents.servers import agent_servers
from agent.subagents.worktrees import close_worktree, open_worktree, wants_worktree
from agent.tools.base import Tool, ToolError, object_schema
from agent.transcripts import agent_id_for

DEFAULT_MAX_CONCURRENT = 20  # CLAUDE_CODE_MAX_CONCURRENT_SUBAGENTS
DEFAULT_TYPE = "general-purpose"

INTRO = (
    "Launch a subagent to handle a self-contained task on its own: it starts fresh, with only your "
    "prompt (none of this conversation), does the work with its own tools, and returns one final "
    "report. Write the prompt as a complete brief. Several Agent calls in one reply run at the same "
    "time. Available agent types:"
)


def agent_entry(definition: AgentDefinition, offered: list[str], own: Collection[str] = ()) -> Entry:
    """An agent type's catalog entry: its description, then the tools it will really get out of
    the `offered` tool names (not the ones its definition names but this agent does not have; the
    `own` ones of the session's servers its mcpServers name), and the inline MCP servers it starts."""
    try:
        tools = filter_tools(offered, definition, own)
    except ValueError:
        tools = []
    if definition.tools is None and not definition.disallowed_tools:
        listed = "all tools"
    else:
        types = definition.spawnable_types
        listed = ", ".join(f"Agent({', '.join(types)})" if tool == "Agent" and types is not None else tool
                           for tool in tools) or "none"
    inline = [server.name for server in definition.mcp_servers if server.config is not None]
    started = f"; and its own MCP servers' tools ({', '.join(inline)})" if inline else ""
    return Entry(definition.name, f"{one_line(definition.description)} (Tools: {listed}{started})")


def _available(agents: dict[str, AgentDefinition], searchable: bool) -> str:
    """How a refused call is told the types it may use."""
    return "call Agent with `search` to look types up" if searchable else f"Available agents: {', '.join(agents)}"


def agent_tool(agents: dict[str, AgentDefinition], entries: dict[str, Entry], lines: dict[str, str],
               searchable: bool = False, forks: bool = False, offers_model: bool = True) -> Tool:
    """The Agent tool over the subagent `agents`, listed by their catalog `lines` (and, with
    `searchable`, answering `search` from their full `entries`); with `forks`, it also forks its
    caller (agent.subagents.forks). A call chooses the agent's model only when `offers_model`
    (not under CLAUDE_CODE_SUBAGENT_MODEL_FORCE), and its effort (agent.subagents.models)."""
    description = "\n".join([AGENT_INTRO if forks else INTRO, *(lines[name] for name in agents)])
    if searchable:
        description += "\n" + SHORTENED_NOTE.format(tool="Agent")

    def run(arguments: dict[str, Any], context) -> str:
        if searchable and "prompt" not in arguments and isinstance(arguments.get("search"), str):
            return search([entries[name] for name in agents], arguments["search"], "agent types")
        missing = [key for key in ("description", "prompt") if not isinstance(arguments.get(key), str)]
        if missing:
            raise ToolError(f"missing required argument(s): {', '.join(missing)}")
        check_call_choices(arguments, offers_model)  # aliases only, as in Claude Code
        session = context.session
        if not str(arguments.get("subagent_type") or "").strip() and DEFAULT_TYPE not in agents:
            raise ToolError("subagent_type is required: the general-purpose agent is not available in this "
                            f"session. {_available(agents, searchable)}")  # Claude Code's words
        kind = (arguments.get("subagent_type") or DEFAULT_TYPE).strip()
        fork = forks and kind == FORK_TYPE  # the fork type wins over an agent of that name
        definition = None if fork else agents.get(kind)
        if definition is None and not fork:
            raise ToolError(f"Agent type {kind!r} not found. {_available(agents, searchable)}")  # Claude Code's words
        inherited = forked_conversation(context, arguments) if fork else None  # a fork's fork is refused
        with session.lock:  # before the spec: preloading a skill may run its commands
            if session.running_subagents >= session.max_concurrent:
                raise ToolError(
                    f"Concurrent subagent limit reached ({session.max_concurrent} running). Do not retry "
                    "this call now; do the work yourself or wait for the running agents to finish."
                )
            session.running_subagents += 1
        agent_id = agent_id_for(context.call_id)
        background = in_background(arguments, definition, context.agent)
        if inherited is not None:  # its parent's tools, no servers of its own (agent.subagents.forks)
            return start_fork(context, inherited, arguments, agent_id, background, lambda: _free(session))
        try:  # a worktree it cannot have is this call's error, before the agent starts
            worktree = open_worktree(session, context.agent.name, agent_id) if wants_worktree(arguments, definition) else None
        except ToolError:
            _free(session)
            raise

        def delegate():
            """Run the agent (its slot taken above, freed here): its Result and whether it can be continued."""
            try:
                with agent_servers(session, definition) as own:  # its inline MCP servers run as long as it does
                    spec = subagent_spec(session, definition, context.agent, kind, [arguments.get("model")],
                                         parent_tool_use_id=context.call_id, own=own, effort=arguments.get("effort"),
                                         workspace=worktree.workspace if worktree else None, background=background)
                    result = run_subagent(spec, arguments["prompt"], session, kind, arguments["description"],
                                          background=background)
            finally:
                with session.lock:
                    session.running_subagents -= 1
                if worktree is not None:  # kept when it changed, else removed with its branch
                    close_worktree(session, context.agent.name, worktree)
            return result, remember_run(session, agent_id, kind, kind, spec.model, result.messages,
                                        worktree is not None, arguments.get("effort"), background)

        if background:  # returns at once; the report comes back as a notification (agent.subagents.background)
            task = Task(agent_id, context.call_id, kind, arguments["description"], arguments["prompt"], worktree=worktree)
            return session.background.launch(task, lambda: delegate()[0])
        try:
            result, resumable = delegate()
        except ProviderError as exc:  # stopped before it wrote anything: its caller's error result, and it goes on
            raise ToolError(ended_early(f"the {kind} agent", exc)) from None
        return format_result(kind, agent_id, result, resumable, worktree.lines() if worktree and worktree.kept else ())

    properties = {
        "description": {"type": "string", "description": "A short (3-5 word) description of the task."},
        "prompt": {"type": "string", "description": "The complete task for the agent."},
        "subagent_type": {"type": "string", "description": f"The agent type to use (default {DEFAULT_TYPE}"
                          + ('; "fork" forks you).' if forks else ").")},
        **call_properties(offers_model, forks),  # model and effort
        "run_in_background": {"type": "boolean", "description": (
            "Run the agent in the background (the default for the main conversation's calls): this call returns "
            "at once and its report arrives later as a notification. false waits for the report as this call's "
            "result. Agents started by subagents always run in the foreground.")},
        "isolation": {"type": "string", "enum": ["worktree"], "description": (
            "Isolation mode. \"worktree\" creates a temporary git worktree so the agent works on an isolated copy "
            "of the repository: it is removed if the agent changes nothing; otherwise its path and branch are "
            "returned in the result.")},
    }
    if searchable:
        properties["search"] = {"type": "string", "description": "Words to look for in the agent types' full descriptions (instead of a task)."}
    parameters = object_schema(properties, [] if searchable else ["description", "prompt"])
    return Tool("Agent", description, parameters, run, parallel=True, delegates=True)


def _free(session) -> None:
    """Give back the running-agent place an Agent call took."""
    with session.lock:
        session.running_subagents -= 1

"""The Agent tool: delegate a task to a subagent that starts from the task alone."""

from __future__ import annotations

from typing import Any

from agent.subagents.runner import positive_env, run_subagent, subagent_spec
from agent.tools.base import Tool, ToolError, object_schema

DEFAULT_MAX_CONCURRENT = 20
DEFAULT_TYPE = "general-purpose"

INTRO = (
    "Launch a subagent to handle a self-contained task on its own: it starts fresh, with only your "
    "prompt (none of this conversation), does the work with its own tools, and returns one final "
    "report. Write the prompt as a complete brief. Several Agent calls in one reply run at the same "
    "time. Available agent types:"
)


def max_concurrent() -> int:
    """How many subagents may run at once (CLAUDE_CODE_MAX_CONCURRENT_SUBAGENTS)."""
    return positive_env("CLAUDE_CODE_MAX_CONCURRENT_SUBAGENTS", DEFAULT_MAX_CONCURRENT)


def _describe(definition) -> str:
    tools = ", ".join(definition.tools) if definition.tools is not None else "all"
    if definition.disallowed_tools:
        tools += " except " + ", ".join(definition.disallowed_tools)
    return f"- {definition.name}: {definition.description} (Tools: {tools})"


def agent_tool(agents: dict[str, Any]) -> Tool:
    """The Agent tool over the subagent `agents` (a name -> AgentDefinition mapping)."""
    description = "\n".join([INTRO, *(_describe(d) for d in agents.values())])

    def run(arguments: dict[str, Any], context) -> str:
        session = context.session
        kind = (arguments.get("subagent_type") or DEFAULT_TYPE).strip()
        definition = agents.get(kind)
        if definition is None:
            raise ToolError(f"unknown subagent_type {kind!r}; valid types: {', '.join(agents)}")
        spec = subagent_spec(session, definition, context.agent, kind, [arguments.get("model")])
        with session.lock:
            if session.running_subagents >= max_concurrent():
                raise ToolError(
                    f"Concurrent subagent limit reached ({max_concurrent()} running). Do not retry "
                    "this call now; do the work yourself or wait for the running agents to finish."
                )
            session.running_subagents += 1
        try:
            result = run_subagent(spec, arguments["prompt"], session, kind, arguments["description"])
        finally:
            with session.lock:
                session.running_subagents -= 1
        report = result.text.strip()
        if result.is_error:
            report = f"[partial result: the {kind} agent reached its turn limit ({result.turns} turns) before finishing]\n{report}"
        usage = result.usage
        return f"{report}\n\n<usage>turns: {result.turns}, input_tokens: {usage.input_tokens}, output_tokens: {usage.output_tokens}</usage>"

    parameters = object_schema(
        {
            "description": {"type": "string", "description": "A short (3-5 word) description of the task."},
            "prompt": {"type": "string", "description": "The complete task for the agent."},
            "subagent_type": {"type": "string", "description": f"The agent type to use (default {DEFAULT_TYPE})."},
            "model": {"type": "string", "description": "Optional model: sonnet, opus, haiku or a full model id."},
        },
        ["description", "prompt"],
    )
    return Tool("Agent", description, parameters, run, parallel=True)

"""A skill with `context: fork`: its rendered body run as a subagent's only message.

Slash commands call this directly; the Skill tool is handed it as a callable by the session, since
the skills layer sits below this one.
"""

from __future__ import annotations

from dataclasses import replace

from agent.loop import AgentSpec, Result
from agent.skills.commands import command_context
from agent.skills.discovery import Skill
from agent.skills.render import render
from agent.subagents.definitions import BUILTIN_AGENTS
from agent.subagents.results import framed_report
from agent.subagents.runner import run_subagent, subagent_spec
from agent.subagents.servers import agent_servers
from agent.tools.base import ToolError


def run_forked_skill(skill: Skill, args: str, session, parent: AgentSpec, append_arguments: bool = True,
                     parent_tool_use_id: str | None = None) -> Result:
    """Run `skill` in a subagent whose only message is the rendered body: no user question, no
    earlier history, no skill catalog, and not this skill among its tools. Its `agent` field picks
    the definition (system prompt, tools, model; general-purpose by default); its `model` wins.
    The Result's text is the answer as its caller gets it: the framed report (agent.subagents.results)."""
    kind = skill.agent or "general-purpose"
    definition = session.agents.get(kind) or BUILTIN_AGENTS.get(kind)
    if definition is None:
        raise ToolError(f"skill {skill.name!r} names agent {kind!r}, which does not exist; valid: {', '.join(session.agents)}")
    with agent_servers(session, definition) as own:  # its agent's inline MCP servers run while the fork does
        spec = subagent_spec(
            session, definition, parent, f"skill:{skill.name}", [skill.model],
            exclude_skill=skill.name, granted=skill.allowed_rules(str(session.workspace.cwd)),
            parent_tool_use_id=parent_tool_use_id, own=own,
        )
        if skill.hooks:  # the skill's hooks run while its fork does
            spec.hooks = skill.hooks.for_subagent().plus(spec.hooks)
        # the body's commands run under the fork's policy: the parent's, plus the skill's allowed-tools
        body = render(skill, args, command_context(session, spec.policy), append_arguments=append_arguments)
        result = run_subagent(spec, body, session, f"skill:{skill.name}", f"/{skill.name} ({kind})")
    # its answer reaches the conversation framed as the subagent's words, imitations of the harness escaped
    return replace(result, text=framed_report(f"skill:{skill.name}", result))

"""The Skill tool, and running a skill in a subagent (`context: fork`)."""

from __future__ import annotations

from typing import Any

from agent.loop import AgentSpec, Result
from agent.skill_render import render
from agent.permissions import grant
from agent.skills import Skill, SkillError
from agent.subagent import run_subagent, subagent_spec
from agent.tools.base import Tool, ToolError, object_schema

DESCRIPTION = (
    "Load a skill: a packaged set of instructions for a kind of task. The available skills are "
    "listed in the system prompt. When a request matches one, call this tool with its name before "
    "doing anything else, then follow the instructions it returns."
)


def skill_tool(skills: dict[str, Skill], exclude: str | None = None) -> Tool:
    """The Skill tool over the model-invocable `skills` (less `exclude`, a fork's own skill)."""
    offered = {n: s for n, s in skills.items() if s.model_invocable and n != exclude}

    def run(arguments: dict[str, Any], context) -> str:
        name = arguments["skill"].strip().removeprefix("/")
        skill = offered.get(name)
        if skill is None:
            listed = ", ".join(offered) or "none"
            if name in skills and not skills[name].model_invocable:
                raise ToolError(f"skill {name!r} can only be invoked by the user (/{name}); available skills: {listed}")
            raise ToolError(f"unknown skill {name!r}; available skills: {listed}")
        args = arguments.get("args") or ""
        try:
            if skill.fork:
                # model-supplied args reach the subagent only through placeholders
                result = run_forked_skill(skill, args, context.session, context.agent, append_arguments=False)
                return f"Skill {name} ran in a separate context and returned: {result.text.strip()}"
            body = render(skill, args, context.workspace.cwd)
        except SkillError as exc:  # e.g. SKILL.md removed since discovery
            raise ToolError(str(exc)) from None
        activate_skill(context.agent, skill)
        return body

    parameters = object_schema(
        {
            "skill": {"type": "string", "description": "The skill's exact name from the list."},
            "args": {"type": "string", "description": "Optional arguments for the skill."},
        },
        ["skill"],
    )
    return Tool("Skill", DESCRIPTION, parameters, run, read_only=True)


def activate_skill(agent: AgentSpec, skill: Skill) -> None:
    """An inline skill's effect on the conversation that loaded it, for the rest of the run: its
    `model` takes over, and its `allowed-tools` need no approval."""
    if skill.model:
        agent.model = skill.model
    agent.policy = grant(agent.policy, skill.allowed_tools)


def run_forked_skill(skill: Skill, args: str, session, parent: AgentSpec, append_arguments: bool = True) -> Result:
    """Run `skill` in a subagent whose only message is the rendered body: no user question, no
    earlier history, no skill catalog, and not this skill among its tools. Its `agent` field picks
    the definition (system prompt, tools, model; general-purpose by default); its `model` wins."""
    from agent.agents import BUILTIN_AGENTS

    kind = skill.agent or "general-purpose"
    definition = session.agents.get(kind) or BUILTIN_AGENTS.get(kind)
    if definition is None:
        raise ToolError(f"skill {skill.name!r} names agent {kind!r}, which does not exist; valid: {', '.join(session.agents)}")
    body = render(skill, args, session.workspace.cwd, append_arguments=append_arguments)
    spec = subagent_spec(
        session, definition, parent, f"skill:{skill.name}", [skill.model],
        exclude_skill=skill.name, granted=skill.allowed_tools,
    )
    return run_subagent(spec, body, session, f"skill:{skill.name}", f"/{skill.name} ({kind})")

"""The Skill tool, and running a skill in a subagent (`context: fork`)."""

from __future__ import annotations

from typing import Any

from agent.loop import AgentSpec, Result
from agent.prompt import subagent_system_prompt
from agent.skill_render import render
from agent.skills import Skill, SkillError
from agent.subagent import run_subagent
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
        if skill.model:
            context.agent.model = skill.model
        return body

    parameters = object_schema(
        {
            "skill": {"type": "string", "description": "The skill's exact name from the list."},
            "args": {"type": "string", "description": "Optional arguments for the skill."},
        },
        ["skill"],
    )
    return Tool("Skill", DESCRIPTION, parameters, run, read_only=True)


def run_forked_skill(skill: Skill, args: str, session, parent: AgentSpec, append_arguments: bool = True) -> Result:
    """Run `skill` in a subagent whose only message is the rendered body: no user question, no
    earlier history, no skill catalog, and not this skill among its tools."""
    from agent.tools import builtin_tools, by_name

    body = render(skill, args, session.workspace.cwd, append_arguments=append_arguments)
    tools = builtin_tools()
    if any(s.model_invocable and n != skill.name for n, s in session.skills.items()):
        tools.append(skill_tool(session.skills, exclude=skill.name))
    spec = AgentSpec(
        name=f"skill:{skill.name}",
        system=subagent_system_prompt(str(session.workspace.cwd)),
        tools=by_name(tools),
        model=skill.model or session.model,
        max_turns=session.max_turns,
        depth=parent.depth + 1,
    )
    return run_subagent(spec, body, session)

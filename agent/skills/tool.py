"""The Skill tool: the model loads a skill by name. An inline skill's rendered body is the tool
result; a forked one (`context: fork`) runs through the `fork` callable the session hands in (the
subagents layer, above this one) and only its answer comes back."""

from __future__ import annotations

from typing import Any, Callable

from agent.permissions.policy import grant
from agent.skills.discovery import Skill, SkillError
from agent.skills.render import render
from agent.tools.base import Tool, ToolError, object_schema

# fork(skill, args, session, parent agent, append_arguments) -> the subagent's Result
Fork = Callable[..., Any]

DESCRIPTION = (
    "Load a skill: a packaged set of instructions for a kind of task. The available skills are "
    "listed in the system prompt. When a request matches one, call this tool with its name before "
    "doing anything else, then follow the instructions it returns."
)


def skill_tool(skills: dict[str, Skill], fork: Fork, exclude: str | None = None) -> Tool:
    """The Skill tool over the model-invocable `skills` (less `exclude`, a fork's own skill);
    `fork` runs a `context: fork` skill in a subagent."""
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
                result = fork(skill, args, context.session, context.agent, append_arguments=False)
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


def activate_skill(agent, skill: Skill) -> None:
    """An inline skill's effect on the conversation that loaded it, for the rest of the run: its
    `model` takes over, and its `allowed-tools` need no approval."""
    if skill.model:
        agent.model = skill.model
    agent.policy = grant(agent.policy, skill.allowed_tools)

"""The Skill tool: the model loads a skill by name. An inline skill's rendered body is the tool
result; a forked one (`context: fork`) runs through the `fork` callable the session hands in (the
subagents layer, above this one) and only its answer comes back. When the catalog had to shorten
descriptions, the tool also answers `search` with the full ones."""

from __future__ import annotations

from typing import Any, Callable

from agent.errors import ProviderError
from agent.model.providers import resolve_model
from agent.permissions.policy import grant
from agent.skills.catalog import search, skill_entry
from agent.skills.commands import command_context
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
SEARCH_DESCRIPTION = (
    " The list shortens descriptions to fit: to read them in full, call this tool with `search` "
    "(words to look for, or an empty string for all) instead of `skill`."
)


def skill_tool(skills: dict[str, Skill], fork: Fork, exclude: str | None = None, searchable: bool = False) -> Tool:
    """The Skill tool over the model-invocable `skills` (less `exclude`, a fork's own skill);
    `fork` runs a `context: fork` skill in a subagent. With `searchable`, the tool also takes
    `search` and answers it with the matching skills' full descriptions."""
    offered = {n: s for n, s in skills.items() if s.model_invocable and n != exclude}

    def run(arguments: dict[str, Any], context) -> str:
        if "skill" not in arguments:
            if searchable and isinstance(arguments.get("search"), str):
                return search([skill_entry(s) for s in offered.values()], arguments["search"], "skills")
            raise ToolError("give `skill` (a name from the list) to load a skill, or `search` to look one up")
        name = arguments["skill"].strip().removeprefix("/")
        skill = offered.get(name)
        if skill is None:
            if name in skills and not skills[name].model_invocable:
                raise ToolError(f"skill {name!r} can only be invoked by the user (/{name}); {_available(offered, searchable)}")
            raise ToolError(f"unknown skill {name!r}; {_available(offered, searchable)}")
        args = arguments.get("args") or ""
        try:
            if skill.fork:
                # model-supplied args reach the subagent only through placeholders
                result = fork(skill, args, context.session, context.agent, append_arguments=False,
                              parent_tool_use_id=getattr(context, "call_id", None))
                return f"Skill {name} ran in a separate context and returned: {result.text.strip()}"
            body = render(skill, args, command_context(context.session, context.agent.policy, context.workspace.cwd))
        except SkillError as exc:  # e.g. SKILL.md removed since discovery
            raise ToolError(str(exc)) from None
        except ProviderError as exc:  # the fork's subagent failed: its caller goes on
            raise ToolError(f"skill {name!r} ran in a subagent that failed: {exc}") from None
        activate_skill(context.agent, skill, context.session)
        return body

    properties = {
        "skill": {"type": "string", "description": "The skill's exact name from the list."},
        "args": {"type": "string", "description": "Optional arguments for the skill."},
    }
    description = DESCRIPTION
    if searchable:
        properties["search"] = {"type": "string", "description": "Words to look for in the skills' full descriptions."}
        description += SEARCH_DESCRIPTION
    parameters = object_schema(properties, [] if searchable else ["skill"])
    return Tool("Skill", description, parameters, run, read_only=True, delegates=True)


def _available(offered: dict[str, Skill], searchable: bool) -> str:
    if searchable:
        return "call Skill with `search` to look the name up"
    return f"available skills: {', '.join(offered) or 'none'}"


def activate_skill(agent, skill: Skill, session) -> None:
    """An inline skill's effect on the conversation that loaded it, for the rest of the run: its
    `model` (an alias resolved as everywhere) takes over, its `allowed-tools` need no approval, and
    its `hooks` run with the conversation's own."""
    if skill.model:
        agent.model = resolve_model([skill.model], session.model_aliases, agent.model)
    agent.policy = grant(agent.policy, skill.allowed_rules(str(session.workspace.cwd)))
    if skill.hooks:  # its Stop is the end of the conversation that loaded it: a subagent's is SubagentStop
        hooks = skill.hooks.for_subagent() if agent.depth > 0 else skill.hooks
        agent.hooks = hooks if agent.hooks is None else agent.hooks.plus(hooks)

"""Running a subagent: the same loop, with a fresh conversation, its own system prompt, tools and
model.

The Agent tool and forked skills both build their subagent here, so tool filtering, model
resolution, the depth cap and the accounting have one implementation. The tools on offer come
from the session (`session.tools_for`), which knows every tool, this layer's own Agent tool
included, so nothing here imports the layer that assembles them.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any, Sequence

from agent.conversation import Stop, user_message, with_blocks
from agent.errors import ProviderError
from agent.hooks import events as hooks
from agent.loop import AgentSpec, Result, run_loop
from agent.model.output_limit import OutputLimitReached
from agent.model.pricing import cost_usd
from agent.permissions.policy import grant
from agent.prompt import subagent_system_prompt
from agent.skills.commands import command_context
from agent.skills.discovery import SkillError
from agent.skills.render import render
from agent.subagents.agent_memory import agent_memory, memory_tools
from agent.subagents.background_tools import background_tools
from agent.subagents.definitions import AgentDefinition, filter_tools, tool_name
from agent.subagents.models import subagent_effort, subagent_model
from agent.subagents.startup import skill_listing, subagent_context
from agent.subagents.worktree_guard import guarded
from agent.subagents.worktrees import WORKTREE_FACTS, worktree_git_status
from agent.subagents.results import recovered
from agent.tools.base import Tool, ToolError
from agent.tools.execute import by_name
from agent.transcripts import agent_id_for

log = logging.getLogger("agent")

DEFAULT_MAX_DEPTH = 3  # CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH; 1 disables nesting


def subagent_spec(
    session, definition: AgentDefinition, parent: AgentSpec, label: str, models: list[str | None] = (),
    exclude_skill: str | None = None, granted: tuple[str, ...] = (), parent_tool_use_id: str | None = None,
    own: Sequence[Tool] = (), agent_id: str | None = None, agent_name: str | None = None, workspace: Any = None,
    effort: str | None = None, background: bool = False,
) -> AgentSpec:
    """The AgentSpec for running `definition` one level below `parent`: its body as system prompt
    (plus any preloaded skills and the environment note), its filtered tools with its `own` MCP
    tools (see agent.subagents.servers: kept whatever its `tools` say, replacing a session tool of
    the same name), its model (`models` first: see agent.subagents.models) and effort (the call's
    `effort` first), its memory (agent.subagents.agent_memory), and the parent's permission policy (its rules: a subagent may do no more than
    its parent allows) in the mode its permissionMode and the parent's combine to (see
    agent.permissions.modes), plus the `granted` rules. It works in `workspace` (its worktree, see
    agent.subagents.worktrees), else in its parent's: the policy's workspace is then that worktree,
    and its Bash, Write and Edit are held to it (agent.subagents.worktree_guard). In the
    `background`, it keeps only Claude Code's allow-list of built-ins (agent.subagents.background_tools)."""
    depth = parent.depth + 1
    workspace = workspace or parent.workspace or session.workspace
    extra = {tool.name: tool for tool in own}
    tools = session.tools_for(depth, exclude_skill, definition.spawnable_types)
    tools = [extra.pop(tool.name, tool) for tool in tools] + list(extra.values())
    try:
        names = filter_tools([tool.name for tool in tools], definition, {tool.name for tool in own})
    except ValueError as exc:
        raise ToolError(str(exc)) from None
    memory = agent_memory(definition, session)
    if memory is not None:  # Read, Write and Edit, whatever its tools say
        names = memory_tools(names, [tool.name for tool in tools], {tool_name(e) for e in definition.disallowed_tools})
    if background:
        names = background_tools(names, definition.name)
    own_mode = parent.policy.for_agent(definition.permission_mode) if parent.policy is not None else None
    policy = grant(own_mode, (*granted, *(memory.rules if memory else ())))
    if policy is not None and workspace.shared:  # the worktree is where its edits need no approval
        policy = replace(policy, cwd=workspace.cwd)
    if workspace.shared:
        tools = guarded(tools)
    try:
        body = definition.prompt
    except OSError as error:
        raise ToolError(f"cannot read the {definition.name} agent's file {definition.path}: {error.strerror or error}") from None
    if memory is not None:
        body += "\n\n" + memory.prompt
    for name in definition.skills:
        skill = session.skills.get(name)
        if skill is None or not skill.model_invocable:
            log.info("agent %s: skill %r cannot be preloaded", definition.name, name)
            continue
        try:
            body += "\n\n" + render(skill, "", command_context(session, policy, workspace.cwd))
        except SkillError as error:
            raise ToolError(f"the {definition.name} agent's skill {name!r} cannot be loaded: {error}") from None
    model = subagent_model(session, definition, models)
    return AgentSpec(
        name=label,
        system=subagent_system_prompt(str(workspace.cwd), body, session.append_subagent_system_prompt,
                                      WORKTREE_FACTS if workspace.shared else ()),
        tools=by_name(tool for tool in tools if tool.name in names),
        model=model,
        effort=subagent_effort(session, definition, model, effort),
        max_turns=definition.max_turns or session.max_turns,
        depth=depth,
        transcript=session.transcript(label, agent_id or agent_id_for(parent_tool_use_id), agent_name, model, effort),
        policy=policy,
        observer=parent.observer,
        parent_tool_use_id=parent_tool_use_id,
        hooks=definition.hooks.for_subagent() if definition.hooks else None,  # active only while it runs
        # a forked skill's agent starts from its body alone, no catalog (the course's mj2 checks it)
        context=subagent_context(session, definition, skill_listing(session) if "Skill" in names and exclude_skill is None else None,
                                 worktree_git_status(session, workspace) if workspace.shared else session.git_status),
        workspace=workspace,
        compact_window=definition.auto_compact_window,
    )


def run_subagent(spec: AgentSpec, prompt: str, session, kind: str, description: str,
                 history: Sequence[dict[str, Any]] = (), background: bool = False,
                 opening: dict[str, Any] | None = None) -> Result:
    """Run `spec` on a new conversation whose only message is `prompt` (no parent history), or
    continue its own earlier conversation `history` with `prompt` (or with the user turn `opening`
    in its place: a fork's, agent.subagents.forks), and record its turns and usage
    for the run's accounting. A provider error that cuts it off after it wrote text ends it
    with that text (subtype error_during_execution, the error in `error`); before any, it is raised.
    So is OutputLimitReached when its answer was still cut off at the output limit after every
    continuation (agent.model.output_limit): its caller gets the error, not the pieces."""
    if spec.depth > session.max_depth:
        raise ToolError(f"cannot start {spec.name}: subagents may nest at most {session.max_depth} levels deep")
    record: dict[str, Any] = {"type": kind, "description": description, "depth": spec.depth, "model": spec.model}
    if background:  # the JSON result marks an agent that ran while its caller went on
        record["background"] = True
    with session.lock:
        session.subagent_runs.append(record)
    log.info("subagent %s (depth %d, %s) starts", spec.name, spec.depth, spec.model)
    try:
        started = hooks.subagent_start(session, spec)  # what its SubagentStart hooks add comes first
        first = opening or with_blocks(user_message(prompt), [] if history else list(spec.context))  # a continued one has it
        result = run_loop(spec, [with_blocks(first, list(started))], session, list(history))
    except ProviderError as exc:
        record.update(subtype="error_during_execution", error=str(exc))
        log.info("subagent %s failed: %s", spec.name, exc)
        result = recovered(exc, len(history))  # what it wrote before the error goes back as partial output
        if result is None:
            raise
    if spec.switches:  # it ended on a --fallback-model model: its report says so
        result = replace(result, switched_to=spec.switches[-1])
    log.info("subagent %s finished: %s after %d turns", spec.name, result.subtype, result.turns)
    record.update(
        subtype=result.subtype,
        turns=result.turns,
        usage={**result.usage.as_dict(), "requests": result.usage.requests},
        cost_usd=cost_usd(spec.model, result.usage),
    )
    if result.stop_reason == Stop.MAX_TOKENS and not result.is_error:  # still cut off after every continuation
        error = OutputLimitReached(session.client.limits.max_tokens(spec.model))
        record.update(subtype="error_during_execution", error=str(error))
        raise error
    return result

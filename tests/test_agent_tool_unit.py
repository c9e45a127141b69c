"""The Agent tool's limits, checked without a model: nothing here reaches a provider."""

import pytest

from agent.subagents.definitions import BUILTIN_AGENTS, AgentDefinition
from agent.loop import AgentSpec, ToolContext
from agent.session import Session
from agent.subagents.runner import subagent_spec
from agent.tools.base import ToolError
from agent.subagents.tool import agent_tool
from agent.workspace import Workspace


def context(tmp_path, depth=0):
    session = Session(workspace=Workspace(tmp_path), model="main-model", agents=dict(BUILTIN_AGENTS))
    return ToolContext(session, AgentSpec("main", "", {}, "main-model", 10, depth=depth))


def test_concurrent_subagent_limit_refuses_the_call(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CODE_MAX_CONCURRENT_SUBAGENTS", "2")
    ctx = context(tmp_path)
    ctx.session.running_subagents = 2
    with pytest.raises(ToolError, match="Concurrent subagent limit reached"):
        agent_tool(ctx.session.agents).run({"description": "x", "prompt": "y"}, ctx)
    assert ctx.session.running_subagents == 2 and ctx.session.subagent_runs == []


def test_a_tools_list_naming_no_real_tool_is_an_error_naming_the_entries(tmp_path):
    ctx = context(tmp_path)
    broken = AgentDefinition("typo", "Typos.", "Body", tools=("Grpe", "Raed"))
    with pytest.raises(ToolError, match="Grpe, Raed"):
        subagent_spec(ctx.session, broken, ctx.agent, "typo")


def test_agent_tool_is_withheld_at_the_depth_cap(tmp_path, monkeypatch):
    ctx = context(tmp_path)
    names = lambda depth: [t.name for t in ctx.session.tools_for(depth)]
    assert "Agent" in names(2) and "Agent" not in names(3)
    monkeypatch.setenv("CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH", "1")
    assert "Agent" in names(0) and "Agent" not in names(1)


def test_model_aliases_map_per_provider(tmp_path, monkeypatch):
    ctx = context(tmp_path)
    definition = AgentDefinition("m", "M.", "Body", model="inherit")
    assert subagent_spec(ctx.session, definition, ctx.agent, "m").model == "main-model"
    monkeypatch.setenv("CLAUDE_CODE_SUBAGENT_MODEL", "some/full-id")
    assert subagent_spec(ctx.session, AgentDefinition("n", "N.", "Body"), ctx.agent, "n").model == "some/full-id"
    assert subagent_spec(ctx.session, AgentDefinition("n", "N.", "Body"), ctx.agent, "n", ["exact-id"]).model == "exact-id"

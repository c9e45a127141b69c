"""The Agent tool's limits, checked without a model: nothing here reaches a provider."""

import pytest

from agent.subagents.definitions import BUILTIN_AGENTS, AgentDefinition
from agent.loop import AgentSpec, ToolContext
from agent.model.providers import model_aliases
from agent.session import Session
from agent.subagents.runner import subagent_spec
from agent.tools.base import ToolError
from agent.workspace import Workspace


def context(tmp_path, depth=0):
    session = Session(workspace=Workspace(tmp_path), model="main-model", agents=dict(BUILTIN_AGENTS))
    return ToolContext(session, AgentSpec("main", "", {}, "main-model", 10, depth=depth))


def tool(ctx, name, depth=0, **options):
    return next(t for t in ctx.session.tools_for(depth, **options) if t.name == name)


def test_concurrent_subagent_limit_refuses_the_call(tmp_path):
    ctx = context(tmp_path)
    ctx.session.max_concurrent = 2
    ctx.session.running_subagents = 2
    with pytest.raises(ToolError, match="Concurrent subagent limit reached"):
        tool(ctx, "Agent").run({"description": "x", "prompt": "y"}, ctx)
    assert ctx.session.running_subagents == 2 and ctx.session.subagent_runs == []


def test_a_tools_list_naming_no_real_tool_is_an_error_naming_the_entries(tmp_path):
    ctx = context(tmp_path)
    broken = AgentDefinition("typo", "Typos.", "Body", tools=("Grpe", "Raed"))
    with pytest.raises(ToolError, match="Grpe, Raed"):
        subagent_spec(ctx.session, broken, ctx.agent, "typo")


def test_agent_tool_is_withheld_at_the_depth_cap(tmp_path):
    ctx = context(tmp_path)
    names = lambda depth: [t.name for t in ctx.session.tools_for(depth)]
    assert "Agent" in names(2) and "Agent" not in names(3)
    ctx.session.max_depth = 1
    assert "Agent" in names(0) and "Agent" not in names(1)


def test_model_aliases_map_per_provider(tmp_path):
    ctx = context(tmp_path)
    ctx.session.model_aliases = model_aliases("anthropic", "main-model")
    assert subagent_spec(ctx.session, AgentDefinition("s", "S.", "Body", model="Sonnet"), ctx.agent, "s").model == "claude-sonnet-4-5"
    assert subagent_spec(ctx.session, AgentDefinition("s", "S.", "Body", model="opus[1m]"), ctx.agent, "s").model == "claude-opus-4-5"
    definition = AgentDefinition("m", "M.", "Body", model="inherit")
    assert subagent_spec(ctx.session, definition, ctx.agent, "m").model == "main-model"
    ctx.session.subagent_model = "some/full-id"
    assert subagent_spec(ctx.session, AgentDefinition("n", "N.", "Body"), ctx.agent, "n").model == "some/full-id"
    assert subagent_spec(ctx.session, AgentDefinition("n", "N.", "Body"), ctx.agent, "n", ["exact-id"]).model == "exact-id"


def with_agents(tmp_path, *definitions, budget=None):
    ctx = context(tmp_path)
    ctx.session.agents = {d.name: d for d in sorted(definitions, key=lambda d: d.name)}
    if budget is not None:
        ctx.session.catalog_budget = budget
    return ctx


def test_listing_names_only_the_tools_an_agent_will_really_get(tmp_path):
    ctx = with_agents(tmp_path,
                      AgentDefinition("fetcher", "Fetches pages.", "Body", tools=("Read", "WebFetch", "mcp__web__get", "LS")),
                      AgentDefinition("lead", "Leads.", "Body", tools=("Read", "Agent(fetcher)")),
                      AgentDefinition("anyone", "Does anything.", "Body"))
    lines = [line for line in tool(ctx, "Agent").description.splitlines() if line.startswith("- ")]  # the types
    assert lines == ["- anyone: Does anything. (Tools: all tools)",
                     "- fetcher: Fetches pages. (Tools: Read, WebFetch)",
                     "- lead: Leads. (Tools: Read, Agent(fetcher))"]


def test_agent_restrictions_limit_which_types_a_subagent_may_start(tmp_path):
    lead = AgentDefinition("lead", "Leads.", "Body", tools=("Read", "Agent(worker, ghost)"))
    ctx = with_agents(tmp_path, lead, AgentDefinition("worker", "Works.", "Body"),
                      AgentDefinition("other", "Other.", "Body"))
    spec = subagent_spec(ctx.session, lead, ctx.agent, "lead")
    assert sorted(spec.tools) == ["Agent", "Read"]
    assert [line for line in spec.tools["Agent"].description.splitlines()
            if line.startswith("- ")] == ["- worker: Works. (Tools: all tools)"]
    with pytest.raises(ToolError, match="Agent type 'other' not found"):
        spec.tools["Agent"].run({"description": "x", "prompt": "y", "subagent_type": "other"},
                                ToolContext(ctx.session, spec))
    loner = AgentDefinition("loner", "Alone.", "Body", tools=("Read", "Agent()"))
    assert "Agent" not in subagent_spec(ctx.session, loner, ctx.agent, "loner").tools


def test_a_shortened_listing_can_be_searched_for_full_descriptions(tmp_path):
    long = "Reviews database migrations for locking problems. " + "It also checks rollback plans in detail. " * 5
    ctx = with_agents(tmp_path, *(AgentDefinition(f"agent-{i:02d}", f"Agent number {i}. {long}", "Body") for i in range(30)),
                      budget=2000)
    agent = tool(ctx, "Agent")
    assert len(agent.description) < 2600 and all(f"- agent-{i:02d}" in agent.description for i in range(30))
    assert "search" in agent.parameters["properties"] and agent.parameters["required"] == []
    found = agent.run({"search": "ROLLBACK agent-07"}, ctx)
    assert found.splitlines() == ["1 agent types match 'ROLLBACK agent-07':",
                                  f"- agent-07: Agent number 7. {long.strip()} (Tools: all tools)"]
    assert agent.run({"search": "number 7."}, ctx).splitlines()[0] == "3 agent types match 'number 7.':"
    assert agent.run({"search": "kubernetes"}, ctx).startswith("Nothing matches 'kubernetes' among the 30 agent types.")
    everything = agent.run({"search": ""}, ctx).splitlines()
    assert everything[0] == "All 30 agent types:" and len(everything) == 31
    with pytest.raises(ToolError, match="missing required argument"):
        agent.run({"subagent_type": "agent-01"}, ctx)


def _with_preloading_agent(tmp_path):
    """A session whose `notes` agent preloads the `notes` skill, whose file is then removed."""
    from agent.skills.discovery import discover_skills

    folder = tmp_path / ".claude" / "skills" / "notes"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: notes\ndescription: Keeps notes.\n---\nNOTES BODY\n")
    ctx = context(tmp_path)
    ctx.session.skills = {skill.name: skill for skill in discover_skills(tmp_path, tmp_path / "home")}
    ctx.session.agents["notes"] = AgentDefinition("notes", "Takes notes.", "Body", skills=("notes",))
    (folder / "SKILL.md").unlink()
    return ctx


def test_a_preloaded_skill_that_cannot_be_read_is_a_tool_error(tmp_path):
    ctx = _with_preloading_agent(tmp_path)
    with pytest.raises(ToolError, match="the notes agent's skill 'notes' cannot be loaded"):
        tool(ctx, "Agent").run({"description": "x", "prompt": "y", "subagent_type": "notes", "run_in_background": False}, ctx)
    assert ctx.session.running_subagents == 0


def test_the_concurrency_limit_is_checked_before_anything_is_loaded(tmp_path):
    ctx = _with_preloading_agent(tmp_path)
    ctx.session.max_concurrent = ctx.session.running_subagents = 1
    with pytest.raises(ToolError, match="Concurrent subagent limit reached"):
        tool(ctx, "Agent").run({"description": "x", "prompt": "y", "subagent_type": "notes"}, ctx)

"""The workspace-drift explanation (agent.record.workspace_drift) over request bodies of real
recorded cassettes, both wire formats: other skills, agent types, a missing Skill or Agent tool
and other CLAUDE.md text are named in one line; a change of the agent's own texts is not."""

from __future__ import annotations

import json

import pytest

from agent.record.cassette_file import read
from agent.record.workspace_drift import workspace_cause
from conftest import CASSETTES, PROVIDERS

SKILLS = "skills/test_vh1_advertise_skills"  # skills atlas, beacon and cinder
TWO_TURNS = "skills/test_gq2_let_the_model_choose_a_skill"  # a Skill call and the answer after it
PLAIN = "command_line/test_no_memory_keeps_the_first_message_a_plain_string"  # no skills, no CLAUDE.md
AGENTS = "subagents/test_project_agent_shadows_user_agent_and_cli_agents_win"  # agent types helper, tester too
PROJECT_MEMORY = "setting_sources/test_claude_md_follows_its_source"  # CLAUDE.md, .claude/CLAUDE.md
USER_LOCAL_MEMORY = "setting_sources/test_claude_md_follows_its_source-{provider}-2"  # ~/.claude/CLAUDE.md, CLAUDE.local.md


def body(name: str, provider: str, number: int = 0):
    """Request `number` of a committed cassette, as a replay reads it."""
    path = name.format(provider=provider) if "{provider}" in name else f"{name}-{provider}"
    return read(str(CASSETTES / f"{path}.yaml")).interactions[number].request


def edited(request, old: str, new: str):
    """`request` with text replaced wherever it occurs, as an edit of a file in the folder would."""
    text = json.dumps(request)
    assert json.dumps(old)[1:-1] in text
    return json.loads(text.replace(json.dumps(old)[1:-1], json.dumps(new)[1:-1]))


def without_tool(request, name: str):
    kept = [t for t in request["tools"] if (t.get("function") or t).get("name") != name]
    assert len(kept) == len(request["tools"]) - 1
    return {**request, "tools": kept}


@pytest.fixture(params=PROVIDERS)
def provider(request) -> str:
    return request.param


def test_other_skills_are_named(provider):
    skills, plain = body(SKILLS, provider), body(PLAIN, provider)
    assert workspace_cause(skills, plain) == "the recording offered skills atlas, beacon, cinder; this folder has none"
    assert workspace_cause(plain, skills) == "the recording offered no skills; this folder offers atlas, beacon, cinder"


def test_an_edited_skill_description_is_named(provider):
    skills = body(SKILLS, provider)
    changed = edited(skills, "Runs the search test suite and reports failures.", "Runs the search tests.")
    assert workspace_cause(skills, changed) == (
        "the description of skill beacon differs from the recording's (a SKILL.md in this folder or "
        "~/.claude/skills changed)")


def test_a_missing_skill_or_agent_tool_is_named(provider):
    skills = body(SKILLS, provider)
    assert workspace_cause(skills, without_tool(skills, "Skill")) == (
        "the recording offered the Skill tool; this folder has no skill the model may load")
    assert workspace_cause(skills, without_tool(skills, "Agent")) == (
        "the recording offered the Agent tool (agent types Explore, Plan, general-purpose); this request offers none")


def test_other_agent_types_are_named(provider):
    agents, plain = body(AGENTS, provider), body(PLAIN, provider)
    assert workspace_cause(agents, plain) == (
        "the recording offered agent types Explore, Plan, general-purpose, helper, tester; "
        "this folder offers Explore, Plan, general-purpose")


def test_other_claude_md_files_and_text_are_named(provider):
    project, plain = body(PROJECT_MEMORY, provider), body(PLAIN, provider)
    files = "{{workspace}}/CLAUDE.md, {{workspace}}/.claude/CLAUDE.md"
    assert workspace_cause(project, plain) == (
        f"CLAUDE.md differs: the recording's first user message carried {files}; this folder has none")
    assert workspace_cause(plain, project) == (
        f"CLAUDE.md differs: the recording carried no CLAUDE.md text; this folder adds {files}")
    assert workspace_cause(project, body(USER_LOCAL_MEMORY, provider)) == (
        f"CLAUDE.md differs from the recording's: this folder leaves out {files} and adds "
        "{{home}}/.claude/CLAUDE.md, {{workspace}}/CLAUDE.local.md")
    assert workspace_cause(project, edited(project, "Project rule.", "Project rule, edited.")) == (
        "CLAUDE.md differs: {{workspace}}/CLAUDE.md is not the text the recording carried "
        "(recorded 'Project rule.', now 'Project rule, edited.')")


def test_the_agents_own_changes_are_not_the_workspace(provider):
    skills = body(SKILLS, provider)
    assert workspace_cause(skills, skills) is None
    upgraded = edited(edited(skills, "a coding assistant", "a careful coding assistant"),
                      "Read a text file and return its raw contents.", "Read a text file.")
    assert upgraded != skills and workspace_cause(skills, upgraded) is None
    first, later = body(TWO_TURNS, provider), body(TWO_TURNS, provider, 1)  # the same conversation, further on
    assert first != later and workspace_cause(first, later) is None


@pytest.mark.parametrize("hostile", [None, "text", [], {"tools": "Skill", "messages": [1, None, {"role": "user"}]},
                                     {"system": [{"text": 3}], "tools": [None, {"function": 1}]}])
def test_any_shape_a_cassette_holds_is_taken_without_error(hostile):
    for recorded, sent in ((hostile, body(PLAIN, "anthropic")), (body(SKILLS, "openrouter"), hostile)):
        assert workspace_cause(recorded, sent) is None or isinstance(workspace_cause(recorded, sent), str)

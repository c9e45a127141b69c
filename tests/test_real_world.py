"""Skills and subagents shaped like public collections, end to end on both wire formats: `!`command``
under the permission policy, dollars that survive, quoted arguments, a subagent whose provider
fails, and a catalog of a thousand skills and five hundred agents."""

from __future__ import annotations

import json

from corpus import seed_corpus
from scripted_model import call, fail, text

DEFAULT_MODE = {"permissions": {"defaultMode": "default"}}


def echo_first_user_text(request):
    """Answers with the text of the newest user message (a tool result or a prompt)."""
    results = request.tool_results()
    return text(results[-1] if results else request.first_user_text())


def test_arguments_cannot_inject_a_command_into_a_skill(agent):
    agent.skill("lister", "Lists files the user names.", "Files: !`ls -d $ARGUMENTS 2>&1; true`\nSay what you saw.",
                extra="allowed-tools: Bash(ls:*)")
    agent.write("notes.txt", "n")
    agent.script(call("Skill", skill="lister", args="notes.txt; touch INJECTED"), echo_first_user_text)
    run = agent.run("List notes.txt for me.")
    assert run.exit_code == 0
    assert not (agent.workspace / "INJECTED").exists()
    assert "ls: cannot access 'notes.txt;': No such file or directory" in run.stdout
    assert "touch" in run.stdout and "notes.txt" in run.stdout  # `touch` and `INJECTED` were ls's arguments


def test_an_unapproved_command_is_not_run_and_is_a_denial(agent):
    agent.settings(DEFAULT_MODE)
    agent.skill("status", "Reports build status.", "Status: !`touch made-by-skill && echo built`\nReport it.")
    agent.script(echo_first_user_text)
    run = agent.run("/status", "--output-format", "json")
    result = json.loads(run.stdout)
    assert run.exit_code == 0 and not (agent.workspace / "made-by-skill").exists()
    assert result["result"].endswith(
        "Status: [command not run: touch made-by-skill && echo built needs permission: add Bash(touch:*) "
        "to allowed-tools or an allow rule]\nReport it.")
    assert result["permission_denials"] == [
        {"tool_name": "Bash", "tool_use_id": None, "tool_input": {"command": "touch made-by-skill && echo built"}}]


def test_a_command_approved_by_allowed_tools_runs_in_the_workspace(agent):
    agent.settings(DEFAULT_MODE)
    agent.trust()  # a project skill's allowed-tools count only in a trusted workspace
    agent.write("reports/q3.txt", "Q3 revenue up\n")
    agent.skill("reports", "Summarises the reports folder.", "Reports: !`ls reports`\nHere: !`pwd`\nFirst: !`cat reports/q3.txt`",
                extra="allowed-tools: Bash(ls:*) Bash(pwd) Bash(cat:*)")
    agent.script(echo_first_user_text)
    run = agent.run("/reports", "--output-format", "json")
    result = json.loads(run.stdout)
    assert result["result"].endswith(f"Reports: q3.txt\nHere: {agent.workspace}\nFirst: Q3 revenue up")
    assert result["permission_denials"] == []
    assert "Here: {{workspace}}" in run.bodies[0]  # the workspace is a placeholder in the cassette


def test_prices_awk_fields_and_cells_reach_the_model_as_written(agent):
    body = ("| Plan | Price |\n| Basic | $5.00 |\n| Team | $25.00 |\n"
            "Count with awk '{print $1, $5}' and check cell $B$6.")
    agent.skill("pricing", "Answers pricing questions.", body)
    agent.script(call("Skill", skill="pricing"), echo_first_user_text)
    run = agent.run("What does the Team plan cost?")
    assert run.stdout.strip().endswith(body)
    assert "$25.00" in run.bodies[1] and "{print $1, $5}" in run.bodies[1] and "$B$6" in run.bodies[1]


def test_quoted_arguments_are_one_argument_each(agent):
    agent.skill("pair", "Pairs two words.", "First: [$0]\nSecond: [$1]\nAll: [$ARGUMENTS]")
    agent.script(echo_first_user_text)
    run = agent.run('/pair "hello world" second')
    assert run.stdout.strip().endswith('First: [hello world]\nSecond: [second]\nAll: ["hello world" second]')


def test_a_subagent_whose_provider_fails_is_an_error_result_and_the_run_goes_on(agent):
    agent.agent_file("picky.md", "picky", "Uses a model the provider does not have.", "You are picky.",
                     extra="model: claude-imaginary-9")
    agent.script(call("Agent", description="check", prompt="Check the build.", subagent_type="picky", run_in_background=False),
                 echo_first_user_text)
    agent.allow_any_model()
    agent.route("Check the build.", fail(400, "model claude-imaginary-9 does not exist"))
    run = agent.run("Ask the picky agent to check the build.", "--output-format", "json")
    result = json.loads(run.stdout)
    assert (run.exit_code, result["subtype"]) == (0, "success")
    assert "the picky agent failed: " in result["result"] and "HTTP 400" in result["result"]
    assert "model claude-imaginary-9 does not exist" in result["result"]
    assert result["subagents"][0]["subtype"] == "error_during_execution"


def test_a_thousand_skills_and_five_hundred_agents_fit_in_the_first_request(agent):
    skills, agents = seed_corpus(agent.workspace, skills=1000, agents=500, body_sizes=(200, 400))
    agent.script(text("hi"))
    run = agent.run("Say hi.")
    first = run.bodies[0]
    assert run.exit_code == 0
    assert len(first.encode()) <= 64 * 1024  # the built-in tools (about 40 KB) and catalogs capped by the budget
    # an agent file whose YAML does not parse as written is skipped (issue 26), so only the others are listed
    from agent.skills.frontmatter import strict_problem

    folder = agent.workspace / ".claude" / "agents"
    files = {path.stem: path for path in folder.rglob("*.md")}
    valid = [name for name in agents if strict_problem(files[name].read_text()) is None]
    assert 0 < len(valid) < len(agents)
    assert all(f"- {name}" in first for name in skills + valid)
    assert not any(f"- {name}\n" in first or f"- {name}:" in first for name in set(agents) - set(valid))
    assert "call Skill with `search`" in first and "call Agent with `search`" in first


def test_a_forked_skill_whose_subagent_fails_is_an_error_result(agent):
    agent.skill("digest", "Digests the logs.", "Read the logs and summarise them.", fork=True,
                extra="model: claude-imaginary-9")
    agent.allow_any_model()
    agent.script(call("Skill", skill="digest"), echo_first_user_text)
    agent.route("Read the logs and summarise them.", fail(400, "model claude-imaginary-9 does not exist"))
    run = agent.run("Digest the logs.")
    assert run.exit_code == 0
    assert "skill 'digest' ran in a subagent that failed: " in run.stdout and "does not exist" in run.stdout

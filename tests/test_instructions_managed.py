"""The organisation's managed folder (AGENT_MANAGED_DIR in tests; `/etc/claude-code` on Linux) on
both wire formats: its `.claude/agents/` definitions win over project, user and --agents agents of
the same name, whatever --setting-sources says, as Claude Code 2.1.332 ranks them."""

import json

from scripted_model import call, text

from agent.memory import MANAGED_VARIABLE


def agent_file(root, name, description, body):
    path = root / ".claude" / "agents" / f"{name}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nname: {name}\ndescription: {description}\n---\n\n{body}\n")
    return path


def test_a_managed_agent_beats_the_project_user_and_command_line_ones(agent, monkeypatch):
    managed = agent.home / "org"
    monkeypatch.setenv(MANAGED_VARIABLE, str(managed))
    agent_file(managed, "reviewer", "MANAGED-REVIEWER reviews.", "MANAGED-BODY.")
    agent.agent_file("reviewer.md", "reviewer", "PROJECT-REVIEWER reviews.", "PROJECT-BODY.")
    agent.agent_file("reviewer.md", "reviewer", "USER-REVIEWER reviews.", "USER-BODY.", user=True)
    cli = json.dumps({"reviewer": {"description": "CLI-REVIEWER reviews.", "prompt": "CLI-BODY."}})
    agent.script(call("Agent", description="review", prompt="Review it.", subagent_type="reviewer", run_in_background=False),
                 text("reviewed"), text("done"))
    run = agent.run("Review.", "--agents", cli, "--setting-sources", "project")
    assert run.exit_code == 0 and run.stdout.strip() == "done"
    main, sub = run.bodies[0], run.bodies[1]
    assert "- reviewer: MANAGED-REVIEWER reviews." in main
    for other in ("PROJECT-REVIEWER", "USER-REVIEWER", "CLI-REVIEWER"):
        assert other not in main
    assert "MANAGED-BODY." in sub and "PROJECT-BODY." not in sub and "CLI-BODY." not in sub


def test_without_a_managed_definition_the_project_agent_stands(agent, monkeypatch):
    monkeypatch.setenv(MANAGED_VARIABLE, str(agent.home / "org"))  # a folder that does not exist
    agent.agent_file("reviewer.md", "reviewer", "PROJECT-REVIEWER reviews.", "PROJECT-BODY.")
    agent.script(call("Agent", description="review", prompt="Review it.", subagent_type="reviewer", run_in_background=False),
                 text("reviewed"), text("done"))
    run = agent.run("Review.")
    assert run.exit_code == 0 and "- reviewer: PROJECT-REVIEWER reviews." in run.bodies[0]
    assert "PROJECT-BODY." in run.bodies[1]

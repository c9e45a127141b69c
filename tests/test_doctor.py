"""`/doctor` (`-p "/doctor"`, the `doctor` subcommand and at the interactive prompt): where the agent
definitions and instruction files come from, an agent name defined twice in one folder tree with
the file that is used, skipped files, and which definition wins a name several folders define. The
report is made without the model: nothing is sent."""

from __future__ import annotations

from pty_session import start  # noqa: F401 (the fixture the interactive test uses)

from agent.memory import MANAGED_VARIABLE


def twins(agent):
    agent.agent_file("a.md", "dup", "First.", "A body.")
    agent.agent_file("sub/b.md", "dup", "Second.", "B body.")
    agent.agent_file("README.md", "x", "x", "x").write_text("# Notes about our agents\n")
    agent.agent_file("bad.md", "bad", "Bad.", "x").write_text("---\nname: [bad\ndescription: x\n---\nbody\n")


def test_doctor_names_the_twin_in_one_tree_and_the_file_used(agent):
    twins(agent)
    agent.write("CLAUDE.md", "Be brief.\n")
    run = agent.run("/doctor")
    assert run.exit_code == 0 and not run.cassette.exists()  # no request, so nothing recorded
    lines = run.stdout.splitlines()
    assert lines[0] == "Agent definitions"
    assert f"  project   {agent.workspace}/.claude/agents  (4 files)" in lines
    assert ("    ✗ agent 'dup' is defined 2 times in this folder: a.md is used, sub/b.md ignored "
            "(files are read in sorted order)") in lines
    assert "    - README.md is skipped: no frontmatter (the file must start with a --- line, closed by another ---)" in lines
    assert any(line.startswith("    ✗ bad.md is skipped: invalid YAML frontmatter") for line in lines)
    assert f"  {agent.workspace}/CLAUDE.md (project instructions, checked into the codebase)" in lines
    assert lines[-1] == "2 problems found"
    assert "sends no request" in run.stderr


def test_the_doctor_subcommand_says_which_folder_wins_a_name(agent, monkeypatch):
    managed = agent.home / "org"
    monkeypatch.setenv(MANAGED_VARIABLE, str(managed))
    agent.agent_file("rev.md", "rev", "Project.", "P.")
    agent.agent_file("rev.md", "rev", "User.", "U.", user=True)
    (managed / ".claude/agents").mkdir(parents=True)
    (managed / ".claude/agents/rev.md").write_text("---\nname: rev\ndescription: Managed.\n---\nM.\n")
    (managed / "CLAUDE.md").write_text("Policy.\n")
    agent.write(".claude/rules/py.md", "---\npaths: \"**/*.py\"\n---\nPython rule.\n")
    run = agent.run_argv(["doctor"])
    assert run.exit_code == 0
    lines = run.stdout.splitlines()
    assert lines[1] == f"  managed   {managed}/.claude/agents  (1 file)"
    assert (f"  agent 'rev': the managed agent in {managed}/.claude/agents/rev.md is used over the project agent in "
            f"{agent.workspace}/.claude/agents/rev.md, the user agent in {agent.home}/.claude/agents/rev.md") in lines
    assert f"  {managed}/CLAUDE.md (organization-managed policy instructions)" in lines
    assert f"  and 1 rule waiting for the files they match: {agent.workspace}/.claude/rules/py.md" in lines
    assert lines[-1] == "No problems found"


def test_doctor_at_the_interactive_prompt(model, start):
    session = start()
    agents = session.workspace / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "one.md").write_text("---\nname: twin\ndescription: One.\n---\nOne.\n")
    (agents / "two.md").write_text("---\nname: twin\ndescription: Two.\n---\nTwo.\n")
    session.ready()
    session.send("/doctor")
    session.expect(r"agent 'twin' is defined 2 times in this folder: one\.md is used, two\.md ignored")
    session.expect("1 problem found")
    session.ready()
    session.send("/exit")
    assert session.end() == 0
    assert model.requests == []

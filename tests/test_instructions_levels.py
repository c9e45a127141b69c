"""The instruction files a conversation starts with, on both wire formats, as Claude Code 2.1.332
loads them: the organisation's managed CLAUDE.md and rules, the user's CLAUDE.md and rules, then
each folder from the top down to the workspace (CLAUDE.md, .claude/CLAUDE.md, .claude/rules/ without
`paths`, CLAUDE.local.md), each with Claude Code's label; AGENTS.md never; subagents the same block,
Explore none. The managed folder is moved with AGENT_MANAGED_DIR, which no settings file may set."""

import json

from scripted_model import call, text

from agent.memory import MANAGED_VARIABLE

SUBAGENT = "You are a general-purpose agent."
EXPLORE = "You are a read-only exploration agent."


def write(path, content):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    return path


def first_text(payload):
    """The text of a request's first user message (the OpenAI-compatible wire joins its blocks)."""
    content = next(m for m in payload["messages"] if m["role"] == "user")["content"]
    return content if isinstance(content, str) else "\n\n".join(part["text"] for part in content)


def started_with(run, marker):
    """The first-message text of the one conversation whose system prompt holds `marker`."""
    [found] = [first_text(p) for p in run.payloads if marker in json.dumps(p.get("system") or p["messages"][0])]
    return found


def levels(agent, tmp_path, monkeypatch):
    """Every level of instruction files, each a line naming itself; the managed folder in home."""
    (tmp_path / ".git").mkdir()  # tmp_path is the repository; the workspace a folder inside it
    managed = agent.home / "org"
    monkeypatch.setenv(MANAGED_VARIABLE, str(managed))
    write(managed / "CLAUDE.md", "MANAGED-MD.\n")
    write(managed / ".claude/rules/policy.md", "MANAGED-RULE.\n")
    write(agent.home / ".claude/CLAUDE.md", "USER-MD.\n")
    write(agent.home / ".claude/rules/style.md", "USER-RULE.\n")
    write(tmp_path / "CLAUDE.md", "REPO-MD.\n")
    agent.write("CLAUDE.md", "WORKSPACE-MD.\n")
    agent.write(".claude/CLAUDE.md", "DOT-CLAUDE-MD.\n")
    agent.write(".claude/rules/testing.md", "---\ndescription: how we test\n---\nRULE-TESTING.\n")
    agent.write(".claude/rules/frontend/react.md", "RULE-REACT.\n")
    agent.write(".claude/rules/python.md", "---\npaths:\n  - \"src/**/*.py\"\n---\nRULE-PYTHON-WAITS.\n")
    agent.write(".claude/rules/notes.txt", "NOT-A-RULE.\n")
    agent.write("CLAUDE.local.md", "LOCAL-MD.\n")
    agent.write("AGENTS.md", "AGENTS-MD.\n")


def test_every_level_in_order_with_claude_codes_labels_for_main_and_subagents(agent, tmp_path, monkeypatch):
    levels(agent, tmp_path, monkeypatch)
    agent.script(
        call("Agent", description="help", prompt="Help now.", subagent_type="general-purpose", run_in_background=False),
        text("helped"),
        call("Agent", description="look", prompt="Look around.", subagent_type="Explore", run_in_background=False),
        text("looked"),
        text("done"),
    )
    run = agent.run("Hello.")
    assert run.exit_code == 0 and run.stdout.strip() == "done"
    main = first_text(run.payloads[0])
    order = ["{{home}}/org/CLAUDE.md (organization-managed policy instructions):\n\nMANAGED-MD.",
             "{{home}}/org/.claude/rules/policy.md (organization-managed policy instructions):\n\nMANAGED-RULE.",
             "{{home}}/.claude/CLAUDE.md (user's private global instructions for all projects):\n\nUSER-MD.",
             "{{home}}/.claude/rules/style.md (user's private global instructions for all projects):\n\nUSER-RULE.",
             "{{project}}/CLAUDE.md (project instructions, checked into the codebase):\n\nREPO-MD.",
             "{{workspace}}/CLAUDE.md (project instructions, checked into the codebase):\n\nWORKSPACE-MD.",
             "{{workspace}}/.claude/CLAUDE.md (project instructions, checked into the codebase):\n\nDOT-CLAUDE-MD.",
             "{{workspace}}/.claude/rules/frontend/react.md (project instructions, checked into the codebase):\n\nRULE-REACT.",
             "{{workspace}}/.claude/rules/testing.md (project instructions, checked into the codebase):\n\nRULE-TESTING.",
             "{{workspace}}/CLAUDE.local.md (user's private project instructions, not checked in):\n\nLOCAL-MD.",
             "Hello."]
    assert all(entry in main for entry in order), main
    assert [main.index(entry) for entry in order] == sorted(main.index(entry) for entry in order)
    assert "description: how we test" not in main  # a rule's frontmatter is never shown
    for absent in ("AGENTS-MD", "RULE-PYTHON-WAITS", "NOT-A-RULE"):  # AGENTS.md is not read; a rule with paths waits
        assert absent not in run.bodies[0]
    helper = started_with(run, SUBAGENT)
    block = main[main.index("<system-reminder>\nProject and user"):main.index("</system-reminder>") + 18]
    assert block in helper and "Help now." in helper
    assert "MANAGED-MD" not in started_with(run, EXPLORE)  # Explore starts without CLAUDE.md


def test_setting_sources_leave_out_the_users_and_projects_files_never_the_organisations(agent, tmp_path, monkeypatch):
    levels(agent, tmp_path, monkeypatch)
    agent.script(text("done"))
    run = agent.run("Hello.", "--setting-sources", "local")
    body = run.bodies[0]
    assert "MANAGED-MD." in body and "MANAGED-RULE." in body and "LOCAL-MD." in body
    for absent in ("USER-MD", "USER-RULE", "REPO-MD", "WORKSPACE-MD", "RULE-REACT"):
        assert absent not in body


def test_no_settings_file_moves_the_organisations_folder(agent):
    planted = agent.workspace / "fake-org"
    write(planted / "CLAUDE.md", "PLANTED-POLICY.\n")
    agent.settings({"env": {MANAGED_VARIABLE: str(planted)}, "permissions": {"defaultMode": "bypassPermissions"}})
    agent.settings({"env": {MANAGED_VARIABLE: str(planted)}}, "project")
    agent.trust()  # even a trusted project's settings cannot
    agent.script(text("done"))
    run = agent.run("Hello.")
    assert run.exit_code == 0 and "PLANTED-POLICY" not in run.bodies[0]
    assert f"ignoring env {MANAGED_VARIABLE} in" in run.stderr


def test_hostile_rules_are_skipped_with_one_warning_each(agent, tmp_path):
    write(tmp_path / "secret.txt", "TOP-SECRET\n")
    agent.write(".claude/rules/good.md", "GOOD-RULE.\n")
    (agent.workspace / ".claude/rules/leak.md").symlink_to(tmp_path / "secret.txt")
    agent.write(".claude/rules/broken.md", "---\npaths: [unclosed\n---\nBROKEN-RULE.\n")
    (agent.workspace / ".claude/rules/binary.md").write_bytes(b"BINARY\0RULE")
    (agent.workspace / ".claude/rules/loop").symlink_to(agent.workspace / ".claude/rules")
    agent.script(text("done"))
    run = agent.run("Hello.")
    body = run.bodies[0]
    assert run.exit_code == 0 and "GOOD-RULE." in body
    for absent in ("TOP-SECRET", "BROKEN-RULE", "BINARY"):
        assert absent not in body
    assert "leak.md: it leads to" in run.stderr and "broken.md: its frontmatter is not valid YAML" in run.stderr
    assert "binary.md: it is a binary file" in run.stderr


def test_a_replay_sends_the_same_block(agent, tmp_path, monkeypatch):
    levels(agent, tmp_path, monkeypatch)
    agent.script(text("done"))
    assert agent.run("Hello.").exit_code == 0
    replayed = agent.replay()
    assert replayed.exit_code == 0 and replayed.stdout.strip() == "done", replayed.stderr

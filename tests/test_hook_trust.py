"""Whose hooks a workspace may run: the project's own (its settings files, its agents' and its
skills' frontmatter) only once it is trusted, one warning each otherwise, with the interactive
trust question asked for them; the user's always, and a repository cannot turn those off; on both
wire formats."""

from __future__ import annotations

import json

import pytest

from pty_session import start  # noqa: F401 (the interactive tests' fixture)
from scripted_model import call, text
from test_hook_scopes import HELPER, LOG, frontmatter_hooks, logged, warned
from test_hooks import command_hook, hooks_settings


def test_a_project_agents_hooks_run_only_in_a_trusted_workspace(agent):
    agent.agent_file("checker.md", "checker", "Checks.", "You are the checker.",
                     "tools: Bash\n" + frontmatter_hooks({"PreToolUse": [("Bash", LOG.format(name="checked"))]}))
    for _ in range(2):
        agent.script(call("Agent", description="check", prompt="Check it", subagent_type="checker", run_in_background=False),
                     call("Bash", command="echo checking"), text("checked"), text("done"))
    untrusted = agent.run("Check.")
    assert untrusted.exit_code == 0 and logged(agent, "checked") == []
    (warning,) = warned(untrusted, "Ignoring the hooks of the project agent 'checker'")
    assert "hasTrustDialogAccepted" in warning and "--trust-workspace" in warning
    trusted = agent.run("Check.", "--trust-workspace")
    assert trusted.exit_code == 0 and not warned(trusted, "Ignoring the hooks")
    (checked,) = logged(agent, "checked")
    assert checked["agent_type"] == "checker"


def test_a_project_skills_hooks_run_only_in_a_trusted_workspace_and_then_join_the_conversation(agent):
    agent.skill("lint-guard", "Use this skill before editing.", "Lint every command you run.",
                extra=frontmatter_hooks({"PostToolUse": [("Bash", LOG.format(name="linted"))]}))
    for _ in range(2):
        agent.script(call("Bash", command="echo before"), call("Skill", skill="lint-guard"),
                     call("Bash", command="echo after"), text("done"))
    untrusted = agent.run("Edit.")
    assert untrusted.exit_code == 0 and logged(agent, "linted") == []
    (warning,) = warned(untrusted, "Ignoring the hooks of the project skill 'lint-guard'")
    assert "hasTrustDialogAccepted" in warning
    agent.trust()
    trusted = agent.run("Edit.")
    assert trusted.exit_code == 0 and not warned(trusted, "Ignoring the hooks")
    (after,) = logged(agent, "linted")  # loaded after the first call: only the second sees it
    assert after["tool_input"] == {"command": "echo after"} and after["hook_event_name"] == "PostToolUse"
    assert "agent_type" not in after


def test_a_forked_skills_hooks_run_only_inside_its_fork_and_only_when_trusted(agent):
    agent.skill("probe", "Use this skill to probe the build.", "Probe the build with one command.", fork=True,
                extra=frontmatter_hooks({"PreToolUse": [("Bash", LOG.format(name="probed"))]}))
    for _ in range(2):
        agent.script(call("Bash", command="echo before"), call("Skill", skill="probe"),
                     call("Bash", command="echo inside"), text("probed"),
                     call("Bash", command="echo after"), text("done"))
    untrusted = agent.run("Probe.")
    assert untrusted.exit_code == 0 and logged(agent, "probed") == []
    assert len(warned(untrusted, "Ignoring the hooks of the project skill 'probe'")) == 1
    agent.trust()
    trusted = agent.run("Probe.")
    assert trusted.exit_code == 0
    (inside,) = logged(agent, "probed")
    assert inside["tool_input"] == {"command": "echo inside"} and "agent_type" in inside


def test_project_settings_hooks_are_withheld_until_the_workspace_is_trusted_and_user_hooks_always_run(agent):
    agent.settings({"hooks": {"PreToolUse": command_hook(LOG.format(name="project"), "Bash")}}, where="project")
    agent.settings({"hooks": {"PreToolUse": command_hook(LOG.format(name="local"), "Bash")}}, where="local")
    hooks_settings(agent, {"PreToolUse": command_hook(LOG.format(name="user"), "Bash")})
    for _ in range(3):
        agent.script(call("Bash", command="echo hi"), text("done"))
    untrusted = agent.run("Say hi.")
    assert untrusted.exit_code == 0 and len(logged(agent, "user")) == 1
    assert logged(agent, "project") == [] and logged(agent, "local") == []
    (warning,) = warned(untrusted, "Ignoring 2 hook entries from ")
    assert ".claude/settings.json and .claude/settings.local.json" in warning and "--trust-workspace" in warning
    agent.trust()
    trusted = agent.run("Say hi.")
    assert trusted.exit_code == 0 and not warned(trusted, "Ignoring")
    assert (len(logged(agent, "user")), len(logged(agent, "project")), len(logged(agent, "local"))) == (2, 1, 1)
    user_only = agent.run("Say hi.", "--setting-sources", "user")
    assert user_only.exit_code == 0 and not warned(user_only, "Ignoring")
    assert (len(logged(agent, "user")), len(logged(agent, "project")), len(logged(agent, "local"))) == (3, 1, 1)


def test_disable_all_hooks_turns_every_hook_off_but_a_repository_cannot_turn_off_the_users(agent):
    agent.agent_file("helper.md", "helper", "Helps.", HELPER,
                     "tools: Bash\n" + frontmatter_hooks({"PreToolUse": [("Bash", LOG.format(name="scoped"))]}), user=True)
    hooks_settings(agent, {"PreToolUse": command_hook(LOG.format(name="user"), "Bash")})
    agent.settings({"disableAllHooks": True}, where="project")
    for _ in range(2):
        agent.script(call("Bash", command="echo main"),
                     call("Agent", description="help", prompt="Do the help task", subagent_type="helper", run_in_background=False),
                     call("Bash", command="echo inside"), text("helped"), text("done"))
    untrusted = agent.run("Help me.")
    assert untrusted.exit_code == 0 and len(logged(agent, "user")) == 2 and len(logged(agent, "scoped")) == 1
    (warning,) = warned(untrusted, "Ignoring disableAllHooks from .claude/settings.json: ")
    assert "--trust-workspace" in warning
    trusted = agent.run("Help me.", "--trust-workspace")
    assert trusted.exit_code == 0 and not warned(trusted, "Ignoring")
    assert len(logged(agent, "user")) == 2 and len(logged(agent, "scoped")) == 1


@pytest.mark.parametrize("answer", ["y", "n"])
@pytest.mark.parametrize("wire", ["openrouter", "anthropic"])
def test_project_hooks_alone_ask_the_interactive_trust_question(model, start, tmp_path, wire, answer):
    """A folder whose only grants are hooks asks, as the warning of an untrusted one says it will."""
    workspace = tmp_path / "workspace"
    (workspace / ".claude").mkdir(parents=True)
    (workspace / ".claude" / "settings.json").write_text(
        json.dumps({"hooks": {"PreToolUse": command_hook(LOG.format(name="project"), "Bash")}}))
    model.script(call("Bash", command="echo hi"), text("Said hi."))
    session = start(provider=wire)
    session.expect(r"run commands \(hooks\)")
    session.expect(r"Trust this folder\?")
    session.send(answer)
    session.ready()
    session.send("Say hi")
    session.expect("Said hi.")
    session.ready()
    session.send("/exit")
    assert session.end() == 0
    assert (workspace / "project.jsonl").exists() == (answer == "y")
    config = session.home / ".claude.json"
    assert (config.exists() and "hasTrustDialogAccepted" in config.read_text()) == (answer == "y")

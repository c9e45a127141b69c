"""--setting-sources on both wire formats: which settings, skills, agents and CLAUDE.md files load
(as Claude Code ties them: user is ~/.claude, project the workspace's .claude and CLAUDE.md, local
CLAUDE.local.md and settings.local.json), a replay following the recorded sources, and the one
warning a recording gives when content from the home folder entered it."""

from __future__ import annotations

import json
import shutil

import pytest

from agent import cli
from agent.record.cassette_file import read as read_cassette
from conftest import BASES, KEYS
from scripted_model import call, text

INERT = "Follow the project's conventions and report what you did."
HOME_WARNING = (
    "[agent] this recording includes content from your home folder (~/.claude): skills deploy; agents helper; "
    "CLAUDE.md. Others replaying it will not have them; record with --setting-sources project,local to leave them "
    "out (that also leaves out the permissions of ~/.claude/settings.json, which decide what runs, not what the "
    "model is sent: give the ones the run needs with --settings or --allowedTools)\n"
)


def home_and_project_content(agent) -> None:
    """A personal skill, agent and CLAUDE.md in the home folder, and the project's own."""
    agent.skill("deploy", "Deploys the billing service.", INERT, user=True)
    agent.skill("review", "Reviews a change.", INERT)
    agent.agent_file("helper.md", "helper", "Helps with chores.", "You help.", user=True)
    (agent.home / ".claude" / "CLAUDE.md").write_text("Answer in British English.\n")
    agent.write("CLAUDE.md", "Workspace rule: tests live in tests/.\n")


def record_live(agent, model, monkeypatch, capsys, cassette, *flags: str):
    """Record one run against this test's own scripted model, as a user's `--record` does (the
    harness replays its cassettes, and a warning given only while recording must be seen in
    every run); returns the exit code, stderr and the recorded request bodies."""
    monkeypatch.setenv(BASES[agent.provider], model.base + ("/api/v1/" if agent.provider == "openrouter" else ""))
    monkeypatch.setenv(KEYS[agent.provider], f"dummy-{agent.provider}-key")
    capsys.readouterr()
    code = cli.main(["-p", "Which skills do you have?", *flags, "--record", str(cassette)])
    err = capsys.readouterr().err
    bodies = [json.dumps(i.request) for i in read_cassette(str(cassette)).interactions] if cassette.exists() else []
    return code, err, bodies


def test_a_recording_names_the_home_content_it_took_and_project_sources_leave_it_out(
        agent, model, monkeypatch, capsys, tmp_path):
    home_and_project_content(agent)
    model.script(text("ok"), text("ok"))
    code, err, bodies = record_live(agent, model, monkeypatch, capsys, tmp_path / "all.yaml")
    assert (code, err) == (0, HOME_WARNING)
    assert all(word in bodies[0] for word in ("Deploys the billing service.", "Helps with chores.", "British English"))
    code, err, bodies = record_live(agent, model, monkeypatch, capsys, tmp_path / "team.yaml",
                                    "--setting-sources", "project,local")
    assert (code, err) == (0, "")
    assert "Reviews a change." in bodies[0] and "Workspace rule" in bodies[0]
    assert not any(word in bodies[0] for word in ("Deploys the billing", "Helps with chores.", "British English"))


def test_settings_from_home_alone_give_no_warning(agent, model, monkeypatch, capsys, tmp_path):
    """The harness's ~/.claude/settings.json (bypassPermissions) decides what runs, not what the
    model is sent: no reason to warn."""
    agent.skill("review", "Reviews a change.", INERT)
    model.script(text("ok"))
    assert record_live(agent, model, monkeypatch, capsys, tmp_path / "plain.yaml")[:2] == (0, "")


def test_a_replay_follows_the_recorded_setting_sources(agent):
    home_and_project_content(agent)
    agent.script(text("ok"))
    run = agent.run("Which skills do you have?", "--setting-sources", "project")
    assert (run.exit_code, run.stdout) == (0, "ok\n") and "home folder" not in run.stderr
    assert run.some_request(["- review: Reviews a change.", "Workspace rule"], ["Deploys the billing", "Helps with chores.", "British English"])
    replayed = agent.replay()  # the personal skill, agent and CLAUDE.md are still in home: left out as recorded
    assert (replayed.exit_code, replayed.stdout) == (0, "ok\n")
    other = agent.replay("--setting-sources", "user")
    assert other.exit_code == 2 and "--setting-sources 'user' differs from the cassette" in other.stderr


def test_claude_md_follows_its_source(agent):
    (agent.home / ".claude").mkdir(exist_ok=True)
    (agent.home / ".claude" / "CLAUDE.md").write_text("Home rule.\n")
    agent.write("CLAUDE.md", "Project rule.\n")
    agent.write(".claude/CLAUDE.md", "Dot-claude rule.\n")
    agent.write("CLAUDE.local.md", "Local rule.\n")
    agent.script(text("ok"), text("ok"))
    project = agent.run("Hello.", "--setting-sources", "project")
    assert project.some_request(["Project rule.", "Dot-claude rule."], ["Home rule.", "Local rule."])
    local = agent.run("Hello.", "--setting-sources", "user,local")
    assert local.some_request(["Home rule.", "Local rule."], ["Project rule.", "Dot-claude rule."])


def test_an_empty_setting_sources_loads_none_and_the_flags_still_apply(agent):
    """`--setting-sources=` (the Agent SDK's setting_sources=[]) loads no file of any source;
    --agents and --settings always apply, as in Claude Code."""
    home_and_project_content(agent)
    agent.write(".claude/settings.json", json.dumps({"permissions": {"deny": ["Bash"]}}))
    agent.script(call("Bash", command="touch made-by-the-run"), text("done"))
    run = agent.run("Make the file.", "--setting-sources=",
                    "--agents", json.dumps({"flagged": {"description": "From the flag.", "prompt": "You help."}}),
                    "--settings", json.dumps({"permissions": {"defaultMode": "bypassPermissions"}}))
    assert (run.exit_code, run.stdout) == (0, "done\n")
    assert (agent.workspace / "made-by-the-run").exists()  # neither the project's deny nor home's mode applied
    assert run.some_request(["- flagged: From the flag."], ["Reviews a change.", "Deploys the billing", "Helps with chores.", "Workspace rule", "British English"])
    assert all("Skill" not in [t.get("name") or t["function"]["name"] for t in body["tools"]] for body in run.payloads)


@pytest.mark.parametrize("value, named", [("bogus", "'bogus'"), ("Project", "'Project'"), ("project,", "an empty name"),
                                          (" ", "an empty name")])
def test_a_bad_setting_source_is_one_line_and_exit_2(agent, capsys, value, named):
    capsys.readouterr()
    code = cli.main(["-p", "Hello.", "--setting-sources", value])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert f"--setting-sources: invalid setting source {named}; valid sources: user, project, local" in err


def test_a_cassette_leaving_home_out_cannot_drop_the_users_deny_rules(agent):
    """A replay that runs tools for real decides them by the user's own settings files: a
    cassette recorded with --setting-sources project does not take the home deny rule away."""
    agent.settings({"permissions": {"defaultMode": "bypassPermissions", "deny": ["Bash(touch:*)"]}})
    agent.script(call("Bash", command="touch made-by-the-recording"), text("done"))
    run = agent.run("Make the file.", "--setting-sources", "project", "--dangerously-skip-permissions")
    assert (run.exit_code, run.stdout) == (0, "done\n") and (agent.workspace / "made-by-the-recording").exists()
    (agent.workspace / "made-by-the-recording").unlink()
    replayed = agent.replay("--dangerously-skip-permissions")  # the user's own sources: all, the deny rule too
    assert replayed.exit_code == 1 and "differs from the cassette" in replayed.stderr
    assert not (agent.workspace / "made-by-the-recording").exists()
    assert agent.replay("--replay-tools").exit_code == 0  # nothing runs: the recorded sources are followed


def test_a_replay_without_the_recorders_home_content_says_what_is_missing(agent, tmp_path, monkeypatch):
    """What a teammate sees replaying a cassette recorded with personal content: the line names it."""
    home_and_project_content(agent)
    agent.script(text("ok"))
    assert agent.run("Which skills do you have?").exit_code == 0
    teammate = tmp_path / "teammate"
    (teammate / ".claude").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(teammate))

    def last_line() -> str:
        drifted = agent.replay("--replay-tools")
        assert drifted.exit_code == 1
        return drifted.stderr.strip().splitlines()[-1]

    assert last_line().startswith("error: the recording offered skills deploy, review; this folder offers review: "
                                  "request 1 differs")
    shutil.copytree(agent.home / ".claude" / "skills", teammate / ".claude" / "skills")
    assert last_line().startswith("error: the recording offered agent types Explore, Plan, general-purpose, helper; this "
                                  "folder offers Explore, Plan, general-purpose: request 1 differs")
    shutil.copytree(agent.home / ".claude" / "agents", teammate / ".claude" / "agents")
    assert last_line().startswith(f"error: CLAUDE.md differs from the recording's: this folder leaves out "
                                  f"{teammate}/.claude/CLAUDE.md: request 1 differs")


def test_a_cassette_naming_an_unknown_source_is_one_line_naming_it(agent, tmp_path, capsys):
    recorded = agent.cassette_path(1).with_name(f"test_a_replay_follows_the_recorded_setting_sources-{agent.provider}.yaml")
    cassette = tmp_path / "bogus.yaml"
    cassette.write_text(recorded.read_text().replace("--setting-sources: project", "--setting-sources: bogus"))
    capsys.readouterr()
    assert cli.main(["--replay", str(cassette)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"the cassette {cassette}: --setting-sources: invalid setting source 'bogus'" in err

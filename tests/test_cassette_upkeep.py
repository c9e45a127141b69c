"""Keeping cassettes green as a team does: `cassette check --update` accepts an intended change
and rewrites only the requests, a conversation that no longer fits needs a re-recording, and match
rules (`--scrub`, `--ignore`, `--match content`, a cassette's `match` section) say what a replay
compares. Each test records a session with the scripted model, then checks a copy of its cassette
as a CI job would."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from agent import cli
from agent.record.cassette_file import read
from scripted_model import call, text


@pytest.fixture
def cassette_command(capsys, monkeypatch):
    """cassette(*argv, cwd=...) runs `your_program.sh cassette ...` in-process in `cwd`."""
    def run(*argv: str, cwd: Path):
        capsys.readouterr()
        with monkeypatch.context() as patch:
            patch.chdir(cwd)
            code = cli.main(["cassette", *argv])
        out, err = capsys.readouterr()
        return code, out, err
    return run


def copied(agent, tmp_path: Path, name: str = "session.yaml") -> Path:
    """The test's first cassette, copied where a team keeps theirs (the committed one stays)."""
    folder = tmp_path / "ci"
    folder.mkdir(exist_ok=True)
    return Path(shutil.copy(agent.cassette_path(1), folder / name))


def recorded_with_a_skill(agent):
    skill = agent.skill("release-notes", "Use this skill to write release notes.", "List the changes since the last tag.")
    agent.write("CHANGES.txt", "- faster start\n")
    agent.script(call("Skill", skill="release-notes"), call("Read", file_path="CHANGES.txt"), text("One change: a faster start."))
    if agent.recording:
        assert agent.run("Write the release notes").exit_code == 0
    return skill


def test_update_rewrites_only_the_requests_a_skill_edit_changed_and_check_is_green_again(agent, tmp_path, cassette_command):
    skill = recorded_with_a_skill(agent)
    cassette = copied(agent, tmp_path)
    before = yaml.safe_load(cassette.read_text())
    skill.write_text(skill.read_text().replace("write release notes", "write release notes for the team"))

    code, out, _ = cassette_command("check", str(cassette), cwd=agent.workspace)
    assert code == 1 and out.startswith(f"drift {cassette}: ")
    code, out, err = cassette_command("check", "--update", str(cassette), cwd=agent.workspace)
    assert code == 0, err
    assert out == f"updated {cassette}: 3 requests changed (first at request 1, " + out.split("request 1, ", 1)[1]
    assert "1 updated" in err

    after = yaml.safe_load(cassette.read_text())
    assert after["setup"] == before["setup"] and after["tool_runs"] == before["tool_runs"]
    assert [i["response"] for i in after["interactions"]] == [i["response"] for i in before["interactions"]]
    assert all("for the team" in json.dumps(i.request) for i in read(str(cassette)).interactions)
    def besides_the_body(data):
        return [{k: v for k, v in i["request"].items() if k not in ("body", "body_delta")} for i in data["interactions"]]
    assert besides_the_body(after) == besides_the_body(before)

    assert cassette_command("check", str(cassette), cwd=agent.workspace)[:2] == (0, f"ok    {cassette}\n")
    again = cassette.read_text()
    assert cassette_command("check", "--update", str(cassette), cwd=agent.workspace)[:2] == (0, f"ok    {cassette}\n")
    assert cassette.read_text() == again  # nothing changed: nothing written


def test_a_conversation_that_no_longer_fits_needs_a_re_recording_and_is_left_as_it_was(agent, tmp_path, cassette_command):
    definition = agent.agent_file("reviewer.md", "reviewer", "Reviews a change.", "You review changes. Be brief.")
    agent.script(call("Agent", description="Review", prompt="Review the last change.", subagent_type="reviewer", run_in_background=False),
                 text("Looks fine."), text("The reviewer says it looks fine."))
    if agent.recording:
        assert agent.run("Ask the reviewer agent to review the last change").exit_code == 0
    cassette = copied(agent, tmp_path)
    recorded = cassette.read_text()
    definition.unlink()  # the Agent call now fails: the subagent's request is never sent

    code, out, err = cassette_command("check", "--update", str(cassette), cwd=agent.workspace)
    assert code == 1
    assert out.startswith(f"needs re-record {cassette}: ")
    assert "1 need re-recording" in err
    assert cassette.read_text() == recorded


def test_scrub_makes_a_timestamped_command_replay_green_in_regression_mode(agent, tmp_path):
    agent.script(call("Bash", command="date +%s%N"), text("Noted the time."))
    if agent.recording:
        assert agent.run("What time is it, in nanoseconds?").exit_code == 0
    drifted = agent.replay()  # the command runs again, and the time has moved on
    assert drifted.exit_code == 1 and "differs from the cassette" in drifted.stderr
    scrubbed = agent.replay("--scrub", "[0-9]{19}=<nanoseconds>")
    assert (scrubbed.exit_code, scrubbed.stdout) == (0, "Noted the time.\n"), scrubbed.stderr

    cassette = copied(agent, tmp_path)  # the same rule, written in the cassette by the team
    data = yaml.safe_load(cassette.read_text())
    data = {"version": data["version"], "setup": data["setup"], "match": {"scrub": [{"pattern": "[0-9]{19}", "replacement": "<ns>"}]},
            **{k: v for k, v in data.items() if k not in ("version", "setup")}}
    cassette.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    code = cli.main(["--replay", str(cassette)])
    assert code == 0


def test_match_content_ignores_our_instructions_but_not_a_skill_body(agent, tmp_path, capsys):
    skill = recorded_with_a_skill(agent)
    cassette = copied(agent, tmp_path)
    text_now = cassette.read_text()
    assert text_now.count("You are agent, a coding assistant") == 1  # stored once: later requests are deltas
    cassette.write_text(text_now.replace("You are agent, a coding assistant", "You are agent, an older coding assistant"))

    capsys.readouterr()
    assert cli.main(["--replay", str(cassette), "--replay-tools"]) == 1
    drift = capsys.readouterr().err
    assert "an older coding assistant" in drift and "--match content" in drift  # names the rule that would hide it
    assert cli.main(["--replay", str(cassette), "--replay-tools", "--match", "content"]) == 0

    skill.write_text(skill.read_text().replace("since the last tag", "since the last release"))
    capsys.readouterr()
    assert cli.main(["--replay", str(cassette), "--replay-tools", "--match", "content"]) == 1
    drift = capsys.readouterr().err
    assert "since the last release" in drift and "request 2 differs" in drift


def test_ignore_leaves_a_path_out_and_a_bad_path_is_bad_input(agent, tmp_path, capsys):
    recorded_with_a_skill(agent)
    cassette = copied(agent, tmp_path)
    cassette.write_text(cassette.read_text().replace("You are agent, a coding assistant", "You are agent, an older coding assistant"))
    system = "$.messages[0].content" if agent.provider == "openrouter" else "$.system"
    assert cli.main(["--replay", str(cassette), "--replay-tools", "--ignore", system]) == 0
    capsys.readouterr()
    assert cli.main(["--replay", str(cassette), "--replay-tools", "--ignore", "$.messages["]) == 2
    assert capsys.readouterr().err.startswith("error: the JSON path '$.messages[' cannot be read")
    assert cli.main(["-p", "hi", "--ignore", system]) == 2


def test_a_replay_in_a_folder_without_the_skills_says_so_before_the_json_path(agent, tmp_path, capsys):
    recorded_with_a_skill(agent)
    empty = tmp_path / "elsewhere"
    empty.mkdir()
    drifted = agent.replay("--replay-tools", cwd=empty)
    assert drifted.exit_code == 1
    line = drifted.stderr.strip().splitlines()[-1]
    assert line.startswith("error: the recording offered skills release-notes; this folder has none: request 1 differs"), line


def test_an_update_keeps_the_teams_sections_word_for_word_comments_included(agent, tmp_path, cassette_command):
    skill = recorded_with_a_skill(agent)
    cassette = copied(agent, tmp_path)
    written = "# what we own\nmatch:\n  # our timestamps vary\n  scrub: ['[0-9]{19}']\nexpect:\n  exit_code: 0   # it must pass\n"
    cassette.write_text(cassette.read_text().replace("interactions:\n", written + "interactions:\n", 1))
    skill.write_text(skill.read_text().replace("write release notes", "write release notes for the team"))
    code, out, err = cassette_command("check", "--update", str(cassette), cwd=agent.workspace)
    assert code == 0 and out.startswith(f"updated {cassette}: "), err
    assert written + "interactions:\n" in cassette.read_text()
    assert cassette_command("check", str(cassette), cwd=agent.workspace)[:2] == (0, f"ok    {cassette}\n")

"""Approvals and permission flags a recording holds, replayed the same way in both replay modes.

An interactive recording keeps each answer a person gave ("yes", "always", "no") with the call's
tool run, so `--replay` and `--replay --replay-tools` decide each call as the recording did. A
regression replay runs tools for real, so the cassette's grants (its permission flags, its trust
and its approvals) apply only when the user vouches for the cassette: a workspace they trust that
holds the cassette, or the same flags given themselves. Anything else warns once and drifts.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest
import yaml

from agent import cli
from conftest import PROVIDERS, REPO
from pty_session import start  # noqa: F401 (the fixture of the interactive tests)
from scripted_model import call, text


def trust(home, folder) -> None:
    """Trust `folder` as Claude Code's trust dialog records it."""
    projects = {os.path.realpath(folder): {"hasTrustDialogAccepted": True}}
    (home / ".claude.json").write_text(json.dumps({"projects": projects}))


def replay(cassette, *flags: str, cwd, home) -> subprocess.CompletedProcess:
    """`--replay CASSETTE *flags` as a user runs it in `cwd`, no terminal."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENROUTER_", "ANTHROPIC_", "AGENT_", "CLAUDE_"))}
    return subprocess.run([str(REPO / "your_program.sh"), "--replay", str(cassette), *flags], cwd=cwd,
                          env={**env, "HOME": str(home)}, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=60)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_an_interactive_recording_with_approvals_replays_in_both_modes(model, start, tmp_path, provider):
    model.script(call("Bash", command="echo approved-once"), text("ran it once"),
                 call("Bash", command="touch refused-file"), text("could not"),
                 call("Bash", command="echo again"), call("Bash", command="echo again"), text("twice"))
    workspace, home = tmp_path / "workspace", tmp_path / "home"
    trust(home, workspace)  # a team's own workspace, holding its cassette
    cassette = workspace / "cassettes" / "session.yaml"
    session = start("--record", str(cassette), bypass=False, provider=provider)
    session.ready()
    session.send("Run the first")
    session.expect(r"Allow Bash\?\s+echo approved-once")
    session.send("y")
    session.expect("ran it once")
    session.ready()
    session.send("Run the second")
    session.expect(r"Allow Bash\?\s+touch refused-file")
    session.send("n")
    session.expect("could not")
    session.ready()
    session.send("Run it twice")
    session.expect(r"Allow Bash\?\s+echo again")
    session.send("a")
    session.expect("twice")  # the second call was approved by the rule "always" added
    session.ready()
    session.send("/exit")
    assert session.end() == 0

    runs = yaml.safe_load(cassette.read_text())["tool_runs"]
    decided = [(run["input"]["command"], run.get("approval"), run.get("by"), "output" in run) for run in runs]
    assert decided == [("echo approved-once", "once", "user", True), ("touch refused-file", "no", "user", False),
                       ("echo again", "always", "user", True), ("echo again", None, None, True)]

    regression = replay(cassette, cwd=workspace, home=home)  # the tools run again, approved as recorded
    assert (regression.returncode, regression.stdout) == (0, "twice\n"), regression.stderr
    assert "recorded" not in regression.stderr and not (workspace / "refused-file").exists()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    offline = replay(cassette, "--replay-tools", cwd=elsewhere, home=home)  # nothing runs, in any folder
    assert (offline.returncode, offline.stdout) == (0, "twice\n"), offline.stderr
    assert list(elsewhere.iterdir()) == []

    shutil.copy(cassette, elsewhere / "theirs.yaml")  # someone else's copy: its approvals are not the user's
    withheld = replay(elsewhere / "theirs.yaml", cwd=workspace, home=home)
    assert withheld.returncode == 1 and "recorded with 2 approvals given" in withheld.stderr
    assert f"the cassette lies outside {os.path.realpath(workspace)}" in withheld.stderr
    assert "request 2 differs from the cassette" in withheld.stderr  # the first call is refused, as in -p mode
    assert withheld.stderr.count("[agent]") == 1, withheld.stderr


def test_recorded_permission_flags_apply_where_the_user_vouches_for_the_cassette(agent, tmp_path):
    agent.settings({})  # default mode: Bash needs approval, and nobody is asked in -p mode
    agent.script(call("Bash", command="echo vouched > ran.txt"), text("wrote it"))
    if agent.recording:
        assert agent.run("Write the file.", "--allowedTools", "Bash").exit_code == 0
    (agent.workspace / "ran.txt").unlink(missing_ok=True)
    inside = agent.workspace / "cassettes" / "run.yaml"
    inside.parent.mkdir()
    shutil.copy(agent.cassette_path(1), inside)
    agent.trust()

    for flags in ((), ("--replay-tools",)):  # a trusted workspace holding the cassette: as recorded
        replayed = agent.replay(*flags, cassette=inside)
        assert (replayed.exit_code, replayed.stdout) == (0, "wrote it\n"), replayed.stderr
        assert "[agent]" not in replayed.stderr
    assert (agent.workspace / "ran.txt").read_text() == "vouched\n"  # the regression replay ran it
    (agent.workspace / "ran.txt").unlink()

    outside = agent.replay()  # the cassette in another folder: its flag is not the user's
    assert outside.exit_code == 1 and "request 2 differs from the cassette" in outside.stderr
    assert "was recorded with --allowedTools Bash" in outside.stderr and "give --allowedTools Bash yourself" in outside.stderr
    assert f"the cassette lies outside {os.path.realpath(agent.workspace)}" in outside.stderr
    assert not (agent.workspace / "ran.txt").exists()
    assert agent.replay("--replay-tools").exit_code == 0  # nothing runs: the recorded flag is followed
    given = agent.replay("--allowedTools", "Bash")  # the user's own flag
    assert given.exit_code == 0 and (agent.workspace / "ran.txt").exists()
    (agent.workspace / "ran.txt").unlink()

    (agent.workspace / "link.yaml").symlink_to(agent.cassette_path(1))  # inside by name only
    linked = agent.replay(cassette=agent.workspace / "link.yaml")
    assert linked.exit_code == 1 and "the cassette lies outside" in linked.stderr

    (agent.home / ".claude.json").unlink()  # untrusted, though it holds the cassette
    untrusted = agent.replay(cassette=inside)
    assert untrusted.exit_code == 1 and "(this workspace is not trusted)" in untrusted.stderr
    assert untrusted.stderr.count("[agent]") == 1 and not (agent.workspace / "ran.txt").exists()


def test_a_recorded_permission_mode_that_grants_nothing_always_applies(agent, tmp_path):
    """--permission-mode plan only narrows what runs: a regression replay of someone else's
    cassette follows it without the user's say-so, and without a warning."""
    agent.script(call("Bash", command="touch planned"), text("plan mode stopped me"))
    if agent.recording:
        assert agent.run("Make the file.", "--permission-mode", "plan").exit_code == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    replayed = agent.replay(cwd=elsewhere)  # the user's own settings say bypassPermissions
    assert (replayed.exit_code, replayed.stdout, replayed.stderr) == (0, "plan mode stopped me\n", "")
    assert list(elsewhere.iterdir()) == []


def test_a_permission_flag_that_differs_from_the_recording_is_an_error_in_both_modes(agent):
    agent.settings({})
    agent.script(call("Bash", command="echo hi"), text("said hi"))
    if agent.recording:
        assert agent.run("Say hi.", "--allowedTools", "Bash").exit_code == 0
    agent.trust()
    for flags in ((), ("--replay-tools",)):
        for given in (("--allowedTools", "Read"), ("--dangerously-skip-permissions",)):
            run = agent.replay(*given, *flags)
            assert run.exit_code == 2 and run.stderr.count("\n") == 1, run.stderr
            assert f"{given[0]} " in run.stderr and "differs from the cassette" in run.stderr


def test_a_malformed_approval_in_a_cassette_is_a_usage_error(agent, tmp_path, capsys):
    agent.script(call("Bash", command="echo hi"), text("said hi"))
    if agent.recording:
        assert agent.run("Say hi.").exit_code == 0
    recorded = yaml.safe_load(agent.cassette_path(1).read_text())
    for change, words in [
        ({"approval": "yes"}, "`approval` must be once, always or 'no' (quoted), not 'yes'"),
        ({"approval": False}, "`approval` must be once, always or 'no' (quoted), not False"),  # YAML's bare no
        ({"approval": "once", "by": "robot"}, "`by` must be user, sdk or hook"),
        ({"by": "user"}, "`by` needs an `approval`"),
        ({"approval": "no"}, "a refused call (`approval: 'no'`) has no `output`"),
    ]:
        tampered = tmp_path / "tampered.yaml"
        tampered.write_text(yaml.safe_dump({**recorded, "tool_runs": [{**recorded["tool_runs"][0], **change}]}))
        for argv in (["--replay", str(tampered)], ["--replay", str(tampered), "--replay-tools"]):
            capsys.readouterr()
            code = cli.main(argv)
            err = capsys.readouterr().err
            assert code == 2 and f"tool run 1: {words}" in err and err.count("\n") == 1, err

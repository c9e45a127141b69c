"""`your_program.sh cassette show` and `cassette check`, run as a user runs them (subprocesses of the
real entry point), on cassettes the tests record: show reads a session back, and check tells a CI
job that editing a skill changed what the model is sent."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

from conftest import REPO
from scripted_model import call, text, unframed


def program(*args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENROUTER_", "ANTHROPIC_", "AGENT_", "CLAUDE_"))}
    env["HOME"] = str(home)
    return subprocess.run([str(REPO / "your_program.sh"), *args], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=120)


NOTES = "".join(f"line {n}: {'word ' * 12}\n" for n in range(1, 9))


def test_show_prints_the_session_for_a_person_and_as_json(agent, tmp_path):
    agent.write("notes.txt", NOTES)
    agent.script(
        call("Read", "Reading it first.", file_path="notes.txt"),
        call("Agent", description="Count lines", prompt="Count the lines of notes.txt.", subagent_type="Explore", run_in_background=False),
        call("Bash", command="wc -l notes.txt"),  # the subagent
        text("notes.txt has 8 lines."),
        text("notes.txt has 8 lines, each with twelve words."),
    )
    if agent.recording:
        assert agent.run("How long is notes.txt?").exit_code == 0
    cassette = str(agent.cassette_path(1))

    shown = program("cassette", "show", cassette, cwd=tmp_path, home=agent.home)
    assert shown.returncode == 0 and shown.stderr == "", shown.stderr
    out = shown.stdout
    wire = "chat" if agent.provider == "openrouter" else "messages"
    assert f"setup     {agent.provider} ({wire} wire), model " in out
    assert "recorded by agent 0.1.0 against the scripted model (its replies were written by a test, not by a model)" in out
    assert "prompt    How long is notes.txt?" in out
    assert "request 1 · main · " in out and " in · " in out and " out tokens" in out
    assert "  Reading it first.\n  → Read(file_path=\"notes.txt\")\n    ← line 1: word" in out
    assert "… (5 more lines)" in out  # a long result is shortened
    assert "request 3 · subagent Explore · " in out and "  task: Count the lines of notes.txt." in out
    assert "  → Bash(command=\"wc -l notes.txt\")\n    ← exit code: 0" in out
    assert "answer    notes.txt has 8 lines, each with twelve words." in out
    assert "total     5 requests · " in out

    as_json = program("cassette", "show", cassette, "--json", cwd=tmp_path, home=agent.home)
    session = json.loads(as_json.stdout)
    assert session["setup"]["provider"] == agent.provider and session["setup"]["prompts"] == ["How long is notes.txt?"]
    assert [turn["agent"] for turn in session["requests"]] == ["main", "main", "Explore", "Explore", "main"]
    first_call = session["requests"][0]["tool_calls"][0]
    assert (first_call["name"], first_call["input"], first_call["result"], first_call["is_error"]) == (
        "Read", {"file_path": "notes.txt"}, NOTES, False)
    assert unframed(session["requests"][1]["tool_calls"][0]["result"]).startswith("notes.txt has 8 lines.")  # the report
    assert session["answer"] == "notes.txt has 8 lines, each with twelve words."
    assert session["usage"]["requests"] == 5 and session["usage"]["input_tokens"] > 0


def test_check_is_green_then_red_after_a_skill_edit_with_a_junit_report(agent, tmp_path):
    skill = agent.skill("release-notes", "Use this skill to write release notes.", "List the changes since the last tag.")
    agent.write("CHANGES.txt", "- faster start\n")
    agent.script(call("Read", file_path="CHANGES.txt"), text("One change: a faster start."))
    if agent.recording:
        assert agent.run("What changed?").exit_code == 0
    ci = tmp_path / "ci" / "cassettes"
    ci.mkdir(parents=True)
    shutil.copy(agent.cassette_path(1), ci / "what-changed.yaml")
    (ci / "workflow.yml").write_text("name: not a cassette\non: push\n")  # other YAML is left alone
    report = tmp_path / "report.xml"

    green = program("cassette", "check", str(ci), "--junit", str(report), cwd=agent.workspace, home=agent.home)
    assert (green.returncode, green.stdout) == (0, f"ok    {ci / 'what-changed.yaml'}\n"), green.stderr
    suite = ET.parse(report).getroot().find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("1", "0", "0")
    assert [case.get("name") for case in suite.iter("testcase")] == ["what-changed.yaml"]
    assert suite.find("testcase").get("classname").endswith(".ci.cassettes")

    skill.write_text(skill.read_text().replace("write release notes", "write release notes for the team"))
    red = program("cassette", "check", str(ci), "--junit", str(report), cwd=agent.workspace, home=agent.home)
    assert red.returncode == 1
    (line,) = red.stdout.splitlines()
    # the workspace is the cause, said first in words, then the JSON path
    assert line.startswith(f"drift {ci / 'what-changed.yaml'}: the description of skill release-notes differs")
    assert ": request 1 differs from the cassette" in line
    assert "for the team" in line and ("$.messages[0].content" in line or "$.system" in line)
    assert "1 cassettes: 0 ok, 1 drifted, 0 errors, 0 failed" in red.stderr
    suite = ET.parse(report).getroot().find("testsuite")
    assert (suite.get("tests"), suite.get("failures")) == ("1", "1")
    failure = suite.find("testcase").find("failure")
    assert "for the team" in failure.get("message") and failure.get("type") == "drift"


def test_check_of_the_demo_cassettes_in_the_demo_workspace_is_green(tmp_path):
    """The bundled demo, as a user's CI would check it: every cassette replays with nothing run."""
    workspace, home = tmp_path / "ws", tmp_path / "home"
    shutil.copytree(REPO / "cassettes" / "demo" / "workspace", workspace)
    home.mkdir()
    checked = program("cassette", "check", str(REPO / "cassettes" / "demo"), cwd=workspace, home=home)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert len(checked.stdout.splitlines()) == 6 and all(line.startswith("ok    ") for line in checked.stdout.splitlines())
    assert (workspace / "stats.py").read_text() == (REPO / "cassettes/demo/workspace/stats.py").read_text()


def test_cassette_subcommand_bad_input_is_one_line(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    for args, words in [
        (["cassette"], "required"),
        (["cassette", "play", "x.yaml"], "invalid choice"),
        (["cassette", "check", str(tmp_path / "nowhere")], "neither a folder nor a file"),
        (["cassette", "check", str(empty)], "no cassettes in"),
        (["cassette", "check", str(empty), "--junit", str(empty)], "is a folder"),
        (["cassette", "show", str(tmp_path / "missing.yaml")], "cassette not found"),
    ]:
        done = program(*args, cwd=tmp_path, home=tmp_path)
        assert (done.returncode, done.stdout) == (2, ""), (args, done.stderr)
        assert done.stderr.startswith("error: ") and words in done.stderr and done.stderr.count("\n") == 1, done.stderr

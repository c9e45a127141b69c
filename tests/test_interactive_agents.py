"""The interactive screen's view of subagents, driven as a person drives it (the real program in a
pty against the scripted model, both wire formats): a delegation reads `name(short task)` with its
result under it, the panel under the spinner lists the running agents as a tree with `(+N)`
counts, and `/tasks` lists, opens and clears them, each row with its model and effort."""

from __future__ import annotations

import os
import subprocess

import pytest
import yaml

from conftest import REPO
from pty_session import start  # noqa: F401 (start is the fixture these tests use)
from scripted_model import call, text

WIRES = pytest.mark.parametrize("provider", ["openrouter", "anthropic"])
IMPROVER = "---\nname: code-improver\ndescription: Suggests code improvements.\ntools: Read\neffort: high\n---\nYou improve code.\n"


def agent_file(session, name: str, body: str) -> None:
    folder = session.workspace / ".claude" / "agents"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.md").write_text(body)


def improve(start, provider: str):
    """A session with the code-improver agent and a.py, asked to improve it."""
    session = start(provider=provider)
    agent_file(session, "code-improver", IMPROVER)
    (session.workspace / "a.py").write_text("x = 1\n")
    session.ready()
    session.send("Improve a.py")
    session.expect(r"● code-improver\(Suggest code improvements\)")
    return session


@WIRES
def test_a_delegation_reads_name_and_short_task_and_its_report_under_it(model, start, provider):
    model.script(call("Agent", description="Suggest code improvements", prompt="TASK: improve a.py",
                      subagent_type="code-improver", run_in_background=False),
                 text("Relayed the advice."))
    model.route("TASK: improve a.py", call("Read", file_path="a.py"), text("Rename x to count.\nAdd a docstring."))
    session = improve(start, provider)
    session.expect(r"  ● Read\(a\.py\)")  # a foreground agent's calls sit under its call
    session.expect(r"⎿ Rename x to count\. \(\+1 lines\)")  # the report, not the hand-back frame
    session.expect("Relayed the advice.")
    session.ready()
    session.send("/exit")
    assert session.end() == 0
    assert "[Subagent hand-back]" not in session.seen


@WIRES
def test_a_background_agent_shows_in_the_panel_and_in_tasks_with_its_model_and_effort(model, start, provider):
    model.script(call("Agent", description="Suggest code improvements", prompt="TASK: improve a.py",
                      subagent_type="code-improver"),
                 text("Waiting for it."), text("It says rename x."))
    model.route("TASK: improve a.py", call("Read", file_path="a.py"), text("Rename x to count.", delay_s=3))
    session = improve(start, provider)
    session.expect(r"⎿ Backgrounded agent \(/tasks to see it\)")
    session.expect(r"● main")  # the panel under the spinner while it runs
    session.expect(r"◯ code-improver  Suggest code improvements  \d+s")
    session.expect(r'● Agent "Suggest code improvements" finished · \ds')
    session.expect("It says rename x.")
    session.ready()
    session.send("/tasks")
    session.expect(r"Finished\s+#1 ✔ Suggest code improvements\s+done · code-improver · \S+ \(high\)")
    session.ready()
    session.send("/tasks 1")
    session.expect(r"main › #1 code-improver")
    session.expect(r"Prompt\s+TASK: improve a\.py\s+Progress\s+● Read\(a\.py\)\s+⎿ x = 1\s+Rename x to count\.")
    session.ready()
    session.send("/tasks x")
    session.expect("cleared 1 finished row")
    session.ready()
    session.send("/tasks")
    session.expect("No background work")
    session.ready()
    session.send("/exit")
    assert session.end() == 0
    assert "  ● Read(a.py)" not in session.seen  # a background agent's calls stay in its own view


REVIEWER = "---\nname: reviewer\ndescription: Reviews code.\ntools: Read, Agent\n---\nYou review code.\n"
NAMER = "---\nname: namer\ndescription: Checks names.\ntools: Read\neffort: low\n---\nYou check names.\n"
DOWN = "\x1b[B"


@WIRES
def test_nested_agents_are_a_tree_with_counts_and_keys_open_and_stop_one(model, start, provider):
    model.script(call("Agent", description="Review the code", prompt="TASK: review", subagent_type="reviewer"),
                 text("Waiting for the review."), text("The review is in."))
    model.route("TASK: review", call("Agent", description="Check naming", prompt="TASK: names", subagent_type="namer",
                                     run_in_background=False),
                lambda request: text("Review done; naming: " + ("stopped" if "Stopped by the user" in str(request.body)
                                                                 else "no word")))
    model.route("TASK: names", call("Read", file_path="a.py"), text("Names are fine.", delay_s=6))
    session = start(provider=provider)
    agent_file(session, "reviewer", REVIEWER)
    agent_file(session, "namer", NAMER)
    (session.workspace / "a.py").write_text("x = 1\n")
    session.ready()
    session.send("Review a.py")
    session.expect(r"◯ reviewer \(\+1\)  Review the code  \d+s")  # its child counted on its row
    session.expect(r"↓/↑ select · Enter open · x stop")
    session.child.send(DOWN)
    session.child.send(DOWN)  # the child: the way to it opens
    session.expect(r"  ◯ reviewer \(\+1\)  Review the code  \d+s\s+  ❯ ◯ namer  Check naming  \d+s")
    session.child.send("\r")
    session.expect(r"main › #1 reviewer › #2 namer")
    session.expect(r"Check naming · namer · running · \d+s · \S+ \(low\)")
    session.expect(r"Siblings: none")
    session.expect(r"Prompt\s+TASK: names\s+Progress\s+● Read\(a\.py\)")
    session.child.send("x")
    session.expect(r'● Agent "Review the code" finished')
    session.expect("The review is in.")
    session.ready()
    session.send("/tasks")
    session.expect(r"#2 ■ Check naming\s+stopped · namer")
    session.ready()
    session.send("/exit")
    assert session.end() == 0
    reviewer = [r for r in model.requests if "TASK: review" in r.first_user_text()]
    assert "Stopped by the user (/tasks)" in str(reviewer[-1].body)  # its call failed; it went on


@WIRES
def test_ctrl_c_still_cancels_a_turn_while_the_panel_reads_keys(model, start, provider):
    model.script(call("Agent", description="Suggest code improvements", prompt="TASK: improve a.py",
                      subagent_type="code-improver"),
                 text("Waiting for it."), text("Back at the prompt."), text("Its late report is in."))
    model.route("TASK: improve a.py", text("too late", delay_s=8))
    session = improve(start, provider)
    session.expect(r"↓/↑ select · Enter open · x stop")  # the panel reads keys now
    session.expect("Waiting for it.")  # the turn now waits for the agent (Ctrl-C lands there, not before)
    session.child.sendcontrol("c")
    session.expect(r"\(cancelled")
    session.ready()
    session.send("Still there?")
    session.expect("Still there?")  # typing shows again
    session.expect("Back at the prompt.")
    # Ctrl-C stopped the turn's wait, not the background agent: the next turn waits for it and its
    # report is sent on, however early or late it finishes
    session.expect("Its late report is in.")
    session.ready()
    session.send("/exit")
    assert session.end() == 0


@WIRES
def test_enter_attaches_to_a_background_agent_and_its_calls_show_as_they_happen(model, start, provider):
    model.script(call("Agent", description="Suggest code improvements", prompt="TASK: improve a.py",
                      subagent_type="code-improver"),
                 text("Waiting for it."), text("Got the advice."))
    reading = call("Read", file_path="a.py")
    reading.delay_s = 4  # time to attach before it reads
    model.route("TASK: improve a.py", reading, text("Rename x to count."))
    session = improve(start, provider)
    session.expect(r"↓/↑ select · Enter open · x stop")
    session.child.send(DOWN)
    session.child.send("\r")
    session.expect(r"\(attached to #1: Esc lets go\)")
    session.expect(r"  ● Read\(a\.py\)")  # its call, under its row's depth, as it happens
    session.expect(r"⎿ x = 1")
    session.expect("Got the advice.")
    session.ready()
    session.send("/exit")
    assert session.end() == 0


@WIRES
def test_while_recording_x_does_not_stop_an_agent_and_the_session_replays(model, start, provider, tmp_path):
    model.script(call("Agent", description="Suggest code improvements", prompt="TASK: improve a.py",
                      subagent_type="code-improver"),
                 text("Waiting for it."), text("Got the advice."))
    model.route("TASK: improve a.py", call("Read", file_path="a.py"), text("Rename x to count.", delay_s=4))
    cassette = tmp_path / "session.yaml"
    session = start("--record", str(cassette), provider=provider)
    agent_file(session, "code-improver", IMPROVER)
    (session.workspace / "a.py").write_text("x = 1\n")
    session.ready()
    session.send("Improve a.py")
    session.expect(r"↓/↑ select · Enter open · x stop")
    session.child.send(DOWN)
    session.child.send("x")
    session.expect("stopping an agent is not available while recording")
    session.expect("Got the advice.")
    session.ready()
    session.send("/exit")
    assert session.end() == 0
    replay = subprocess.run([str(REPO / "your_program.sh"), "--replay", str(cassette), "--replay-tools"],
                            cwd=session.workspace, env={**os.environ, "HOME": str(session.home)},
                            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert (replay.returncode, replay.stdout) == (0, "Got the advice.\n"), replay.stderr


@WIRES
def test_leaving_stops_a_background_agent_still_running_instead_of_waiting_for_it(model, start, provider):
    model.script(call("Agent", description="Suggest code improvements", prompt="TASK: improve a.py",
                      subagent_type="code-improver"), text("Waiting for it."))
    model.route("TASK: improve a.py", text("far too late", delay_s=120))  # longer than the session's end may take
    session = improve(start, provider)
    session.expect("Waiting for it.")
    session.child.sendcontrol("c")  # stops the turn's wait; the agent runs on
    session.expect(r"\(cancelled")
    session.ready()
    session.send("/exit")
    session.expect("stopped 1 background agent still running: Suggest code improvements")
    assert session.end() == 0  # within the session's 20 s, not the agent's 120


@WIRES
def test_while_recording_leaving_waits_for_a_background_agent_and_the_session_replays(model, start, provider, tmp_path):
    model.script(call("Agent", description="Suggest code improvements", prompt="TASK: improve a.py",
                      subagent_type="code-improver"), call("Read", file_path="a.py"))
    model.route("TASK: improve a.py", call("Read", file_path="a.py"), text("Rename x to count.", delay_s=4))
    cassette = tmp_path / "session.yaml"
    session = start("--record", str(cassette), "--max-turns", "2", provider=provider)
    agent_file(session, "code-improver", IMPROVER)
    (session.workspace / "a.py").write_text("x = 1\n")
    session.ready()
    session.send("Improve a.py")
    session.expect(r"stopped at the turn limit")  # the turn is over, its agent is not
    session.ready()
    session.send("/exit")
    session.expect("waiting for 1 background agent to finish: the recording needs their requests")
    assert session.end() == 0
    agents = [step["agent"] for step in yaml.safe_load(cassette.read_text())["interactions"]]
    assert agents.count("code-improver") == 2  # its last request too, sent after the turn ended
    replay = subprocess.run([str(REPO / "your_program.sh"), "--replay", str(cassette), "--replay-tools"],
                            cwd=session.workspace, env={**os.environ, "HOME": str(session.home)},
                            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    # the turn limit again, as recorded, and every request sent (its agent's last one included)
    assert (replay.returncode, replay.stderr) == (1, "error: stopped after reaching the turn limit (2 turns; raise "
                                                     "--max-turns)\n")

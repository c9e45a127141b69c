"""The interactive mode, driven as a person drives it: the real program in a pseudo-terminal
(pexpect), against the scripted model over loopback (vcrpy cannot see a subprocess, as in the
tester-style tests). Each test is a short session."""

from __future__ import annotations

import io
import json
import os
import subprocess

import pexpect
import yaml

from conftest import REPO
from pty_session import ANSI, start  # noqa: F401 (start is the fixture these tests use)
from scripted_model import call, text


def texts(request) -> list[str]:
    """Every text of a request's conversation, in order."""
    found = []
    for message in request.messages:
        content = message["content"]
        found += [content] if isinstance(content, str) else [p.get("text") or p.get("content") or "" for p in content]
    return found


def test_two_turns_share_one_conversation_and_exit_is_clean(model, start):
    model.script(text("Hello! I am **agent**."), text("You said hi."))
    session = start()
    session.ready()
    assert "agent" in session.seen and "/help" in session.seen and str(session.workspace) in session.seen
    session.send("Hi")
    session.expect("Hello! I am agent.")  # rendered as Markdown: no asterisks
    session.ready()
    session.send("What did I say?")
    session.expect("You said hi.")
    session.ready()
    session.send("/exit")
    assert session.end() == 0
    assert texts(model.requests[1])[:3] == ["Hi", "Hello! I am **agent**.", "What did I say?"]


def test_each_tool_call_is_one_line_with_a_short_result(model, start):
    model.script(call("Read", file_path="note.txt"), text("It says kumquat."))
    session = start()
    (session.workspace / "note.txt").write_text("kumquat\nsecond line\n")
    session.ready()
    session.send("Read note.txt")
    session.expect("It says kumquat.")
    assert "● Read(note.txt)" in session.seen and "⎿ kumquat (+1 lines)" in session.seen
    session.ready()
    session.child.sendeof()
    assert session.end() == 0


def test_ctrl_c_cancels_a_slow_turn_and_the_conversation_is_as_it_was(model, start):
    model.script(text("too late", delay_s=8), text("Quick answer."))
    session = start()
    session.ready()
    session.send("A slow question")
    session.expect("thinking")
    session.wait_until(lambda: len(model.requests) == 1)  # the slow reply is on its way, not yet asked for
    session.child.sendcontrol("c")
    session.expect(r"\(cancelled")
    session.ready()
    session.send("A quick one")
    session.expect("Quick answer.")
    session.ready()
    session.child.sendcontrol("c")
    session.expect("Ctrl-C again")
    session.ready()
    session.child.sendcontrol("c")
    assert session.end() == 0
    assert texts(model.requests[-1]) == ["A quick one"]


def test_the_approval_prompt_shows_every_line_of_a_long_command_whole(model, start):
    padding = "x" * 150
    command = f"echo {padding}\\\n; touch pwned-by-the-tail"
    model.script(call("Bash", command=command), text("refused it"))
    session = start(bypass=False)
    session.ready()
    session.send("Run it")
    session.expect(r"Allow Bash\?")
    session.expect(padding[:40])  # the screen wraps a long line; it is never cut
    session.expect(r"; touch pwned-by-the-tail")
    session.expect(r"\[y/a/n\]")
    session.send("n")
    session.expect("refused it")
    assert not (session.workspace / "pwned-by-the-tail").exists()
    session.ready()
    session.send("/exit")
    assert session.end() == 0


def test_an_approval_is_asked_and_answered_yes_no_and_always(model, start):
    model.script(call("Bash", command="echo approved-run"), text("ran it"),
                 call("Bash", command="touch refused-file"), text("could not"),
                 call("Bash", command="echo again"), call("Bash", command="echo again"), text("twice"))
    session = start(bypass=False)
    session.ready()
    session.send("Run the first")
    session.expect(r"Allow Bash\?\s+echo approved-run")
    session.send("y")
    session.expect("ran it")
    assert "approved-run" in json.dumps(model.requests[1].body)
    session.ready()
    session.send("Run the second")
    session.expect(r"Allow Bash\?\s+touch refused-file")
    session.send("n")
    session.expect("could not")
    assert not (session.workspace / "refused-file").exists()
    assert "The user did not allow this Bash call" in json.dumps(model.requests[3].body)
    session.ready()
    session.send("Run it twice")
    session.expect(r"Allow Bash\?\s+echo again")
    session.send("a")
    session.expect("twice")  # the second, identical call was not asked about (it would wait for an answer)
    assert json.dumps(model.requests[-1].body).count("again") >= 4
    session.ready()
    session.send("/exit")
    assert session.end() == 0


def test_built_in_commands(model, start):
    model.allowed_model_prefix = ""  # /model changes it
    model.script(text("first answer"), text("fresh answer"))
    session = start()
    (session.workspace / ".claude/skills/tidy").mkdir(parents=True)
    (session.workspace / ".claude/skills/tidy/SKILL.md").write_text("---\ndescription: Tidies up.\n---\nTidy.\n")
    session.ready()
    session.send("Hello")
    session.expect("first answer")
    session.ready()
    session.send("/cost")
    session.expect(r"1 requests, \d+ input \+ \d+ output tokens")
    session.ready()
    session.send("/nonsense")
    session.expect("Unknown command /nonsense; /help lists the commands and skills.")
    session.ready()
    session.send("/skills")
    session.expect(r"tidy \(project, .*SKILL.md\)")
    session.ready()
    session.send("/agents")
    session.expect(r"general-purpose \(builtin\)")
    session.ready()
    session.send("/model sonnet")
    session.expect("model: anthropic/claude-sonnet-4.5")
    session.ready()
    session.child.send("/cle\t")  # Tab completes the command
    session.expect("/clear")
    session.send("")
    session.expect(r"\(new conversation\)")
    session.ready()
    session.send("Start over")
    session.expect("fresh answer")
    session.ready()
    session.send("/exit")
    assert session.end() == 0
    assert texts(model.requests[-1]) == ["Start over"] and model.requests[-1].body["model"] == "anthropic/claude-sonnet-4.5"


def test_a_mention_adds_the_file_and_alt_enter_adds_a_line(model, start):
    model.script(text("summarised"))
    session = start()
    (session.workspace / "notes.md").write_text("Ship on Friday.\n")
    session.ready()
    session.child.send("Summarise @notes.md\x1b\r")  # Alt-Enter: a new line, not sent yet
    session.send("in one line")
    session.expect("summarised")
    session.ready()
    session.send("/exit")
    assert session.end() == 0
    sent = texts(model.requests[0])[-1]
    assert sent.startswith("Summarise @notes.md\nin one line") and "Contents of notes.md:\n```\nShip on Friday.\n```" in sent
    assert "Summarise @notes.md" in (session.home / ".cache/agent/history").read_text()  # kept for the next session


def test_a_recorded_session_replays_its_turns_without_a_terminal(model, start, tmp_path):
    model.script(call("Bash", command="date +%s%N"), text("noted the time"),
                 call("Bash", command="echo cancelled-turn"), text("too late", delay_s=8), text("second turn done"))
    session = start("--record", str(tmp_path / "session.yaml"))
    session.ready()
    session.send("What time is it?")
    session.expect("noted the time")
    session.ready()
    session.send("Start something slow")  # cancelled after one exchange and one tool run
    session.expect("cancelled-turn")
    session.wait_until(lambda: len(model.requests) >= 4, timeout=30)  # the slow reply is on its way
    session.child.sendcontrol("c")
    session.expect(r"left out of the recording")
    session.ready()
    session.send("/clear")  # a replay has one conversation: refused while recording
    session.expect("not available while recording")
    session.ready()
    session.send("And now?")
    session.expect("second turn done")
    session.ready()
    session.send("/exit")
    assert session.end() == 0
    replay = subprocess.run([str(REPO / "your_program.sh"), "--replay", str(tmp_path / "session.yaml"), "--replay-tools"],
                            cwd=tmp_path, env={**os.environ, "HOME": str(session.home)}, stdin=subprocess.DEVNULL,
                            capture_output=True, text=True, timeout=60)
    assert (replay.returncode, replay.stdout) == (0, "second turn done\n"), replay.stderr
    assert "cancelled" not in (tmp_path / "session.yaml").read_text()
    recorded = yaml.safe_load((tmp_path / "session.yaml").read_text())["setup"]
    assert recorded["outcomes"] == [{"subtype": "success", "answer": "noted the time"},  # each finished turn's
                                    {"subtype": "success", "answer": "second turn done"}]


def test_output_that_is_not_a_terminal_gets_only_the_answers(model, tmp_path):
    model.script(call("Bash", command="echo from-the-tool"), text("Plain **answer** here."))
    (tmp_path / "home" / ".claude").mkdir(parents=True)
    (tmp_path / "home" / ".claude" / "settings.json").write_text('{"permissions": {"defaultMode": "bypassPermissions"}}')
    out = tmp_path / "out.txt"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENROUTER_", "ANTHROPIC_", "AGENT_", "CLAUDE_"))}
    env.update(HOME=str(tmp_path / "home"), OPENROUTER_BASE_URL=model.base + "/api/v1", OPENROUTER_API_KEY="dummy-key",
               TERM="xterm")
    child = pexpect.spawn("bash", ["-c", f"'{REPO / 'your_program.sh'}' > '{out}'"], cwd=str(tmp_path), env=env,
                          encoding="utf-8", timeout=20)
    child.logfile_read = screen = io.StringIO()
    child.expect_exact("> ")  # the prompt goes to stderr, the terminal; the answer to the file
    child.send("Say it\r")
    child.expect_exact("> ")
    child.sendeof()
    child.expect(pexpect.EOF)
    assert out.read_text() == "Plain **answer** here.\n"  # no banner, tool lines, colours or cursor movement
    shown = ANSI.sub("", screen.getvalue())  # stderr, a terminal
    assert "● Bash(echo from-the-tool)" in shown and "agent ·" in shown


def an_earlier_session(start) -> None:
    """One session that ends after telling the model a name (its first reply is scripted "Noted: Ada.")."""
    first = start()
    first.ready()
    first.send("My name is Ada.")
    first.expect("Noted: Ada.")
    first.ready()
    first.send("/exit")
    assert first.end() == 0


def test_resume_and_continue_pick_up_an_earlier_session(model, start):
    model.script(text("Noted: Ada."), text("Your name is Ada."), text("Still Ada."))
    an_earlier_session(start)
    second = start()
    second.ready()
    second.send("/resume")
    second.expect(r"1\. [0-9a-f-]{36}  My name is Ada\.")
    second.expect("Resume which")
    second.send("1")
    second.expect(r"\(resumed ")
    second.ready()
    second.send("What is my name?")
    second.expect("Your name is Ada.")
    second.ready()
    second.send("/exit")
    assert second.end() == 0
    third = start("--continue")
    third.ready()
    third.send("And now?")
    third.expect("Still Ada.")
    third.ready()
    third.child.sendeof()
    assert third.end() == 0
    assert texts(model.requests[1])[:3] == ["My name is Ada.", "Noted: Ada.", "What is my name?"]
    assert texts(model.requests[2])[:5] == ["My name is Ada.", "Noted: Ada.", "What is my name?", "Your name is Ada.", "And now?"]


def test_resume_without_an_id_picks_a_session_before_the_first_prompt(model, start):
    model.script(text("Noted: Ada."), lambda request: text("Your name is Ada." if "My name is Ada." in request.raw
                                                             else "I do not know."), text("Fresh start."))
    an_earlier_session(start)
    second = start("-r")
    second.expect(r"1\. [0-9a-f-]{36}  My name is Ada\.")
    second.expect("Resume which")
    second.send("1")
    second.ready()
    second.send("What is my name?")
    second.expect("Your name is Ada.")  # the picked conversation goes on
    second.ready()
    second.send("/exit")
    assert second.end() == 0
    third = start("--resume")
    third.expect("Resume which")
    third.send("q")  # none: a new session
    third.expect(r"\(a new session\)")
    third.ready()
    third.send("Hello?")
    third.expect("Fresh start.")
    third.ready()
    third.send("/exit")
    assert third.end() == 0
    assert texts(model.requests[1])[:3] == ["My name is Ada.", "Noted: Ada.", "What is my name?"]
    assert texts(model.requests[2]) == ["Hello?"]


def test_the_resume_list_survives_transcripts_it_cannot_read(model, start):
    from agent.transcripts import project_folder

    model.script(text("Still here."))
    session = start()
    folder = project_folder(session.home, session.workspace)
    folder.mkdir(parents=True)
    huge = folder / "5b7a0f0e-1111-4222-8333-944445555666.jsonl"
    with huge.open("wb") as handle:  # past the transcript cap, without writing it (sparse)
        handle.truncate(65 * 1024 * 1024)
    os.mkfifo(folder / "6c8b1f1f-2222-4333-8444-a55556666777.jsonl")  # never waited on, never listed
    (folder / "notes.jsonl").write_text("{}\n")  # no session's name
    session.ready()
    session.send("/resume")
    session.expect(r"1\. 5b7a0f0e-1111-4222-8333-944445555666  \(cannot be read\)")
    session.expect("Resume which")
    session.send("1")
    session.expect(r"cannot read the session 5b7a0f0e-1111-4222-8333-944445555666: ")
    session.ready()
    session.send("Hello?")
    session.expect("Still here.")  # the conversation goes on
    session.ready()
    session.send("/exit")
    assert session.end() == 0
    assert "6c8b1f1f" not in session.seen and "notes" not in session.seen and "Traceback" not in session.seen

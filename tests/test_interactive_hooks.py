"""Hooks in the interactive mode, driven as a person drives it (see test_interactive.py): a
permission question tells Notification hooks first, what a hook says to the person shows on the
screen, and each conversation's start and end (/clear, /resume, /exit, Ctrl-D) are moments the
session's hooks see, with Claude Code's sources and reasons. A replay of a recorded session tells
Notification hooks only of the questions the recording asked."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from conftest import REPO
from pty_session import start  # noqa: F401 (the fixture these tests use)
from scripted_model import call, text
from test_interactive import texts


def hook(command: str, matcher: str = "") -> list:
    return [{"matcher": matcher, "hooks": [{"type": "command", "command": command}]}]


def test_a_hook_notice_shows_and_notification_hooks_hear_of_a_permission_prompt_before_it_is_asked(model, start):
    model.script(call("Bash", command="touch asked-file"), text("not allowed, then"))
    guard = hook("""echo '{"systemMessage": "the guard looked at it"}'""", "Bash")
    session = start(bypass=False, settings={"hooks": {"Notification": hook("cat > notified.json", "permission_prompt"),
                                                      "PreToolUse": guard}})
    session.ready()
    session.send("Make the file")
    session.expect("● PreToolUse:Bash says: the guard looked at it")  # what a hook tells the person shows
    session.expect(r"Allow Bash\?\s+touch asked-file")
    told = json.loads((session.workspace / "notified.json").read_text())  # written before the question showed
    assert (told["hook_event_name"], told["notification_type"]) == ("Notification", "permission_prompt")
    assert told["message"] == "Claude needs your permission to use Bash" and told["cwd"] == str(session.workspace)
    session.send("n")
    session.expect("not allowed, then")
    session.ready()
    session.send("/exit")
    assert session.end() == 0


MOMENTS = "cat >> moments.jsonl; echo >> moments.jsonl"


@pytest.mark.parametrize("provider", ["openrouter", "anthropic"])
def test_session_hooks_see_each_conversation_start_and_end(model, start, provider):
    model.script(text("first answer"), text("fresh answer"), text("resumed answer"), text("last answer"))
    settings = {"hooks": {"SessionStart": hook(f"{MOMENTS}; echo context for this conversation"),
                          "SessionEnd": hook(MOMENTS)}}
    session = start(provider=provider, settings=settings)
    session.ready()
    session.send("Hello")
    session.expect("first answer")
    session.ready()
    session.send("/clear")
    session.expect(r"\(new conversation\)")
    session.ready()
    session.send("Again")
    session.expect("fresh answer")
    session.ready()
    session.send("/resume")
    session.expect("Resume which")
    session.send("1")  # the first conversation: the current one is not listed
    session.expect(r"\(resumed ")
    session.ready()
    session.send("Where were we?")
    session.expect("resumed answer")
    session.ready()
    session.send("/exit")
    assert session.end() == 0
    again = start(provider=provider, settings=settings)
    again.ready()
    again.child.sendeof()
    assert again.end() == 0
    moments = [json.loads(line) for line in (session.workspace / "moments.jsonl").read_text().splitlines()]
    seen = [(m["hook_event_name"], m.get("source") or m.get("reason")) for m in moments]
    assert seen == [("SessionStart", "startup"), ("SessionEnd", "clear"), ("SessionStart", "clear"),
                    ("SessionEnd", "resume"), ("SessionStart", "resume"), ("SessionEnd", "prompt_input_exit"),
                    ("SessionStart", "startup"), ("SessionEnd", "prompt_input_exit")]
    ids = [m["session_id"] for m in moments]
    assert ids[0] == ids[1] == ids[4] == ids[5] and ids[2] == ids[3] and len({ids[0], ids[2], ids[6]}) == 3
    assert all(m["transcript_path"].endswith(f"{m['session_id']}.jsonl") for m in moments)
    first, fresh, resumed = ("\n\n".join(texts(model.requests[n])) for n in range(3))  # as either wire joins them
    context = " hook success: context for this conversation\n</system-reminder>"
    assert first.startswith(f"<system-reminder>\nSessionStart:startup{context}") and first.endswith("Hello")
    assert fresh.startswith(f"<system-reminder>\nSessionStart:clear{context}") and fresh.endswith("Again")
    assert "Hello" not in fresh and "first answer" not in fresh
    assert resumed.index("first answer") < resumed.index(f"SessionStart:resume{context}") < resumed.index("Where were we?")


def test_a_replay_tells_notification_hooks_only_of_the_questions_the_recording_asked(model, start, tmp_path):
    model.script(call("Bash", command="touch refused-file"), text("left it"))
    cassette = tmp_path / "session.yaml"
    session = start("--record", str(cassette), bypass=False,
                    settings={"hooks": {"Notification": hook("cat >> notified.jsonl; echo >> notified.jsonl")}})
    session.ready()
    session.send("Make the file")
    session.expect(r"Allow Bash\?")
    session.send("n")
    session.expect("left it")
    session.ready()
    session.send("/exit")
    assert session.end() == 0
    notified = session.workspace / "notified.jsonl"
    assert len(notified.read_text().splitlines()) == 1
    for flags, told in (((), 2), (("--replay-tools",), 2)):  # hooks run again in a plain replay, not with --replay-tools
        replay = subprocess.run([str(REPO / "your_program.sh"), "--replay", str(cassette), *flags], cwd=session.workspace,
                                env={**os.environ, "HOME": str(session.home)}, stdin=subprocess.DEVNULL,
                                capture_output=True, text=True, timeout=60)
        assert (replay.returncode, replay.stdout) == (0, "left it\n"), replay.stderr
        assert len(notified.read_text().splitlines()) == told
    assert json.loads(notified.read_text().splitlines()[-1])["notification_type"] == "permission_prompt"
    assert not (session.workspace / "refused-file").exists()

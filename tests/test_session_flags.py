"""The flags that choose which conversation a run continues and where its transcript goes, on
both wire formats, as Claude Code 2.1.332 does: --fork-session (the conversation goes on under a
new session id, the old transcript untouched), --resume-session-at (only up to that message: the
turns after it are left behind, for this run and the ones that continue it), --session-mirror
(each transcript line as a transcript_mirror line, for the Agent SDK's SessionStore), and the
flags this agent cannot follow, each one warning. Through the Agent SDK too."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from claude_agent_sdk import AssistantMessage, InMemorySessionStore, project_key_for_directory

from agent import cli
from agent.transcripts import project_folder
from scripted_model import text
from sdk_session import sdk_query

APPLE, PEAR = "Remember the word apple.", "Now remember the word pear."


def transcript(agent, session_id: str) -> Path:
    return project_folder(agent.home, Path.cwd()) / f"{session_id}.jsonl"


def lines_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def said(payload: dict) -> str:
    """Every message of a request, as text."""
    return json.dumps([m for m in payload["messages"] if m["role"] != "system"])


def stream(run) -> list[dict]:
    return [json.loads(line) for line in run.stdout.splitlines()]


def first_session(agent) -> tuple[str, str]:
    """Record (or replay) a first run; its session id and the uuid of its answer's stream-json line."""
    agent.script(text("Noted: apple."))
    run = agent.run(APPLE, "--output-format", "stream-json", "--verbose")
    assert run.exit_code == 0, run.stderr
    lines = stream(run)
    [answer] = [line for line in lines if line["type"] == "assistant"]
    return lines[-1]["session_id"], answer["uuid"]


def test_fork_session_continues_the_conversation_under_a_new_id_and_leaves_the_old_transcript(agent):
    first, _ = first_session(agent)
    before = transcript(agent, first).read_bytes()
    agent.script(text("You said apple."))
    run = agent.run("What did I ask you to remember?", "--resume", first, "--fork-session", "--output-format", "json")
    assert run.exit_code == 0, run.stderr
    forked = json.loads(run.stdout)["session_id"]
    assert forked != first and "apple" in said(run.payloads[0])
    assert transcript(agent, first).read_bytes() == before
    old, new = lines_of(transcript(agent, first)), lines_of(transcript(agent, forked))
    assert [line["uuid"] for line in new[:len(old)]] == [line["uuid"] for line in old]  # the copy it continues
    assert {line["sessionId"] for line in new} == {forked} and len(new) == len(old) + 2
    agent.script(text("Still apple."))
    again = agent.run("And now?", "--continue", "--output-format", "json")  # the latest session is the fork
    assert json.loads(again.stdout)["session_id"] == forked
    assert "You said apple." in said(again.payloads[0])


def test_session_id_names_the_fork(agent):
    first, _ = first_session(agent)
    named = "5b7a0f0e-1111-4222-8333-944445555666"
    agent.script(text("You said apple."))
    run = agent.run("What did I say?", "--resume", first, "--fork-session", "--session-id", named,
                    "--output-format", "json")
    assert run.exit_code == 0, run.stderr
    assert json.loads(run.stdout)["session_id"] == named and transcript(agent, named).is_file()


def test_resume_session_at_continues_from_that_message_and_the_turns_after_it_are_left_behind(agent):
    first, apple_answer = first_session(agent)
    assert apple_answer in [line["uuid"] for line in lines_of(transcript(agent, first))]  # the stream names the line
    agent.script(text("Noted: pear."))
    assert agent.run(PEAR, "--continue").exit_code == 0
    agent.script(text("apple"))
    run = agent.run("Which word did I ask you to remember?", "--resume", first, "--resume-session-at", apple_answer,
                    "--output-format", "json")
    assert (run.exit_code, json.loads(run.stdout)["session_id"]) == (0, first), run.stderr
    sent = said(run.payloads[0])
    assert "Noted: apple." in sent and "pear" not in sent
    agent.script(text("Only apple."))
    later = agent.run("Any other word?", "--continue")  # the branch the transcript's last line is on
    sent = said(later.payloads[0])
    assert "Which word did I ask you to remember?" in sent and "pear" not in sent


def test_resume_session_at_a_message_the_session_does_not_hold_is_an_error(agent, capsys):
    first, _ = first_session(agent)
    capsys.readouterr()
    # it fails before any request, so the run has no cassette of its own
    assert cli.main(["-p", "Go on.", "--resume", first, "--resume-session-at", "00000000-0000-4000-8000-000000000000"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "No message found with message.uuid of: 00000000" in err


def test_session_mirror_sends_each_transcript_line_as_it_is_written(agent):
    agent.script(text("mirrored"))
    run = agent.run("Say mirrored.", "--output-format", "stream-json", "--verbose", "--session-mirror")
    assert run.exit_code == 0, run.stderr
    lines = stream(run)
    assert lines[0]["subtype"] == "init" and lines[-1]["type"] == "result"
    mirrored = [line for line in lines if line["type"] == "transcript_mirror"]
    path = transcript(agent, lines[-1]["session_id"])
    assert {line["filePath"] for line in mirrored} == {str(path)}
    assert [entry for line in mirrored for entry in line["entries"]] == lines_of(path)


@pytest.mark.parametrize("flags, warning", [
    (["--plugin-dir", "plugins/mine"], "--plugin-dir is not supported"),
    (["--session-mirror"], "--session-mirror needs --output-format stream-json"),
    (["--fork-session"], "--fork-session has no effect without --resume or --continue"),
], ids=["plugin-dir", "session-mirror", "fork-session"])
def test_a_flag_this_agent_cannot_follow_is_one_warning_and_the_run_goes_on(agent, flags, warning):
    agent.script(text("done"))
    run = agent.run("Say done.", *flags)
    assert (run.exit_code, run.stdout) == (0, "done\n")
    assert len([line for line in run.stderr.splitlines() if warning in line]) == 1


def test_the_agent_sdk_forks_a_session_at_an_assistant_message_and_mirrors_it_to_a_session_store(agent):
    agent.script(text("Noted: apple."))
    first = sdk_query(agent, APPLE)
    assert first.error is None, first.stderr
    [answer] = [m for m in first.messages if isinstance(m, AssistantMessage)]
    agent.script(text("Noted: pear."))
    assert sdk_query(agent, PEAR, resume=first.result.session_id).error is None
    store = InMemorySessionStore()
    agent.script(text("You said apple."))
    forked = sdk_query(agent, "Which word?", resume=first.result.session_id, resume_session_at=answer.uuid,
                       fork_session=True, session_store=store)
    assert forked.error is None, forked.stderr
    sent = said(forked.payloads[0])
    assert "Noted: apple." in sent and "pear" not in sent
    session_id = forked.result.session_id
    assert session_id != first.result.session_id
    key = {"project_key": project_key_for_directory(str(agent.workspace)), "session_id": session_id}
    stored = asyncio.run(store.load(key))
    assert [entry["uuid"] for entry in stored] == [line["uuid"] for line in lines_of(transcript(agent, session_id))]

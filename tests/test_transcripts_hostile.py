"""Transcripts read back for --continue and --resume are untrusted files: a file in the project's
folder whose name is no session id (a stray `notes.jsonl`, newer than every session) is not a
session --continue picks; a Claude Code boundary naming a kept message twice keeps it once; a
transcript that is not a regular file, too big, or of lines of every wrong shape is one line and
exit 2, or read as far as it holds messages, never a traceback."""

import json
import os
import time
from pathlib import Path

import pytest

from agent import cli
from agent.transcripts import conversation_entries, latest_session, messages_of, project_folder
from scripted_model import text

SESSION = "7d3f8e2a-1b4c-4d5e-8f6a-0b1c2d3e4f5a"


def write_session(folder: Path, name: str, lines: list) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.jsonl"
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines))
    return path


def said(role: str, content: str, **fields) -> dict:
    return {"type": role, "message": {"role": role, "content": content}, **fields}


def test_continue_skips_a_newer_file_that_is_no_session(agent):
    folder = project_folder(agent.home, agent.workspace)
    write_session(folder, SESSION, [said("user", "Remember the word kumquat."), said("assistant", "Noted.")])
    stray = write_session(folder, "notes", [said("user", "Remember the word durian.")])
    later = time.time() + 5
    os.utime(stray, (later, later))
    agent.script(text("Kumquat."))
    run = agent.run("Which word?", "-c")
    assert (run.exit_code, run.stdout) == (0, "Kumquat.\n"), run.stderr
    assert run.some_request(["Remember the word kumquat.", "Noted.", "Which word?"])


def test_latest_session_names_only_session_ids(tmp_path):
    folder = project_folder(tmp_path, tmp_path / "w")
    write_session(folder, SESSION, [said("user", "hi")])
    for name in ("notes", "../evil", f"{SESSION}-copy"):
        write_session(folder, name.replace("/", "_"), [said("user", "x")])
    assert latest_session(tmp_path, tmp_path / "w") == SESSION


def test_a_boundary_naming_a_kept_message_twice_keeps_it_once(tmp_path):
    path = write_session(tmp_path, SESSION, [
        said("user", "Old question.", uuid="u1"), said("assistant", "Old answer.", uuid="a1", parentUuid="u1"),
        {"type": "system", "subtype": "compact_boundary",
         "compactMetadata": {"preservedMessages": {"anchorUuid": "s1", "uuids": ["a1", "a1", 5, {"x": 1}, "gone"]}}},
        said("user", "The summary.", uuid="s1"), said("user", "Go on.", uuid="u2", parentUuid="a1"),
    ])
    messages = messages_of(conversation_entries(path), path)
    assert json.dumps(messages).count("Old answer.") == 1 and "Old question." not in json.dumps(messages)


WRONG_SHAPES = ['1', '"x"', 'null', '[]', '{"message": 5}', '{"message": "hi"}', '{"message": {"role": 5}}',
                '{"message": {"role": "user", "content": [1, {"type": 5}]}}', '{"uuid": {"x": 1}, "message": {}}',
                '{"type": "system", "subtype": "compact_boundary", "compactMetadata": []}', '{"message": ' * 5000,
                '\xff\xfe not utf-8', '{"parentUuid": ["a"], "message": {"role": "user", "content": "hi"}}']


@pytest.mark.parametrize("shape", WRONG_SHAPES)
def test_a_line_of_any_wrong_shape_is_read_without_a_traceback(tmp_path, shape):
    path = write_session(tmp_path, SESSION, [said("user", "Question."), shape, said("assistant", "Answer.")])
    messages = messages_of(conversation_entries(path), path)  # a boundary, even a bare one, starts anew
    if "compact_boundary" in shape:
        assert messages == []
    else:
        assert messages[0]["content"] == "Question." and messages[-1] == {"role": "assistant", "content": "Answer."}


@pytest.mark.parametrize("make, problem", [
    (lambda path: os.mkfifo(path), "it is a FIFO"),
    (lambda path: path.write_bytes(b"x" * (64 * 1024 * 1024 + 1)), "it is over 64 MB"),
])
def test_a_session_file_that_cannot_be_read_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys, make, problem):
    monkeypatch.setenv("OPENROUTER_API_KEY", "dummy")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    folder = project_folder(tmp_path, tmp_path)
    folder.mkdir(parents=True)
    make(folder / f"{SESSION}.jsonl")
    assert cli.main(["-p", "hi", "--resume", SESSION]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ("no session" in err or problem in err), err


def test_a_transcript_cut_off_mid_line_loses_only_that_line_when_the_session_goes_on(agent):
    folder = project_folder(agent.home, agent.workspace)
    path = write_session(folder, SESSION, [said("user", "Remember the word kumquat."), said("assistant", "Noted.")])
    with open(path, "a") as handle:
        handle.write('{"type": "user", "message": {"role": "user", "content": "cut o')  # a crash mid-write
    agent.script(text("Kumquat."))
    first = agent.run("Which word?", "--resume", SESSION)
    assert (first.exit_code, first.stdout) == (0, "Kumquat.\n"), first.stderr
    agent.script(text("You asked which word."))
    again = agent.run("What did I ask last?", "--resume", SESSION)
    assert again.exit_code == 0, again.stderr
    assert again.some_request(["Remember the word kumquat.", "Noted.", "Which word?", "Kumquat.", "What did I ask last?"])

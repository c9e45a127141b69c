"""Writes land where the rules say, in whole runs on both wire formats: a symlink does not carry
a write out of the workspace, sensitive files always ask, and saving keeps what a path is (hard
links, FIFOs, devices), for the tools and for the files the command line writes."""

from __future__ import annotations

import io
import json
import os
import stat
import threading
from pathlib import Path

import pytest

from agent import cli
from scripted_model import call, text


def results(run) -> str:
    """The whole conversation the model was last sent (every tool result in it), as JSON text."""
    return json.dumps(run.payloads[-1]["messages"])


def denied(run) -> list[str]:
    return [denial["tool_name"] for denial in json.loads(run.stdout)["permission_denials"]]


def test_accept_edits_does_not_write_through_a_symlink_out_of_the_workspace(agent, tmp_path):
    agent.settings({})
    outside, elsewhere = tmp_path / "outside.txt", tmp_path / "elsewhere"
    outside.write_text("theirs\n")
    elsewhere.mkdir()
    os.symlink("../outside.txt", agent.workspace / "link")
    os.symlink(elsewhere, agent.workspace / "dirlink")
    agent.script(
        call("Write", file_path="link", content="pwned\n"),
        call("Edit", file_path="link", old_string="theirs", new_string="pwned"),
        call("Write", file_path="dirlink/x", content="pwned\n"),
        call("Write", file_path="mine.txt", content="ours\n"),
        text("Only mine.txt was written."),
    )
    run = agent.run("Write the files.", "--permission-mode", "acceptEdits", "--output-format", "json")
    assert outside.read_text() == "theirs\n" and list(elsewhere.iterdir()) == []
    assert (agent.workspace / "mine.txt").read_text() == "ours\n"
    assert denied(run) == ["Write", "Edit", "Write"]
    assert results(run).count("(its real path, through a symlink, is outside the workspace) needs approval") == 3


def test_an_allowed_commands_redirection_does_not_follow_a_symlink_out(agent, tmp_path):
    agent.settings({})
    outside = tmp_path / "outside.txt"
    outside.write_text("theirs\n")
    os.symlink("../outside.txt", agent.workspace / "link")
    agent.script(call("Bash", command="echo pwned > link"), call("Bash", command="echo ours > mine.txt"),
                 text("Only mine.txt was written."))
    run = agent.run("Write the files.", "--allowedTools", "Bash(echo:*)", "--output-format", "json")
    assert outside.read_text() == "theirs\n"
    assert (agent.workspace / "mine.txt").read_text() == "ours\n"
    assert denied(run) == ["Bash"]


SENSITIVE = [".git/config", ".claude/settings.local.json", ".claude/skills/x/SKILL.md"]


def test_accept_edits_refuses_sensitive_files_with_the_reason(agent):
    agent.settings({})
    agent.write(".git/config", "[core]\n")
    agent.script(
        *[call("Write", file_path=path, content="[core]\n\tfsmonitor = touch pwned\n") for path in SENSITIVE],
        call("Edit", file_path=".git/config", old_string="[core]", new_string="[core]\n\tfsmonitor = touch pwned"),
        text("All four were refused."),
    )
    run = agent.run("Configure the repository.", "--permission-mode", "acceptEdits", "--output-format", "json")
    assert (agent.workspace / ".git" / "config").read_text() == "[core]\n"
    assert not (agent.workspace / ".claude" / "settings.local.json").exists()
    assert not (agent.workspace / ".claude" / "skills").exists()
    assert denied(run) == ["Write", "Write", "Write", "Edit"]
    sent = results(run)
    for path in SENSITIVE:
        assert (f"Write of '{path}' is refused: it is a sensitive file" in sent
                and f"--allowedTools 'Edit(./{path})'" in sent and "--permission-mode bypassPermissions" in sent)


def test_a_broad_allow_rule_does_not_approve_a_sensitive_file(agent):
    agent.settings({})
    agent.script(call("Write", file_path=".git/hooks/pre-commit", content="#!/bin/sh\ntouch pwned\n"),
                 call("Write", file_path="src/app.py", content="print('ok')\n"), text("The hook was refused."))
    run = agent.run("Add a hook.", "--allowedTools", "Edit(**)", "--output-format", "json")
    assert not (agent.workspace / ".git").exists() and (agent.workspace / "src" / "app.py").exists()
    assert denied(run) == ["Write"]


def test_bypass_or_a_rule_naming_the_path_allows_a_sensitive_file(agent):
    agent.settings({})
    for flags in (["--permission-mode", "bypassPermissions"], ["--allowedTools", "Edit(./.git/config) Edit(.claude/**)"]):
        agent.script(*[call("Write", file_path=path, content=f"written with {flags[0]}\n") for path in SENSITIVE],
                     text("Written."))
        run = agent.run("Write the settings.", *flags, "--output-format", "json")
        assert denied(run) == []
        for path in SENSITIVE:
            assert (agent.workspace / path).read_text() == f"written with {flags[0]}\n"


def test_a_write_to_a_hard_linked_file_reaches_every_name(agent):
    first = agent.write("first.txt", "old\n")
    second = agent.workspace / "second.txt"
    os.link(first, second)
    agent.script(call("Write", file_path="first.txt", content="new\n"),
                 call("Edit", file_path="second.txt", old_string="new", new_string="newer"), text("Both changed."))
    assert agent.run("Update the file.").exit_code == 0
    assert first.read_text() == second.read_text() == "newer\n"
    assert os.stat(first).st_ino == os.stat(second).st_ino and os.stat(first).st_nlink == 2


def test_the_file_tools_refuse_a_fifo_and_a_device_without_waiting(agent):
    fifo = agent.workspace / "events.pipe"
    os.mkfifo(fifo)
    agent.script(
        call("Edit", file_path="events.pipe", old_string="a", new_string="b"),
        call("Write", file_path="events.pipe", content="x"),
        call("Read", file_path="events.pipe"),
        call("Write", file_path="/dev/null", content="x"),
        text("None of them is a file."),
    )
    done = threading.Event()
    threading.Thread(target=_release_after, args=(fifo, done, 10), daemon=True).start()  # fail, do not hang
    try:
        run = agent.run("Write to the pipe.")
    finally:
        done.set()
    assert run.exit_code == 0 and stat.S_ISFIFO(os.stat(fifo).st_mode) and stat.S_ISCHR(os.stat("/dev/null").st_mode)
    sent = results(run)
    assert sent.count("events.pipe is a FIFO (named pipe), not a regular file; Read, Write and Edit work only") == 3
    assert "/dev/null is a character device, not a regular file" in sent


def _release_after(fifo: Path, done: threading.Event, seconds: float) -> None:
    """After `seconds`, open the FIFO's other end again and again, so a blocked open() returns."""
    if done.wait(seconds):
        return
    while not done.is_set():
        for flags in (os.O_RDONLY | os.O_NONBLOCK, os.O_WRONLY | os.O_NONBLOCK):
            try:
                os.close(os.open(fifo, flags))
            except OSError:
                pass
        done.wait(0.05)


@pytest.fixture
def offline(tmp_path, monkeypatch):
    """A user's environment whose provider cannot be reached: a run that sent a request would fail
    with exit 1, so exit 2 shows it stopped before any."""
    for variable in list(os.environ):
        if variable.startswith(("OPENROUTER_", "ANTHROPIC_", "AGENT_", "CLAUDE_")):
            monkeypatch.delenv(variable)
    (tmp_path / "home").mkdir()
    (tmp_path / "work").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("OPENROUTER_API_KEY", "dummy")
    monkeypatch.setenv("OPENROUTER_BASE_URL", "http://127.0.0.1:9/api/v1/")
    monkeypatch.setenv("AGENT_MAX_RETRIES", "0")
    monkeypatch.chdir(tmp_path / "work")
    return tmp_path


def _one_line_exit_2(argv: list[str], capsys) -> str:
    code = cli.main(argv, stdin=io.BytesIO(b""))
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and len(err.splitlines()) == 1, (code, out, err)
    return err


def test_record_to_dev_null_is_refused_and_dev_null_stays_a_device(offline, capsys):
    err = _one_line_exit_2(["-p", "hi", "--record", "/dev/null"], capsys)
    assert err == "error: --record: /dev/null is a character device, not a regular file; give a file\n"
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_fifos_and_devices_are_refused_for_every_file_the_command_line_writes(offline, capsys):
    fifo = offline / "pipe"
    os.mkfifo(fifo)
    device = offline / "null"
    if os.geteuid() == 0:  # a private character device (as /dev/null), never the machine's own
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    for path, kind in ((fifo, "a FIFO (named pipe)"), *([(device, "a character device")] if device.exists() else [])):
        for flag in ("--record", "--trace"):
            err = _one_line_exit_2(["-p", "hi", flag, str(path)], capsys)
            assert f"{flag}: {path} is {kind}, not a regular file" in err
        err = _one_line_exit_2(["cassette", "check", str(offline / "work"), "--junit", str(path)], capsys)
        assert f"--junit: {path} is {kind}" in err
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and (not device.exists() or stat.S_ISCHR(os.stat(device).st_mode))


def test_a_fifo_where_the_transcript_goes_is_refused(offline, capsys):
    from agent.transcripts import project_folder

    session_id = "0b5e53a1-9d43-4c3e-8f3e-0c6a2b1f2e11"
    folder = project_folder(offline / "home", offline / "work")
    folder.mkdir(parents=True)
    os.mkfifo(folder / f"{session_id}.jsonl")
    err = _one_line_exit_2(["-p", "hi", "--session-id", session_id], capsys)
    assert "is a FIFO (named pipe), not a regular file; remove it or run with --no-session-persistence" in err
    err = _one_line_exit_2(["-p", "hi", "--resume", session_id], capsys)  # not read, so not waited on
    assert err == f"error: no session '{session_id}' to resume\n"


def test_save_file_keeps_what_a_path_is(tmp_path):
    """The one save every writer uses (Write, Edit, --record, --junit, the frontmatter cache)."""
    from agent.workspace import save_file

    single = tmp_path / "single.txt"
    single.write_text("old")
    single.chmod(0o640)
    before = os.stat(single).st_ino
    save_file(single, b"new")
    assert single.read_text() == "new" and os.stat(single).st_ino != before  # replaced in one step
    assert stat.S_IMODE(os.stat(single).st_mode) == 0o640
    linked, other = tmp_path / "linked.txt", tmp_path / "other.txt"
    linked.write_text("old old old")
    os.link(linked, other)
    save_file(other, b"new")
    assert linked.read_text() == "new" and os.stat(linked).st_ino == os.stat(other).st_ino
    os.symlink("single.txt", tmp_path / "alias")
    save_file(tmp_path / "alias", b"through")
    assert (tmp_path / "alias").is_symlink() and single.read_text() == "through"
    save_file(tmp_path / "a" / "b" / "new.txt", b"made")
    assert (tmp_path / "a" / "b" / "new.txt").read_text() == "made"
    os.mkfifo(tmp_path / "pipe")
    for special in (tmp_path / "pipe", Path("/dev/null")):
        with pytest.raises(OSError, match="not a regular file, and is never replaced"):
            save_file(special, b"x")
    assert stat.S_ISFIFO(os.stat(tmp_path / "pipe").st_mode) and stat.S_ISCHR(os.stat("/dev/null").st_mode)

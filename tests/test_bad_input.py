"""Bad input from the user, the files or the model: what each one sees instead of a crash."""

from __future__ import annotations

import logging
import os
import re
import threading
import time
from pathlib import Path

import pytest

from agent import cli
from agent.conversation import ToolCall
from agent.session import Session
from agent.skills.commands import CommandContext
from agent.skills.render import render
from agent.skills.discovery import discover_skills
from agent.tools import builtin_tools
from agent.tools.execute import by_name, execute
from agent.workspace import Workspace
from scripted_model import ScriptedModel, call, text

TEN_MB = 10_000_000
BASH_OUTPUT_LIMIT = 30_000  # characters of one stream the model is shown (agent.tools.shell.STREAM_LIMIT)


def run_tool(workspace: Path, name: str, **arguments) -> dict:
    tools = by_name(builtin_tools())
    return execute(ToolCall("call_1", name, arguments), tools, Session(workspace=Workspace(workspace)))


def one_line_error(err: str) -> str:
    assert "Traceback" not in err
    assert err.endswith("\n") and err.count("\n") == 1, f"not one line: {err!r}"
    assert err.startswith("error: ")
    return err


@pytest.fixture
def cli_env(tmp_path, monkeypatch):
    """An in-process CLI run with a dummy key, in an empty workspace and home (no model is reached)."""
    for variable in list(os.environ):
        if variable.startswith(("OPENROUTER_", "ANTHROPIC_", "AGENT_", "CLAUDE_")):
            monkeypatch.delenv(variable)
    monkeypatch.setenv("OPENROUTER_API_KEY", "dummy-openrouter-key")
    (tmp_path / "home").mkdir()
    (tmp_path / "workspace").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path / "workspace")
    return tmp_path / "workspace"


# --- files the tools meet ---------------------------------------------------------------------------

def test_invalid_utf8_is_read_with_replacement_characters(tmp_path):
    (tmp_path / "latin1.txt").write_bytes(b"caf\xe9 au lait\n\xff\xfe trailing \xc3\n")
    block = run_tool(tmp_path, "Read", file_path="latin1.txt")
    assert not block.get("is_error")
    assert block["content"] == "caf\ufffd au lait\n\ufffd\ufffd trailing \ufffd\n"


def test_grep_skips_a_named_pipe_instead_of_hanging(tmp_path):
    """A FIFO in the workspace (left by a dev server, say) has no writer: opening it blocks forever."""
    (tmp_path / "notes.txt").write_text("needle\n")
    os.mkfifo(tmp_path / "events.pipe")
    outcome: dict = {}
    worker = threading.Thread(target=lambda: outcome.update(block=run_tool(tmp_path, "Grep", pattern="needle")),
                              daemon=True)
    worker.start()
    worker.join(3)
    hung = worker.is_alive()
    deadline = time.monotonic() + 5
    while worker.is_alive() and time.monotonic() < deadline:  # release each blocked open() in turn
        try:
            os.close(os.open(tmp_path / "events.pipe", os.O_WRONLY | os.O_NONBLOCK))
        except OSError:  # no reader waiting at this moment
            pass
        worker.join(0.05)
    assert not hung, "Grep hung opening a named pipe"
    assert outcome["block"]["content"] == "notes.txt"


def test_binary_skill_file_is_skipped_with_a_warning_and_the_good_skill_works(tmp_path, caplog):
    project, home = tmp_path / "project", tmp_path / "home"
    skills = project / ".claude" / "skills"
    (skills / "good").mkdir(parents=True)
    (skills / "good" / "SKILL.md").write_text("---\ndescription: Say the word.\n---\n\nSay $ARGUMENTS loudly.\n")
    (skills / "garbage").mkdir()
    (skills / "garbage" / "SKILL.md").write_bytes(bytes(range(256)) * 8 + b"\xff\xfe\x00")
    (skills / "fenced-garbage").mkdir()  # fences, then binary where the YAML should be
    (skills / "fenced-garbage" / "SKILL.md").write_bytes(b"---\n\x00\x01\xff\xfe: \x80\x81\n---\nbody\n")
    home.mkdir()
    with caplog.at_level(logging.WARNING, logger="agent"):
        found = discover_skills(project, home)
    assert [skill.name for skill in found] == ["good"]
    warnings = [record.getMessage() for record in caplog.records if record.levelno == logging.WARNING]
    assert len(warnings) == 2
    assert any("garbage/SKILL.md" in w and "no frontmatter" in w for w in warnings)
    assert any("fenced-garbage/SKILL.md" in w and "invalid YAML" in w for w in warnings)
    assert render(found[0], "banana", CommandContext(project)).endswith("Say banana loudly.")


@pytest.mark.parametrize("recording", [False, True], ids=["plain", "recorded"])
@pytest.mark.parametrize("provider", ["openrouter", "anthropic"])
def test_a_file_name_that_is_not_utf8_does_not_crash_the_run(provider, recording, cli_env, monkeypatch, capsys):
    """Glob lists a file whose name is Latin-1 bytes (Python holds it as a lone surrogate). Runs against
    the scripted model over loopback, without a cassette: a crash must not hide behind a missing one."""
    fd = os.open(os.fsencode(cli_env) + b"/caf\xe9.txt", os.O_CREAT | os.O_WRONLY, 0o644)
    os.close(fd)
    model = ScriptedModel()
    seen: list[str] = []
    model.script(call("Glob", pattern="*.txt"),
                 lambda request: (seen.extend(request.tool_results()), text("Listed."))[1])
    if provider == "openrouter":
        monkeypatch.setenv("OPENROUTER_BASE_URL", model.base + "/api/v1/")
    else:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", model.base)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "dummy-anthropic-key")
    flags = ["--record", str(cli_env.parent / "run.yaml")] if recording else []
    try:
        code = cli.main(["-p", "List the .txt files.", "--provider", provider, *flags])
    finally:
        model.close()
    captured = capsys.readouterr()
    assert (code, captured.out) == (0, "Listed.\n"), captured.err
    [listing] = seen
    assert listing.startswith("caf") and listing.endswith(".txt")
    listing.encode("utf-8")  # what the provider receives must be valid UTF-8: no lone surrogates


# --- the command line -------------------------------------------------------------------------------

@pytest.mark.parametrize("prompt", ["", " ", "\t\n  \r\n"], ids=["empty", "space", "whitespace"])
def test_an_empty_prompt_is_a_one_line_usage_error(prompt, cli_env, capsys):
    assert cli.main(["-p", prompt]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert one_line_error(captured.err) == "error: the prompt is empty\n"


@pytest.mark.parametrize("value, reason", [
    ('{"reviewer": {', "invalid JSON"),
    ("{'reviewer': {}}", "invalid JSON"),
    ("[" * 100_000, "invalid JSON"),
    ('["reviewer"]', "must be a JSON object"),
    ('{"reviewer": {"description": "Reviews."}}', "has no prompt"),
    ("no-such-file.json", "neither a JSON object nor a readable file"),
], ids=["truncated", "single-quotes", "absurdly-deep", "a-list", "no-prompt", "missing-file"])
def test_bad_agents_json_is_a_one_line_usage_error(value, reason, cli_env, capsys):
    assert cli.main(["-p", "hi", "--agents", value]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    err = one_line_error(captured.err)
    assert "--agents" in err and reason in err


@pytest.mark.parametrize("value, reason", [("abc", "invalid int value"), ("1.5", "invalid int value"),
                                           ("", "invalid int value"), ("-3", "at least 1")])
def test_a_bad_max_turns_is_a_one_line_usage_error(value, reason, cli_env, capsys):
    assert cli.main(["-p", "hi", "--max-turns", value]) == 2
    captured = capsys.readouterr()
    err = one_line_error(captured.err)
    assert "max-turns" in err and reason in err


# --- whole runs (cassettes) ---------------------------------------------------------------------------

def test_ten_megabytes_of_bash_output_reach_the_model_as_a_bounded_excerpt(agent):
    agent.script(
        call("Bash", command="head -c 10000000 /dev/zero | tr '\\0' x"),
        lambda request: text("It printed a lot of x." if "characters dropped" in request.tool_results()[0]
                             else "The output was not truncated."),
    )
    run = agent.run("Print ten million x characters with Bash, then tell me what happened.")
    assert (run.exit_code, run.stdout) == (0, "It printed a lot of x.\n"), run.stderr
    first, second = run.bodies
    assert len(second.encode()) < 100_000, f"the second request is {len(second.encode())} bytes"
    result = tool_result_text(run.payloads[1])
    match = re.fullmatch(r"exit code: 0\n(x+)\n\[\.\.\. (\d+) characters dropped \.\.\.\]\n(x+)", result)
    assert match, f"no truncation marker in the tool result: {result[:80]!r}...{result[-80:]!r}"
    head, dropped, tail = len(match.group(1)), int(match.group(2)), len(match.group(3))
    assert head + tail == BASH_OUTPUT_LIMIT
    assert head + dropped + tail == TEN_MB, "the marker miscounts the dropped characters"


def test_reading_a_directory_tells_the_model_it_is_a_directory(agent):
    agent.write("src/app.py", "print('hi')\n")
    agent.script(call("Read", file_path="src"), lambda request: text(request.tool_results()[0]))
    run = agent.run("Read src and repeat what the tool said.")
    assert run.exit_code == 0, run.stderr
    assert "src is a directory, not a file" in run.stdout
    assert run.some_request(["is a directory", "Glob"])


def test_a_path_with_spaces_is_written_and_read_back(agent):
    agent.script(
        call("Write", file_path="my notes/todo list.txt", content="buy oat milk\ncall Ada\n"),
        call("Read", file_path="my notes/todo list.txt"),
        lambda request: text(request.tool_results()[0]),
    )
    run = agent.run("Put 'buy oat milk' and 'call Ada' in my notes/todo list.txt, then read it back.")
    assert (run.exit_code, run.stdout) == (0, "buy oat milk\ncall Ada\n"), run.stderr
    assert (agent.workspace / "my notes" / "todo list.txt").read_text() == "buy oat milk\ncall Ada\n"
    assert run.some_request(["Wrote 22 bytes to my notes/todo list.txt"])


def tool_result_text(payload: dict) -> str:
    """The text of the one tool result in a request payload, in either wire format."""
    last = payload["messages"][-1]
    if last["role"] == "tool":
        return last["content"]
    [block] = [b for b in last["content"] if b.get("type") == "tool_result"]
    return block["content"]


def one_megabyte_prompt() -> str:
    lines = [f"{n:06d} GET /api/items/{n % 977} 200 {n % 89}ms" for n in range(40_000)]
    prompt = "How many requests in this log took over 80ms?\n" + "\n".join(lines)
    return prompt[:1_000_000]


def test_a_one_megabyte_prompt_is_sent_whole(agent):
    prompt = one_megabyte_prompt()
    assert len(prompt) == 1_000_000
    agent.script(lambda request: text(f"Got {len(request.first_user_text())} characters."))
    run = agent.run(prompt)
    assert (run.exit_code, run.stdout) == (0, "Got 1000000 characters.\n"), run.stderr[-500:]
    [payload] = run.payloads
    [user] = [m for m in payload["messages"] if m["role"] == "user"]
    assert user["content"] == prompt

"""What a user sees at the command line: flags, output formats, errors and exit codes."""

import json
import os
import subprocess
from pathlib import Path

import pytest

from agent import cli
from scripted_model import ScriptedModel, call, fail, text

REPO = Path(__file__).resolve().parent.parent


def test_json_output_reports_the_run(agent):
    agent.write("hello.txt", "hi there")
    agent.script(call("Read", file_path="hello.txt"), text("It says hi there."))
    run = agent.run("What does hello.txt say?", "--output-format", "json")
    result = json.loads(run.stdout)
    assert result["type"] == "result"
    assert (result["subtype"], result["is_error"], result["result"], result["num_turns"]) == (
        "success", False, "It says hi there.", 2,
    )
    assert result["usage"]["input_tokens"] > 0 and result["usage"]["output_tokens"] > 0
    assert isinstance(result["duration_ms"], int)


def test_verbose_narrates_on_stderr_only(agent):
    agent.write("hello.txt", "hi")
    agent.script(call("Read", file_path="hello.txt"), text("hi"))
    run = agent.run("Read hello.txt", "--verbose")
    assert run.stdout == "hi\n"
    assert "request 1" in run.stderr and "tool Read" in run.stderr


def test_trace_appends_each_exchange(agent, tmp_path):
    agent.script(call("Bash", command="echo 1"), text("done"))
    trace = tmp_path / "trace.jsonl"
    run = agent.run("Echo 1.", "--trace", str(trace))
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    assert run.exit_code == 0 and len(lines) == 2
    assert lines[0]["request"]["messages"] and "response" in lines[0]
    assert "dummy" not in trace.read_text()


def test_provider_http_error_is_one_line_with_status_and_message(agent):
    agent.script(fail(400, "openai/gpt-5.2-pro is not supported. Allowed: anthropic/claude-haiku-4.5"))
    run = agent.run("Hi")
    assert run.exit_code == 1
    assert run.stderr.strip().count("\n") == 0
    assert "HTTP 400" in run.stderr and "is not supported" in run.stderr


def test_missing_key_names_the_variable(monkeypatch, capsys):
    for variable in ("OPENROUTER_API_KEY", "ANTHROPIC_API_KEY", "AGENT_PROVIDER"):
        monkeypatch.delenv(variable, raising=False)
    assert cli.main(["-p", "hi"]) == 2
    assert "OPENROUTER_API_KEY" in capsys.readouterr().err
    assert cli.main(["-p", "hi", "--provider", "anthropic"]) == 2
    assert "ANTHROPIC_API_KEY" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, message",
    [([], "-p"), (["-p", "  "], "empty"), (["-p", "x", "--max-turns", "0"], "max-turns"), (["-p", "x", "--bogus"], "bogus")],
)
def test_bad_input_is_a_one_line_error(argv, message, monkeypatch, capsys):
    monkeypatch.setenv("OPENROUTER_API_KEY", "dummy")
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_replay_of_a_missing_cassette_is_a_usage_error(tmp_path, capsys):
    assert cli.main(["-p", "hi", "--replay", str(tmp_path / "none.yaml")]) == 2
    assert "cassette not found" in capsys.readouterr().err


@pytest.mark.parametrize("provider", ["openrouter", "anthropic"])
def test_started_as_the_tester_starts_it(provider, tmp_path):
    """your_program.sh from another cwd, stdin closed, the tester's trailing-slash base URL, a dummy
    key; talks to the scripted model over loopback (vcrpy cannot see a subprocess)."""
    model = ScriptedModel()
    try:
        model.script(call("Read", file_path="note.txt"), lambda request: text(request.tool_results()[0]))
        (tmp_path / "workspace").mkdir(exist_ok=True)
        (tmp_path / "workspace" / "note.txt").write_text("kumquat")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENROUTER_", "ANTHROPIC_", "AGENT_"))}
        home = tmp_path / "home"  # the tester writes bypassPermissions into ~/.claude/settings.json
        (home / ".claude").mkdir(parents=True)
        (home / ".claude" / "settings.json").write_text('{\n    "permissions": {\n        "defaultMode": "bypassPermissions"\n    }\n}')
        workspace = tmp_path / "workspace"
        env["HOME"] = str(home)
        if provider == "openrouter":
            env.update(OPENROUTER_BASE_URL=model.base + "/api/v1/", OPENROUTER_API_KEY="dummy-openrouter-key")
        else:
            env.update(ANTHROPIC_BASE_URL=model.base + "/", ANTHROPIC_API_KEY="dummy-anthropic-key")
        done = subprocess.run(
            [str(REPO / "your_program.sh"), "-p", "What does note.txt say? Respond with only its contents."],
            cwd=workspace, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
        )
    finally:
        model.close()
    assert (done.returncode, done.stdout) == (0, "kumquat\n"), done.stderr
    assert [r.path for r in model.requests] == (
        ["/api/v1/chat/completions"] * 2 if provider == "openrouter" else ["/v1/messages"] * 2
    )


def test_a_trace_file_in_a_missing_folder_is_a_usage_error(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENROUTER_API_KEY", "dummy")
    assert cli.main(["-p", "hi", "--trace", str(tmp_path / "nowhere" / "t.jsonl")]) == 2
    assert "--trace" in capsys.readouterr().err


def _subprocess_env(model, home):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENROUTER_", "ANTHROPIC_", "AGENT_", "CLAUDE_"))}
    env.update(HOME=str(home), OPENROUTER_BASE_URL=model.base + "/api/v1/", OPENROUTER_API_KEY="dummy-openrouter-key")
    return env


def test_piped_input_reaches_the_model_through_your_program_sh(tmp_path):
    model = ScriptedModel()
    try:
        model.script(lambda request: text(request.messages[-1]["content"]))
        done = subprocess.run([str(REPO / "your_program.sh"), "-p", "Explain this:"], cwd=tmp_path,
                              env=_subprocess_env(model, tmp_path), input="ERROR disk full\n",
                              capture_output=True, text=True, timeout=60)
    finally:
        model.close()
    assert (done.returncode, done.stdout) == (0, "Explain this:\nERROR disk full\n"), done.stderr


def test_a_pipe_held_open_does_not_hang_your_program_sh(tmp_path):
    model = ScriptedModel()
    try:
        model.script(text("answered"))
        process = subprocess.Popen([str(REPO / "your_program.sh"), "Say something."], cwd=tmp_path,
                                   env=_subprocess_env(model, tmp_path), stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out = process.stdout.read()  # returns when the agent exits, while its stdin is still open
        err = process.stderr.read()
        process.wait(timeout=30)
        process.stdin.close()
    finally:
        model.close()
    assert (process.returncode, out) == (0, "answered\n"), err

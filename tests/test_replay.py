"""Record and replay of real sessions: the two replay modes, a cassette's setup instead of the
environment, bad cassettes and output files, and the trace.

A test here records its session with `agent.run` only while recording (`make record`); in
`make test` the cassette exists and the test replays it the way a user would, with
`agent.replay(...)`: `--replay CASSETTE` and no prompt.
"""

from __future__ import annotations

import json
import os
import shutil

import pytest
import yaml

from agent import cli
from conftest import CASSETTES
from scripted_model import Call, ScriptedModel, call, calls, fail, text

DEMO = CASSETTES / "demo"
CLOCK_PROMPT = "Note the time in stamp.txt and tell me what it says."


def test_replay_tools_reproduces_a_session_whose_output_changes_every_run(agent, tmp_path):
    """`date +%s%N` differs on every run: --replay-tools reproduces the session in an empty folder
    without running anything, and the regression mode, which runs the tools, reports the drift."""
    agent.script(
        calls(Call("Bash", {"command": "date +%s%N | tee stamp.txt"}), Call("Write", {"file_path": "note.txt", "content": "noted"})),
        lambda request: text(f"stamp.txt says {request.tool_results()[0].strip().splitlines()[-1]}"),
    )
    if agent.recording:
        assert agent.run(CLOCK_PROMPT).exit_code == 0
    recorded = yaml.safe_load(agent.cassette_path(1).read_text())
    stamp = recorded["tool_runs"][0]["output"].strip().splitlines()[-1]
    assert [run["tool"] for run in recorded["tool_runs"]] == ["Bash", "Write"]

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    home_before = sorted(agent.home.rglob("*"))
    replayed = agent.replay("--replay-tools", cwd=elsewhere)
    assert (replayed.exit_code, replayed.stdout) == (0, f"stamp.txt says {stamp}\n"), replayed.stderr
    assert list(elsewhere.iterdir()) == []  # nothing ran: no stamp.txt, no note.txt
    assert sorted(agent.home.rglob("*")) == home_before  # no transcript, no cache written either

    regression = agent.replay()  # in the workspace, running Bash for real
    assert regression.exit_code == 1 and regression.stdout == ""
    assert "request 2 differs from the cassette" in regression.stderr and stamp in regression.stderr


def test_a_tool_call_the_recording_did_not_run_is_drift(agent):
    """Recorded without permission to run the command, so the model got a refusal; with an allow
    rule added since, --replay-tools would have to run it, and the cassette holds no result."""
    agent.settings({})  # no bypass: Bash needs approval, and nobody is asked in -p mode
    agent.script(call("Bash", command="echo hello"), text("I was not allowed to run it."))
    if agent.recording:
        run = agent.run("Run echo hello.")
        assert run.exit_code == 0 and "needs approval" in json.dumps(run.payloads[1])
    assert agent.replay("--replay-tools").exit_code == 0  # the same settings: the same refusal

    agent.settings({"permissions": {"allow": ["Bash(echo:*)"]}})
    replayed = agent.replay("--replay-tools")
    assert replayed.exit_code == 1
    assert "a tool call the cassette" in replayed.stderr and 'main called Bash {"command": "echo hello"}' in replayed.stderr
    assert replayed.stderr.count("\n") == 1


HOSTILE = {
    "AGENT_MODEL": "openai/gpt-5.2-pro", "CLAUDE_CODE_SUBAGENT_MODEL": "opus", "AGENT_MAX_RETRIES": "0",
    "OPENROUTER_BASE_URL": "http://127.0.0.1:9/nowhere", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9/nowhere",
    "SLASH_COMMAND_TOOL_CHAR_BUDGET": "20", "CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH": "1",
}


def test_a_replay_ignores_a_hostile_environment_and_needs_no_key(agent, monkeypatch):
    agent.allow_any_model()
    monkeypatch.setenv("CLAUDE_CODE_SUBAGENT_MODEL", "sonnet")  # shapes the subagent's requests
    agent.skill("release-notes", "Use this skill to write release notes.", "List the changes.")
    agent.script(
        call("Agent", description="Look around", prompt="List the files.", subagent_type="Explore", run_in_background=False),
        text("There are no files."),  # the subagent, on sonnet
        text("The folder is empty."),
    )
    if agent.recording:
        assert agent.run("What is in this folder?").exit_code == 0
    setup = yaml.safe_load(agent.cassette_path(1).read_text())["setup"]
    assert setup["environment"] == {"CLAUDE_CODE_SUBAGENT_MODEL": "sonnet"}
    assert setup["provider"] == agent.provider and setup["recorded_against"] == "scripted model"

    for variable in ("OPENROUTER_API_KEY", "ANTHROPIC_API_KEY", "CLAUDE_CODE_SUBAGENT_MODEL"):
        monkeypatch.delenv(variable, raising=False)
    for variable, value in HOSTILE.items():
        monkeypatch.setenv(variable, value)
    monkeypatch.setenv("AGENT_PROVIDER", "anthropic" if agent.provider == "openrouter" else "openrouter")
    replayed = agent.replay("--replay-tools")
    assert (replayed.exit_code, replayed.stdout) == (0, "The folder is empty.\n"), replayed.stderr


def test_a_flag_that_differs_from_the_recording_is_an_error(agent):
    agent.script(text("Hello."))
    if agent.recording:
        assert agent.run("Say hello.").exit_code == 0
    other = "anthropic" if agent.provider == "openrouter" else "openrouter"
    for flags, words in [
        (["--provider", other], f"recorded with provider {agent.provider}, not {other}"),
        (["--model", "some/other-model"], "recorded with model"),
        (["-p", "Say goodbye."], "the prompt differs"),
        (["--max-turns", "7"], "--max-turns 7 differs"),
    ]:
        run = agent.replay(*flags)
        assert run.exit_code == 2 and words in run.stderr and run.stderr.count("\n") == 1, run.stderr
    same = agent.replay("-p", "Say hello.", "--provider", agent.provider)  # repeating the recording is fine
    assert (same.exit_code, same.stdout) == (0, "Hello.\n")


def test_a_replay_needs_no_file_an_option_named(agent):
    """--agents and --settings given as files are recorded as their contents."""
    agent.write("team.json", json.dumps({"tester": {"description": "Runs checks.", "prompt": "TESTER BODY"}}))
    agent.write("extra.json", json.dumps({"permissions": {"allow": ["Bash(echo:*)"]}}))
    agent.settings({})
    agent.script(call("Bash", command="echo from-settings"), text("done"))
    if agent.recording:
        run = agent.run("Go.", "--agents", "team.json", "--settings", "extra.json")
        assert run.exit_code == 0 and "from-settings" in run.bodies[1] and "TESTER BODY" not in run.bodies[0]
        assert "Runs checks." in run.bodies[0]
    for name in ("team.json", "extra.json"):
        (agent.workspace / name).unlink()
    replayed = agent.replay("--replay-tools")
    assert (replayed.exit_code, replayed.stdout) == (0, "done\n"), replayed.stderr
    setup = yaml.safe_load(agent.cassette_path(1).read_text())["setup"]["options"]
    assert json.loads(setup["--agents"])["tester"]["prompt"] == "TESTER BODY"


def test_a_recorded_option_of_the_wrong_kind_is_a_usage_error(agent, tmp_path, capsys):
    """A cassette is untrusted: an option it records must be a value that flag takes."""
    agent.script(text("Hello."))
    if agent.recording:
        assert agent.run("Say hello.").exit_code == 0
    recorded = yaml.safe_load(agent.cassette_path(1).read_text())
    for option, value in [("--max-turns", "lots"), ("--permission-mode", "everything"),
                          ("--include-partial-messages", "yes"), ("--allowedTools", "Bash")]:
        recorded["setup"].setdefault("options", {})[option] = value
        tampered = tmp_path / f"{option.strip('-')}.yaml"
        tampered.write_text(yaml.safe_dump(recorded))
        del recorded["setup"]["options"][option]
        capsys.readouterr()
        code = cli.main(["--replay", str(tampered)])
        err = capsys.readouterr().err
        assert code == 2 and "which is not a value it takes" in err and err.count("\n") == 1, err


def test_a_cassette_cannot_widen_the_permissions_of_a_replay_that_runs_tools(agent, tmp_path):
    """Someone else's cassette recorded with --dangerously-skip-permissions must not run its
    commands on the replaying user's machine without their say-so."""
    agent.settings({})  # the replaying user runs in default mode
    agent.script(call("Bash", command="touch made-by-the-recording"), text("done"))
    if agent.recording:
        assert agent.run("Make the file.", "--dangerously-skip-permissions").exit_code == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run = agent.replay(cwd=elsewhere)
    assert not (elsewhere / "made-by-the-recording").exists()
    assert "recorded with --dangerously-skip-permissions" in run.stderr and "your own permission options" in run.stderr
    assert run.exit_code == 1 and "differs from the cassette" in run.stderr  # the refusal is drift, not a run
    replayed = agent.replay("--replay-tools", cwd=elsewhere)  # nothing runs: the recorded options apply
    assert (replayed.exit_code, replayed.stdout) == (0, "done\n") and not (elsewhere / "made-by-the-recording").exists()
    given = agent.replay("--dangerously-skip-permissions", cwd=elsewhere)  # the user's own choice
    assert given.exit_code == 0 and (elsewhere / "made-by-the-recording").exists()


# --- bad input: one line naming the file, exit 2, before any request ----------------------------------

@pytest.fixture
def model_env(request, tmp_path, monkeypatch):
    """A scripted model speaking `request.param`'s wire, set up as the environment's provider;
    the test asserts that it never hears from the agent."""
    provider = request.param
    for variable in list(os.environ):
        if variable.startswith(("OPENROUTER_", "ANTHROPIC_", "AGENT_", "CLAUDE_")):
            monkeypatch.delenv(variable)
    model = ScriptedModel()
    model.script(text("should never be asked"))
    if provider == "openrouter":
        monkeypatch.setenv("OPENROUTER_BASE_URL", model.base + "/api/v1/")
        monkeypatch.setenv("OPENROUTER_API_KEY", "dummy-openrouter-key")
    else:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", model.base)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "dummy-anthropic-key")
    for folder in ("home", "workspace"):
        (tmp_path / folder).mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path / "workspace")
    yield model
    model.close()


def _bad_cassettes(tmp_path):
    (tmp_path / "broken.yaml").write_text("version: 1\ninteractions:\n- request: {method: POST\n")
    (tmp_path / "empty.yaml").write_text("version: 1\ninteractions: []\n")
    (tmp_path / "other.yaml").write_text("name: not a cassette\n")
    (tmp_path / "folder.yaml").mkdir()
    one = ("interactions:\n- request: {method: POST, uri: 'http://x/v1', headers: {}}\n"
           "  response: {status: {code: 200, message: OK}, headers: {}, body: {string: ''}}\n")
    (tmp_path / "bodyless.yaml").write_text("version: 1\ninteractions:\n- request: {uri: 'http://x'}\n"
                                            "  response: {status: {code: 200}, body: [1, 2]}\n")
    (tmp_path / "runs.yaml").write_text("version: 1\ntool_runs: [just text]\n" + one)
    (tmp_path / "prompts.yaml").write_text("version: 1\nsetup: {prompts: {a: 1}}\n" + one)
    (tmp_path / "model.yaml").write_text("version: 1\nsetup: {model: [a, b]}\n" + one)
    (tmp_path / "environment.yaml").write_text("version: 1\nsetup: {environment: {HOME: [x]}}\n" + one)
    return {"broken.yaml": "is not valid YAML", "empty.yaml": "has no interactions",
            "other.yaml": "has no interactions", "folder.yaml": "is a folder",
            "bodyless.yaml": "interaction 1 is not a request and its response",
            "runs.yaml": "each of `tool_runs` must be a mapping", "prompts.yaml": "`prompts` must be a list",
            "model.yaml": "`model` must be text", "environment.yaml": "`environment` values must be"}


@pytest.mark.parametrize("model_env", ["openrouter", "anthropic"], indirect=True)
def test_a_bad_cassette_is_one_line_before_any_request(model_env, tmp_path, capsys):
    for name, problem in _bad_cassettes(tmp_path).items():
        path = str(tmp_path / name)
        for flags in (["--replay", path], ["--replay", path, "--replay-tools"], ["cassette", "show", path]):
            code = cli.main(flags if flags[0] == "cassette" else ["-p", "hi", *flags])
            captured = capsys.readouterr()
            assert (code, captured.out) == (2, ""), (flags, captured.err)
            assert captured.err.startswith("error: ") and captured.err.count("\n") == 1, captured.err
            assert path in captured.err and problem in captured.err, captured.err
    assert model_env.requests == []


@pytest.mark.parametrize("model_env", ["openrouter", "anthropic"], indirect=True)
@pytest.mark.parametrize("flag", ["--record", "--trace"])
def test_an_output_file_that_cannot_be_written_is_one_line_before_any_request(model_env, flag, tmp_path, capsys):
    plain_file = tmp_path / "plain.txt"
    plain_file.write_text("a file, not a folder")
    places = {str(tmp_path): "is a folder", str(plain_file / "out.yaml"): "cannot write",
              "/proc/agent-cannot-write-here.yaml": "cannot write"}
    for place, problem in places.items():
        code = cli.main(["-p", "hi", flag, place])
        captured = capsys.readouterr()
        assert (code, captured.out) == (2, ""), captured.err
        assert captured.err.startswith(f"error: {flag}: {place}") or captured.err.startswith(f"error: {flag}: cannot write {place}")
        assert problem in captured.err and captured.err.count("\n") == 1, captured.err
    assert model_env.requests == []


def test_replay_tools_without_replay_is_a_usage_error(capsys):
    for argv in (["-p", "hi", "--replay-tools"], ["--replay-tools"]):  # the second would be interactive
        assert cli.main(argv) == 2
        assert "--replay-tools needs --replay" in capsys.readouterr().err


# --- the trace --------------------------------------------------------------------------------------

def test_a_failed_request_is_traced_with_its_status_and_error_body(agent, monkeypatch, tmp_path):
    monkeypatch.setenv("AGENT_MAX_RETRIES", "1")
    agent.script(fail(500, "the model server fell over"), fail(500, "the model server fell over"))
    trace = tmp_path / "trace.jsonl"
    run = agent.run("Hi", "--trace", str(trace))
    assert run.exit_code == 1 and "HTTP 500 after 1 retry" in run.stderr
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    assert [(line["request_number"], line["agent"], line["attempt"], line["status"]) for line in lines] == [
        (1, "main", 1, 500), (1, "main", 2, 500),
    ]
    assert all("HTTP 500" in line["error"] and "fell over" in json.dumps(line["response"]) for line in lines)
    assert lines[0]["request"]["messages"][-1]["content"] == "Hi"


def test_each_trace_line_names_its_request_and_agent(agent, tmp_path):
    agent.script(
        call("Agent", description="Look around", prompt="List the files.", subagent_type="Explore", run_in_background=False),
        call("Glob", pattern="*"),
        text("Nothing here."),
        text("The folder is empty."),
    )
    trace = tmp_path / "trace.jsonl"
    run = agent.run("What is in this folder?", "--trace", str(trace))
    assert run.exit_code == 0
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    assert [(line["request_number"], line["agent"], line["status"]) for line in lines] == [
        (1, "main", 200), (2, "Explore", 200), (3, "Explore", 200), (4, "main", 200),
    ]
    assert all("error" not in line and line["response"] for line in lines)


@pytest.mark.parametrize("provider", ["openrouter", "anthropic"])
def test_a_cassette_without_a_setup_replays_from_its_requests(provider, tmp_path, monkeypatch, capsys, model):
    """A plain vcrpy cassette, written by vcrpy itself around a run of the agent (JSON text bodies;
    no setup, agents or tool runs), as another tool writes one: provider, model and prompt are
    read from its first request."""
    import vcr

    shutil.copytree(DEMO / "workspace", tmp_path / "ws")
    (tmp_path / "home").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path / "ws")
    for variable in list(os.environ):
        if variable.startswith(("OPENROUTER_", "ANTHROPIC_", "AGENT_", "CLAUDE_")):
            monkeypatch.delenv(variable)
    model.script(call("Agent", description="Review stats.py", prompt="Review stats.py for bugs and report them.",
                      subagent_type="reviewer", run_in_background=False), call("Read", file_path="stats.py"), text("- stats.py:11: divides by n - 1"),
                 text("The reviewer found:\n- stats.py:11: divides by n - 1"))
    cassette = tmp_path / "plain.yaml"
    base = {"openrouter": ("OPENROUTER_BASE_URL", model.base + "/api/v1"), "anthropic": ("ANTHROPIC_BASE_URL", model.base)}
    with monkeypatch.context() as live:
        live.setenv(*base[provider])
        live.setenv({"openrouter": "OPENROUTER_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}[provider], "a-key")
        live.setenv("AGENT_PROVIDER", provider)
        with vcr.VCR(filter_headers=["authorization", "x-api-key"]).use_cassette(str(cassette)):
            assert cli.main(["-p", "Use the reviewer agent to review stats.py"]) == 0
    assert "interactions:" in cassette.read_text() and "setup" not in cassette.read_text()
    capsys.readouterr()

    assert cli.main(["--replay", str(cassette)]) == 0
    assert "stats.py:11" in capsys.readouterr().out
    assert cli.main(["--replay", str(cassette), "--replay-tools"]) == 2
    assert "holds no tool results" in capsys.readouterr().err
    assert cli.main(["cassette", "show", str(cassette)]) == 0
    assert "no setup recorded" in capsys.readouterr().out

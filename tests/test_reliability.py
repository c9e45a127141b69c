"""Nothing lost, nothing leaked: transcripts, secrets, runaway loops, tool limits, Ctrl-C."""

import json
import os
import re
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from conftest import CASSETTES, REPO
from scripted_model import Call, ScriptedModel, call, calls, text
from agent import cli
from agent.transcripts import project_slug

KEY_SHAPES = re.compile(r"sk-or-v1-[A-Za-z0-9]{8,}|sk-ant-[A-Za-z0-9_-]{8,}|Bearer [A-Za-z0-9_-]{20,}")
FAKE_KEYS = {"openrouter": "sk-or-v1-" + "f00dcafe" * 8, "anthropic": "sk-ant-api03-" + "f00dcafe" * 8}


def transcript_lines(home: Path, workspace: Path) -> dict[str, list[dict]]:
    folder = home / ".claude" / "projects" / project_slug(workspace)
    return {
        str(path.relative_to(folder)): [json.loads(line) for line in path.read_text().splitlines()]
        for path in sorted(folder.rglob("*.jsonl"))
    }


def test_no_cassette_holds_a_key_shaped_string():
    leaks = [str(p) for p in CASSETTES.rglob("*.yaml") if KEY_SHAPES.search(p.read_text())]
    assert leaks == []


def test_keys_never_reach_cassettes_traces_transcripts_or_errors(agent, monkeypatch, tmp_path):
    key = FAKE_KEYS[agent.provider]
    monkeypatch.setenv("OPENROUTER_API_KEY" if agent.provider == "openrouter" else "ANTHROPIC_API_KEY", key)
    agent.script(call("Bash", command="echo hi"), text("done"))
    trace = tmp_path / "trace.jsonl"
    run = agent.run("Say hi.", "--trace", str(trace))
    assert run.exit_code == 0
    written = [run.cassette.read_text(), trace.read_text(), run.stderr, run.stdout]
    written += [p.read_text() for p in (agent.home / ".claude").rglob("*.jsonl")]
    assert not any(key in text_ for text_ in written)
    assert not any(KEY_SHAPES.search(text_) for text_ in written)


def test_commands_never_see_the_provider_keys(agent, monkeypatch):
    key = FAKE_KEYS[agent.provider]
    name = "OPENROUTER_API_KEY" if agent.provider == "openrouter" else "ANTHROPIC_API_KEY"
    monkeypatch.setenv(name, key)
    agent.write("leak.txt", f"token={key}\n")  # as /proc/$PPID/environ or a dotfile could hold it
    agent.script(call("Bash", command="env | grep -c _API_KEY= ; echo listed; cat leak.txt"),
                 call("Read", file_path="leak.txt"),
                 lambda request: text(" | ".join(request.tool_results()[0].splitlines())))
    run = agent.run("Show the environment.")
    assert run.stdout.startswith("token=[")  # the Read result, redacted
    assert f"0\\nlisted\\ntoken=[{name} redacted]" in run.bodies[1]  # none in the command's environment
    assert key not in "\n".join(run.bodies)


def test_every_turn_is_appended_to_transcripts_main_and_subagent(agent):
    agent.script(
        call("Agent", description="look", prompt="List the files.", subagent_type="Explore", run_in_background=False),
        call("Glob", pattern="*"),
        text("nothing here"),
        text("The folder is empty."),
    )
    run = agent.run("What is in this folder?", "--output-format", "json")
    session_id = json.loads(run.stdout)["session_id"]
    files = transcript_lines(agent.home, agent.workspace)
    main = files.pop(f"{session_id}.jsonl")
    assert [e["type"] for e in main] == ["user", "assistant", "user", "assistant"]
    assert main[0]["message"]["content"] == "What is in this folder?"
    ((name, sub),) = files.items()
    assert re.fullmatch(rf"{session_id}/subagents/agent-a[0-9a-f]{{16}}\.jsonl", name)
    assert [e["type"] for e in sub] == ["user", "assistant", "user", "assistant"]
    assert sub[0]["message"]["content"] == "List the files." and sub[0]["isSidechain"] is True


def test_no_session_persistence_writes_no_transcript(agent):
    agent.script(text("ok"))
    run = agent.run("Hi.", "--no-session-persistence")
    assert run.exit_code == 0
    assert not (agent.home / ".claude" / "projects").exists()


def test_repeated_identical_calls_get_a_warning_and_max_turns_stops_them(agent):
    agent.script(*[call("Bash", command="echo same") for _ in range(4)])
    run = agent.run("Loop.", "--max-turns", "4")
    assert run.exit_code == 1 and "turn limit" in run.stderr
    results = [json.dumps(p["messages"][-1]) for p in run.payloads[1:]]
    assert ["call 3 in a row" in r for r in results] == [False, False, True]


def test_subagent_tool_limits_are_enforced_at_execution(agent):
    agent.agent_file("reader.md", "reader", "Reads.", "READER BODY", "tools: Read")
    agent.script(
        call("Agent", description="r", prompt="Delete everything.", subagent_type="reader", run_in_background=False),
        call("Bash", command="touch pwned"),
        lambda request: text(request.tool_results()[0]),
        lambda request: text(request.tool_results()[0].split("\n\n<usage>")[0]),
    )
    run = agent.run("Use the reader.")
    assert "unknown tool 'Bash'" in run.stdout and "available tools: Read" in run.stdout
    assert not (agent.workspace / "pwned").exists()


@dataclass
class Interrupted:
    code: int
    out: str
    err: str
    waited: float  # seconds from Ctrl-C to the exit


def interrupt(tmp_path: Path, argv: list[str], replies: list, after_requests: int,
              routes: dict | None = None) -> Interrupted:
    """Run the agent as a user would, against a scripted model, and press Ctrl-C once it has
    sent `after_requests` requests; `tmp_path / "home"` is its home."""
    model = ScriptedModel()
    (tmp_path / "home").mkdir(exist_ok=True)
    try:
        model.script(*replies)
        for key, reply in (routes or {}).items():
            model.route(key, reply)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENROUTER_", "ANTHROPIC_", "AGENT_"))}
        env.update(HOME=str(tmp_path / "home"), OPENROUTER_BASE_URL=model.base + "/api/v1", OPENROUTER_API_KEY="dummy")
        process = subprocess.Popen(
            [str(REPO / "your_program.sh"), *argv], cwd=tmp_path,
            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        deadline = time.monotonic() + 30
        while len(model.requests) < after_requests and time.monotonic() < deadline:
            time.sleep(0.05)
        pressed = time.monotonic()
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=50)
        return Interrupted(process.returncode, out, err, time.monotonic() - pressed)
    finally:
        model.close()


def test_ctrl_c_exits_130_with_a_note_and_leaves_a_transcript(tmp_path):
    run = interrupt(tmp_path, ["-p", "Start and wait."],
                    [call("Bash", command="echo started"), text("too late", delay_s=30)], after_requests=2)
    assert run.code == 130 and run.out == ""
    assert run.err.strip().splitlines()[-1] == "interrupted" and "Traceback" not in run.err
    (transcript,) = (tmp_path / "home" / ".claude" / "projects").rglob("*.jsonl")
    assert "started" in transcript.read_text()


def test_a_recording_cut_short_leaves_the_existing_cassette_as_it_was(tmp_path):
    cassette = tmp_path / "kept.yaml"
    cassette.write_text("the cassette a user already had\n")
    run = interrupt(tmp_path, ["-p", "Start and wait.", "--record", str(cassette)],
                    [call("Bash", command="echo started"), text("too late", delay_s=30)], after_requests=2)
    assert run.code == 130 and "is left as it was" in run.err
    assert cassette.read_text() == "the cassette a user already had\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["home", "kept.yaml"]  # no scratch file left


def test_recording_again_replaces_the_cassette_whole(tmp_path, monkeypatch):
    model = ScriptedModel()
    for name, value in os.environ.items():
        if name.startswith(("OPENROUTER_", "ANTHROPIC_", "AGENT_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("OPENROUTER_BASE_URL", model.base + "/api/v1")
    monkeypatch.setenv("OPENROUTER_API_KEY", "dummy")
    monkeypatch.chdir(tmp_path)
    cassette = tmp_path / "again.yaml"
    try:
        for answer in ("first", "second"):
            model.script(text(answer))
            monkeypatch.setenv("OPENROUTER_API_KEY", "dummy")  # each run takes the key out of the environment
            assert cli.main(["-p", "Say it.", "--record", str(cassette), "--no-session-persistence"]) == 0
    finally:
        model.close()
    assert "content: second" in cassette.read_text() and "content: first" not in cassette.read_text()
    assert sorted(path.name for path in tmp_path.iterdir()) == ["again.yaml"]  # no scratch file left


def test_ctrl_c_stops_parallel_subagents_without_waiting_for_them(tmp_path):
    both = calls(Call("Agent", {"description": "one", "prompt": "Slow one.", "subagent_type": "general-purpose", "run_in_background": False}),
                 Call("Agent", {"description": "two", "prompt": "Slow two.", "subagent_type": "general-purpose", "run_in_background": False}))
    slow = text("late", delay_s=60)
    run = interrupt(tmp_path, ["-p", "Ask both."], [both], after_requests=3,
                    routes={"Slow one.": slow, "Slow two.": slow})
    assert run.code == 130 and run.out == "" and "Traceback" not in run.err
    assert run.err.strip().splitlines()[-1] == "interrupted"
    assert run.waited < 20, f"exited {run.waited:.0f} s after Ctrl-C: it waited for the subagents"

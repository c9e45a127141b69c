"""Hook firings recorded and replayed: a recording keeps each firing beside the tool runs;
`--replay-tools` runs no hook and reproduces what each one did (a block, added context, a changed
input), in any folder; plain `--replay` runs them for real and a hook whose effect changed is
drift, in one line; the cassette tools show the firings in place. Both wire formats."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from agent import cli
from conftest import BASES, CASSETTES, KEYS
from scripted_model import ScriptedModel, call, text
from test_hooks import command_hook, hooks_settings, message_text

GUARD = '"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh'
LOGGER = 'cat >> "$CLAUDE_PROJECT_DIR"/hooks.log && echo >> "$CLAUDE_PROJECT_DIR"/hooks.log'
BLOCKING_GUARD = "#!/bin/bash\nif grep -q 'rm -f'; then echo 'no deleting here' >&2; exit 2; fi\n"


def cassette(capsys, *args: str) -> tuple[int, str, str]:
    """`your_program.sh cassette *args`, in-process: exit code, stdout, stderr."""
    capsys.readouterr()
    code = cli.main(["cassette", *args])
    out, err = capsys.readouterr()
    return code, out, err


def every_result(request):
    """A reply that repeats every tool result of the conversation, so stdout shows what the model saw."""
    found = []
    for message in request.messages:
        if message["role"] == "tool":
            found.append(message["content"])
        elif isinstance(message["content"], list):
            found += [block["content"] for block in message["content"] if block.get("type") == "tool_result"]
    return text("\n".join(item if isinstance(item, str) else str(item) for item in found))


def logged(agent) -> str:
    log = agent.workspace / "hooks.log"
    return log.read_text() if log.exists() else ""


def guarded_settings(agent, guard: bool = True, logger: bool = True) -> None:
    """A guard that blocks `rm -f` and a logger that appends every moment's input to hooks.log."""
    hooks: dict = {event: command_hook(LOGGER) for event in ("SessionStart", "UserPromptSubmit", "PostToolUse", "Stop")} if logger else {}
    pre = (command_hook(GUARD, "Bash") if guard else []) + (command_hook(LOGGER) if logger else [])
    hooks_settings(agent, {**hooks, **({"PreToolUse": pre} if pre else {})})


def recorded_guard(agent):
    """A session whose guard hook blocked a delete, and whose logger logged every moment."""
    agent.write(".claude/hooks/guard.sh", BLOCKING_GUARD, mode=0o755)
    agent.write("keep.txt", "precious")
    guarded_settings(agent)
    agent.script(call("Bash", command="rm -f keep.txt"), call("Read", file_path="keep.txt"), every_result)
    run = agent.run("Clean up, then read keep.txt.")
    assert run.exit_code == 0 and (agent.workspace / "keep.txt").exists()
    assert f"PreToolUse:Bash hook error: [{GUARD}]: no deleting here" in run.stdout
    return run


def elsewhere(tmp_path: Path, monkeypatch) -> Path:
    """An empty folder with an empty home: no settings, no hooks, no scripts at all."""
    folder, home = tmp_path / "elsewhere", tmp_path / "empty-home"
    folder.mkdir()
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return folder


def test_replay_tools_runs_no_hook_and_reproduces_the_block_here_and_in_an_empty_folder(agent, tmp_path, monkeypatch):
    recorded = recorded_guard(agent)
    log = logged(agent)
    assert log.count('"hook_event_name": "PreToolUse"') == 2 and '"hook_event_name": "Stop"' in log

    run = agent.replay("--replay-tools")
    assert (run.exit_code, run.stdout) == (0, recorded.stdout), run.stderr
    assert logged(agent) == log  # not one hook ran

    folder = elsewhere(tmp_path, monkeypatch)
    run = agent.replay("--replay-tools", cwd=folder)
    assert (run.exit_code, run.stdout) == (0, recorded.stdout), run.stderr
    assert list(folder.iterdir()) == []


def test_a_regression_replay_runs_the_hooks_and_a_changed_answer_is_drift_in_one_line(agent):
    recorded_guard(agent)
    before = logged(agent)
    run = agent.replay()
    assert (run.exit_code, run.stderr) == (0, ""), run.stderr
    assert len(logged(agent)) > len(before)  # the hooks ran again

    guard = agent.workspace / ".claude/hooks/guard.sh"
    for script, now in [("#!/bin/bash\nexit 0\n", "none"),  # it stops blocking
                        (BLOCKING_GUARD.replace("no deleting here", "ask first"), '"ask first\\n"')]:
        guard.write_text(script)
        run = agent.replay()
        assert run.exit_code == 1 and run.stderr.count("\n") == 1, run.stderr
        assert run.stderr.startswith(f"error: the PreToolUse:Bash hook [{GUARD}] differs from the cassette "), run.stderr
        assert f': its block: recorded "no deleting here\\n", now {now} (re-record' in run.stderr, run.stderr
        assert (agent.workspace / "keep.txt").exists()  # the drift stopped the call before it ran
    guard.write_text(BLOCKING_GUARD)

    guarded_settings(agent, guard=False)  # the guard removed: what it did is missing
    run = agent.replay()
    assert run.exit_code == 1 and run.stderr.count("\n") == 1, run.stderr
    assert f"the PreToolUse:Bash hook [{GUARD}] differs" in run.stderr and (agent.workspace / "keep.txt").exists()
    assert 'it did not run (it is not configured here now); its block was recorded as "no deleting here\\n"' in run.stderr

    hooks_settings(agent, {"PreToolUse": command_hook(GUARD, "Bash") + command_hook(LOGGER),
                           "PostToolUse": command_hook(LOGGER) + command_hook("true"),
                           "Notification": command_hook(LOGGER), "SessionEnd": command_hook(LOGGER)})
    run = agent.replay()  # a logger more, the others gone: no effect changed
    assert (run.exit_code, run.stderr) == (0, ""), run.stderr


def json_hook(event: str, **specific) -> str:
    """A command printing a JSON answer with `hookSpecificOutput` for `event`."""
    return "echo '" + json.dumps({"hookSpecificOutput": {"hookEventName": event, **specific}}) + "'"


CONTEXT_HOOKS = {
    "SessionStart": command_hook("echo branch main is green"),
    "UserPromptSubmit": command_hook(json_hook("UserPromptSubmit", additionalContext="remember the style guide")),
    "PreToolUse": command_hook(json_hook("PreToolUse", permissionDecision="allow", updatedInput={"command": "echo changed"}), "Bash")
    + command_hook(LOGGER),
    "PostToolUse": command_hook(json_hook("PostToolUse", additionalContext="the output was checked"), "Bash"),
}


def recorded_context(agent):
    """A session whose hooks added context at its start, to its prompt and to a tool result, and
    changed the input of its one Bash call."""
    hooks_settings(agent, CONTEXT_HOOKS)
    agent.script(call("Bash", command="echo original"), every_result)
    run = agent.run("Run the command.")
    assert run.exit_code == 0, run.stderr
    assert "changed" in run.stdout and "original" not in run.stdout
    assert "PostToolUse:Bash hook additional context: the output was checked" in run.stdout
    first = message_text(run.payloads[0]["messages"][-1])
    assert "SessionStart:startup hook success: branch main is green" in first
    assert "UserPromptSubmit hook additional context: remember the style guide" in first
    return run


def test_added_context_and_a_changed_input_are_reproduced_with_nothing_run(agent, tmp_path, monkeypatch):
    recorded = recorded_context(agent)
    runs = yaml.safe_load(agent.cassette_path(1).read_text())["tool_runs"]
    assert [run["input"] for run in runs if run.get("tool") == "Bash"] == [{"command": "echo changed"}]
    assert (agent.replay().exit_code, agent.replay().stderr) == (0, "")  # the hooks, run again, answer alike
    log = logged(agent)

    folder = elsewhere(tmp_path, monkeypatch)
    run = agent.replay("--replay-tools", cwd=folder)
    assert (run.exit_code, run.stdout) == (0, recorded.stdout), run.stderr
    assert list(folder.iterdir()) == [] and logged(agent) == log


def test_disable_all_hooks_here_still_replays_the_recorded_hooks_and_is_drift_when_they_run(agent):
    recorded = recorded_context(agent)
    agent.settings({"permissions": {"defaultMode": "bypassPermissions"}, "hooks": CONTEXT_HOOKS, "disableAllHooks": True})
    run = agent.replay("--replay-tools")  # nothing runs: what the hooks did comes from the cassette
    assert (run.exit_code, run.stdout) == (0, recorded.stdout), run.stderr
    run = agent.replay()
    assert run.exit_code == 1 and run.stderr.count("\n") == 1, run.stderr
    assert run.stderr.startswith("error: the SessionStart:startup hook [echo branch main is green] differs"), run.stderr


# --- the cassette tools -----------------------------------------------------------------------------

SUBAGENT_CONTEXT = json_hook("SubagentStart", additionalContext="work quietly")
READ_CHECKED = json_hook("PostToolUse", additionalContext="the output was checked")


def recorded_with_a_subagent(agent):
    """A session whose guard blocked a delete, then whose subagent read a file; hooks fired at
    every moment, the subagent's included."""
    agent.write(".claude/hooks/guard.sh", BLOCKING_GUARD, mode=0o755)
    agent.write("keep.txt", "precious")
    hooks_settings(agent, {"SessionStart": command_hook("echo branch main is green"),
                           "UserPromptSubmit": command_hook(LOGGER), "PreToolUse": command_hook(GUARD, "Bash"),
                           "PostToolUse": command_hook(READ_CHECKED, "Read"),
                           "SubagentStart": command_hook(SUBAGENT_CONTEXT), "SubagentStop": command_hook(LOGGER),
                           "Stop": command_hook(LOGGER)})
    agent.script(call("Bash", command="rm -f keep.txt"),
                 call("Agent", description="Read it", prompt="Read keep.txt and report.", subagent_type="general-purpose"),
                 text("Done."))
    agent.route("Read keep.txt and report.", call("Read", file_path="keep.txt"), text("keep.txt says precious."))
    run = agent.run("Clean up, then have keep.txt read.")
    assert (run.exit_code, run.stdout) == (0, "Done.\n"), run.stderr
    return run


def in_order(text: str, pieces: list[str]) -> None:
    at = 0
    for piece in pieces:
        found = text.find(piece, at)
        assert found >= 0, f"{piece!r} not after position {at} in:\n{text}"
        at = found + len(piece)


def test_cassette_show_lists_each_hook_firing_in_place(agent, capsys):
    recorded_with_a_subagent(agent)
    path = str(agent.cassette_path(1))
    code, out, err = cassette(capsys, "show", path)
    assert (code, err) == (0, "")
    logger = f"[{LOGGER}] exit 0 · no effect"
    in_order(out, [
        "\n\nhook SessionStart:startup · main · [echo branch main is green] exit 0 · added context\n"
        f"hook UserPromptSubmit · main · {logger}\nrequest 1 · main · ",
        '  → Bash(command="rm -f keep.txt")\n'
        f"    hook PreToolUse:Bash · main · [{GUARD}] exit 2 · blocked: no deleting here\n    ← error: ",
        "\n\nrequest 2 · main · ", "  → Agent(",
        "\n\nhook SubagentStart:general-purpose · general-purpose · [echo '{\"hookSpecificOutput\": ",
        "] exit 0 · added context\nrequest 3 · subagent general-purpose · ",
        '  → Read(file_path="keep.txt")\n    ← precious',
        "    hook PostToolUse:Read · general-purpose · [echo '{\"hookSpecificOutput\": ", "] exit 0 · added context",
        "\n\nrequest 4 · subagent general-purpose · ", "  keep.txt says precious.\n"
        f"hook SubagentStop:general-purpose · general-purpose · {logger}",
        "\n\nrequest 5 · main · ", f"  Done.\nhook Stop · main · {logger}\n\nanswer    Done.",
    ])

    code, out, _ = cassette(capsys, "show", path, "--json")
    session = json.loads(out)
    first, subagent = session["requests"][0], session["requests"][2]
    assert [shown["moment"] for shown in first["hooks_before"]] == ["SessionStart:startup", "UserPromptSubmit"]
    (blocked,) = first["tool_calls"][0]["hooks"]
    assert blocked["runs"] == [{"command": GUARD, "exit_code": 2, "stderr": "no deleting here\n",
                                "decided": "blocked: no deleting here"}]
    assert blocked["input"]["tool_input"] == {"command": "rm -f keep.txt"} and blocked["agent"] == "main"
    assert [shown["event"] for shown in subagent["hooks_before"]] == ["SubagentStart"]
    assert session["requests"][-1]["hooks_after"][0]["event"] == "Stop" and "hooks_at_end" not in session

    report = agent.workspace.parent / "report.html"
    assert cassette(capsys, "show", path, "--html", str(report))[0] == 0
    page = report.read_text()
    in_order(page, ['data-event="SessionStart"', 'id="request-1"', 'data-event="PreToolUse"',
                    "exit 2 · blocked: no deleting here", 'data-event="SubagentStart"', 'id="request-3"',
                    'data-event="PostToolUse"', 'id="request-4"', 'data-event="SubagentStop"', 'id="request-5"',
                    'data-event="Stop"', 'id="answer"'])
    assert "$CLAUDE_PROJECT_DIR" in page and "<script>" not in page.split("<body>")[1].split("<script>")[0]


def test_check_is_ok_on_a_hooks_cassette_and_an_update_keeps_every_firing(agent, tmp_path, capsys):
    recorded_context(agent)
    copy = tmp_path / "ci" / "hooks.yaml"
    copy.parent.mkdir()
    shutil.copy(agent.cassette_path(1), copy)
    before = yaml.safe_load(copy.read_text())
    assert cassette(capsys, "check", str(copy))[:2] == (0, f"ok    {copy}\n")

    agent.write("CLAUDE.md", "Answer in one line.\n")  # what every request is sent changes
    code, out, _ = cassette(capsys, "check", str(copy))
    assert code == 1 and out.startswith(f"drift {copy}: ")
    code, out, err = cassette(capsys, "check", "--update", str(copy))
    assert code == 0 and out.startswith(f"updated {copy}: 2 requests changed"), (out, err)
    after = yaml.safe_load(copy.read_text())
    assert after["tool_runs"] == before["tool_runs"] and after["setup"] == before["setup"]
    assert cassette(capsys, "check", str(copy))[:2] == (0, f"ok    {copy}\n")


SCENARIOS = {  # how each session is recorded, and the scripted model's part in it
    "guard": (recorded_guard, lambda model: model.script(
        call("Bash", command="rm -f keep.txt"), call("Read", file_path="keep.txt"), every_result)),
    "context": (recorded_context, lambda model: model.script(call("Bash", command="echo original"), every_result)),
    "subagent": (recorded_with_a_subagent, lambda model: (
        model.script(call("Bash", command="rm -f keep.txt"), call(
            "Agent", description="Read it", prompt="Read keep.txt and report.", subagent_type="general-purpose"),
            text("Done.")),
        model.route("Read keep.txt and report.", call("Read", file_path="keep.txt"), text("keep.txt says precious.")))),
}


def record_again(agent, monkeypatch, capsys, path: Path, replies) -> tuple[int, str, str]:
    """`cassette record PATH` against a new scripted model (its ids count from 1 again)."""
    served = ScriptedModel()
    try:
        replies(served)
        monkeypatch.setenv(BASES[agent.provider], served.base + ("/api/v1/" if agent.provider == "openrouter" else ""))
        monkeypatch.setenv(KEYS[agent.provider], "dummy-key")  # each run takes the key out of the environment
        return cassette(capsys, "record", str(path))
    finally:
        served.close()


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_a_re_recording_of_a_hooks_cassette_is_byte_for_byte_the_same(agent, tmp_path, capsys, monkeypatch, scenario):
    """What a hook reads that changes every run (session id, transcript paths, durations, agent
    ids) stays out of the cassette: recorded again, it is the same file."""
    record, replies = SCENARIOS[scenario]
    record(agent)
    copy = tmp_path / "hooks.yaml"
    shutil.copy(agent.cassette_path(1), copy)
    assert not any(name.encode() in copy.read_bytes() for name in ("session_id", "transcript_path", "duration_ms", "agent_id"))
    # the scripted model counts tokens in what it receives, folders included: recorded in another
    # folder than the committed cassette, its token counts (and a subagent's, in its report) may differ
    assert record_again(agent, monkeypatch, capsys, copy, replies)[0] == 0
    before = copy.read_bytes()
    code, out, err = record_again(agent, monkeypatch, capsys, copy, replies)
    assert (code, out) == (0, f"recorded {copy}: unchanged\n"), err
    assert copy.read_bytes() == before


# --- a hostile cassette -----------------------------------------------------------------------------

def _firing(change):
    def tamper(data):
        firing = next(entry for entry in data["tool_runs"] if "hook" in entry)
        change(firing)
    return tamper


MALFORMED_FIRINGS = {
    "runs as text": (_firing(lambda f: f.update(runs="rm -rf /")), "(a hook firing): `runs` must be a list of mappings"),
    "a run as a list": (_firing(lambda f: f.update(runs=[["a"]])), "(a hook firing): `runs` must be a list of mappings"),
    "exit code as text": (_firing(lambda f: f["runs"][0].update(exit_code="2")), "each run's `exit_code` must be a number"),
    "exit code true": (_firing(lambda f: f["runs"][0].update(exit_code=True)), "each run's `exit_code` must be a number"),
    "a command as a number": (_firing(lambda f: f["runs"][0].update(command=7)), "each run's `command` must be text"),
    "stderr as a mapping": (_firing(lambda f: f["runs"][0].update(stderr={"a": 1})), "`stdout` and `stderr` must be text"),
    "the event as a number": (_firing(lambda f: f.update(hook=5)), "`hook` must be the event's name"),
    "input as a list": (_firing(lambda f: f.update(input=[1])), "`input` must be a mapping of JSON data"),
    "a firing that is a tool run too": (_firing(lambda f: f.update(tool="Bash", output={"a": 1})),
                                        "is both a hook firing (`hook`) and a tool run (`tool`)"),
    "input nested past the limit": (_firing(lambda f: f.update(input="NESTED")), "nests deeper than"),
}


@pytest.mark.parametrize("case", list(MALFORMED_FIRINGS))
def test_a_malformed_hook_firing_is_one_line_and_exit_2(agent, tmp_path, capsys, case):
    """Tampered copies of the guard session's cassette: each is refused before anything runs."""
    change, problem = MALFORMED_FIRINGS[case]
    seed = CASSETTES / "hook_replay" / f"test_replay_tools_runs_no_hook_and_reproduces_the_block_here_and_in_an_empty_folder-{agent.provider}.yaml"
    data = yaml.safe_load(seed.read_text())
    change(data)
    tampered = tmp_path / "tampered.yaml"
    written = yaml.safe_dump(data, sort_keys=False)
    tampered.write_text(written.replace("input: NESTED", "input: " + "{a: " * 5000 + "}" * 5000, 1))
    for argv in (["--replay", str(tampered)], ["--replay", str(tampered), "--replay-tools"],
                 ["cassette", "show", str(tampered)], ["cassette", "show", str(tampered), "--json"]):
        capsys.readouterr()
        code = cli.main(argv)
        out, err = capsys.readouterr()
        assert (code, out) == (2, "") and err.count("\n") == 1, (argv, err)
        assert problem in err and str(tampered) in err, (argv, err)
    code, out, _ = cassette(capsys, "check", str(tampered))
    assert code == 1 and out.startswith(f"error {tampered}: ") and problem in out, out

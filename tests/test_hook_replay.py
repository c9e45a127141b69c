"""Hook firings recorded and replayed: a recording keeps each firing beside the tool runs;
`--replay-tools` runs no hook and reproduces what each one did (a block, added context, a changed
input), in any folder; plain `--replay` runs them for real and a hook whose effect changed is
drift, in one line (test_hook_cassettes has the cassette tools). Both wire formats."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from scripted_model import call, text
from test_cassette_reading import cassette
from test_hooks import command_hook, hooks_settings, message_text

GUARD = '"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh'
LOGGER = 'cat >> "$CLAUDE_PROJECT_DIR"/hooks.log && echo >> "$CLAUDE_PROJECT_DIR"/hooks.log'
BLOCKING_GUARD = "#!/bin/bash\nif grep -q 'rm -f'; then echo 'no deleting here' >&2; exit 2; fi\n"


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


def in_order(text: str, pieces: list[str]) -> None:
    at = 0
    for piece in pieces:
        found = text.find(piece, at)
        assert found >= 0, f"{piece!r} not after position {at} in:\n{text}"
        at = found + len(piece)


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
    assert 'it did not run (it is not among the hooks that run here now); its block was recorded as "no deleting here\\n"' in run.stderr

    hooks_settings(agent, {"PreToolUse": command_hook(LOGGER) + command_hook(GUARD, "Bash"),
                           "PostToolUse": command_hook(LOGGER) + command_hook("true"),
                           "Notification": command_hook(LOGGER), "SessionEnd": command_hook(LOGGER)})
    run = agent.replay()  # in another order, a hook more, some gone: no hook does anything else
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
    assert 'it did not run (hooks are off here: disableAllHooks); its output given as context was recorded as "branch' in run.stderr


STOP_GATE = "grep -q '\"stop_hook_active\": true' || { echo 'run the tests first' >&2; exit 2; }"


def test_a_stop_hook_that_made_the_model_go_on_does_so_again_with_nothing_run(agent, tmp_path, monkeypatch, capsys):
    hooks_settings(agent, {"Stop": command_hook(STOP_GATE)})
    agent.script(text("Done."), text("Tests ran."))
    run = agent.run("Finish up.")
    assert (run.exit_code, run.stdout) == (0, "Tests ran.\n"), run.stderr
    assert "run the tests first" in json.dumps(run.payloads[1]["messages"][-1])

    folder = elsewhere(tmp_path, monkeypatch)
    replayed = agent.replay("--replay-tools", cwd=folder)
    assert (replayed.exit_code, replayed.stdout) == (0, "Tests ran.\n"), replayed.stderr
    code, out, _ = cassette(capsys, "show", str(run.cassette))
    blocked, passed = (f"  {said}\nhook Stop · main · [{STOP_GATE}] {how}\n" for said, how in [
        ("Done.", "exit 2 · blocked: run the tests first"), ("Tests ran.", "exit 0 · no effect")])
    in_order(out, [blocked, "request 2 · main", passed])

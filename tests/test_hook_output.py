"""What a person and a program see of hooks: --verbose narrates each run on stderr, a timeout is a
warning either way, stream-json has Claude Code's hook lines in Claude Code's places (observed on
2.1.332), and the JSON result counts the runs and says when a hook ended the run."""

from __future__ import annotations

import json
import re

from scripted_model import call, text
from test_hooks import command_hook, hooks_settings

STREAM = ("--output-format", "stream-json", "--verbose")
HOOK_LINE_KEYS = {"type", "subtype", "hook_id", "hook_name", "hook_event", "uuid", "session_id"}
RESPONSE_KEYS = HOOK_LINE_KEYS | {"output", "stdout", "stderr", "exit_code", "outcome"}
# The fields the Agent SDK's message parser (claude_agent_sdk, message_parser.parse_message) needs
# in each frame; a frame without one ends the SDK's query (../shared/reference/agent-sdk-protocol.md §1.5).
SDK_REQUIRED = {"system": ("subtype",), "assistant": ("message",), "user": ("message",),
                "result": ("subtype", "duration_ms", "duration_api_ms", "is_error", "num_turns", "session_id"),
                "stream_event": ("uuid", "session_id", "event")}


def sdk_problems(line: dict) -> list[str]:
    """Why the Agent SDK's parser would refuse `line` (empty when it takes it)."""
    if line.get("type") == "system" and line.get("subtype") in ("hook_started", "hook_response"):
        return []  # a HookEventMessage: nothing is required
    missing = [key for key in SDK_REQUIRED.get(line.get("type"), ()) if key not in line]
    if line.get("type") == "assistant" and not ({"content", "model"} <= set(line.get("message", {}))):
        missing.append("message.content/model")
    return [f"{line.get('type')} line lacks {key}" for key in missing]


def stream_lines(run) -> list[dict]:
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    assert [problem for line in lines for problem in sdk_problems(line)] == []
    return lines


def kinds(lines: list[dict]) -> list[str]:
    """Each line as `type`, `subtype` or `subtype event` (hook lines), to compare orders."""
    found = []
    for line in lines:
        name = line.get("subtype") or line["type"]
        found.append(f"{name} {line['hook_name']}" if name.startswith("hook_") else name)
    return found


def test_verbose_narrates_each_hook_run_on_stderr_and_nothing_of_it_on_stdout(agent):
    guard = "echo 'no deleting here' >&2; exit 2"
    hooks_settings(agent, {"SessionStart": command_hook("echo branch main"),
                           "PreToolUse": command_hook(guard, "Bash"),
                           "PostToolUse": command_hook("exit 3", "Read")})
    agent.write("note.txt", "kumquat")
    agent.script(call("Bash", command="rm note.txt"), call("Read", file_path="note.txt"), text("Kept it."))
    run = agent.run("Tidy up.", "--verbose")
    assert (run.exit_code, run.stdout) == (0, "Kept it.\n")
    narrated = [line for line in run.stderr.splitlines() if "] hook " in line]
    assert len(narrated) == 3
    assert re.search(r"hook SessionStart:startup \[echo branch main\]: exit 0 in \d+ ms: added context$", narrated[0])
    assert re.search(rf"hook PreToolUse:Bash \[{re.escape(guard)}\]: exit 2 in \d+ ms: blocked: "
                     rf"\[{re.escape(guard)}\]: no deleting here$", narrated[1])
    assert re.search(r"hook PostToolUse:Read \[exit 3\]: exit 3 in \d+ ms: non-blocking error: exit code 3$", narrated[2])
    quiet = agent.replay()
    assert (quiet.exit_code, quiet.stdout) == (0, "Kept it.\n") and " hook " not in quiet.stderr
    answered = agent.replay("--replay-tools", "--verbose")  # nothing runs: the narration says so
    assert re.search(r"hook PreToolUse:Bash \[.*\]: exit 2 from the cassette \(not run\): blocked", answered.stderr)


def test_a_timed_out_hook_is_a_warning_without_verbose_and_a_cancelled_run_in_stream_json(agent):
    hooks_settings(agent, {"PreToolUse": command_hook("echo started; sleep 10", "Bash", timeout=1)})
    agent.script(call("Bash", command="echo ran"), text("Ran it."))
    agent.script(call("Bash", command="echo ran"), text("Ran it."))
    run = agent.run("Run it.")
    assert (run.exit_code, run.stdout) == (0, "Ran it.\n")  # a timeout does not block the call
    assert "hook PreToolUse:Bash [echo started; sleep 10] timed out after 1 s" in run.stderr
    answered = agent.replay("--replay-tools")
    assert answered.exit_code == 0 and "[echo started; sleep 10] timed out when it was recorded" in answered.stderr
    lines = stream_lines(agent.run("Run it.", *STREAM, "--include-hook-events"))
    response = next(line for line in lines if line.get("subtype") == "hook_response")
    assert (response["exit_code"], response["outcome"], response["stdout"]) == (1, "cancelled", "started\n")
    warning = next(line for line in lines if line.get("subtype") == "informational")
    assert warning["content"] == "A hook didn't answer in time, so it didn't check this action."
    assert warning["level"] == "warning" and warning["tag"] == "hook_no_verdict"
    call_id = lines[kinds(lines).index("assistant")]["message"]["content"][-1]["id"]
    assert warning["hook_no_verdict"] == {"hook_event": "PreToolUse", "tool_use_id": call_id, "timed_out": True}


def every_moment(agent) -> None:
    hooks_settings(agent, {"SessionStart": command_hook("echo SS-OUT"),
                           "UserPromptSubmit": command_hook("echo UPS-OUT"),
                           "PreToolUse": command_hook("echo PRE-OUT; echo PRE-ERR >&2", "Bash"),
                           "PostToolUse": command_hook("echo POST-ERR >&2; exit 1", "Bash"),
                           "Stop": command_hook("true"),
                           "SessionEnd": command_hook("echo gone > ended.txt")})


def test_stream_json_shows_session_start_hooks_before_init_and_the_others_only_when_asked(agent):
    every_moment(agent)
    agent.script(call("Bash", command="echo hi"), text("Said hi."))
    lines = stream_lines(agent.run("Say hi.", *STREAM))
    assert kinds(lines) == ["hook_started SessionStart:startup", "hook_response SessionStart:startup", "init",
                            "assistant", "user", "assistant", "success"]
    started, response = lines[0], lines[1]
    assert set(started) == HOOK_LINE_KEYS and set(response) == RESPONSE_KEYS
    assert started["hook_id"] == response["hook_id"] and started["uuid"] != response["uuid"]
    assert response["hook_event"] == "SessionStart" and response["session_id"] == lines[-1]["session_id"]
    assert (response["output"], response["stdout"], response["stderr"]) == ("SS-OUT\n", "SS-OUT\n", "")
    assert (response["exit_code"], response["outcome"]) == (0, "success")
    assert (agent.workspace / "ended.txt").exists()  # SessionEnd ran, and printed nothing after the result


def test_include_hook_events_puts_each_hook_where_claude_code_does(agent):
    every_moment(agent)
    agent.script(call("Bash", command="echo hi"), text("Said hi."))
    lines = stream_lines(agent.run("Say hi.", *STREAM, "--include-hook-events"))
    assert kinds(lines) == [
        "hook_started SessionStart:startup", "hook_response SessionStart:startup",
        "hook_started UserPromptSubmit", "hook_response UserPromptSubmit", "init",
        "assistant", "hook_started PreToolUse:Bash", "hook_response PreToolUse:Bash",
        "hook_started PostToolUse:Bash", "hook_response PostToolUse:Bash", "user",
        "assistant", "hook_started Stop", "hook_response Stop", "success"]
    pre, post = lines[7], lines[9]
    assert (pre["output"], pre["stdout"], pre["stderr"], pre["outcome"]) == ("PRE-OUT\nPRE-ERR\n", "PRE-OUT\n", "PRE-ERR\n", "success")
    assert (post["output"], post["exit_code"], post["outcome"]) == ("POST-ERR\n", 1, "error")
    assert all(set(line) == RESPONSE_KEYS for line in lines if line.get("subtype") == "hook_response")
    assert lines[-1]["hooks"] == {"runs": 6, "blocked": 0, "errors": 1}


def system_message(message: str, **extra) -> str:
    return f"echo '{json.dumps({'systemMessage': message, **extra})}'"


def test_a_hooks_system_message_is_an_informational_line_where_claude_code_puts_it(agent):
    hooks_settings(agent, {"UserPromptSubmit": command_hook(system_message("prompt seen")),
                           "PreToolUse": command_hook(system_message("about to run"), "Bash"),
                           "PostToolUse": command_hook(system_message("it ran"), "Bash"),
                           "Stop": command_hook(system_message("all done"))})
    for _ in range(2):
        agent.script(call("Bash", command="echo hi"), text("Said hi."))
    lines = stream_lines(agent.run("Say hi.", *STREAM))
    assert kinds(lines) == ["init", "informational", "assistant", "informational", "user", "informational",
                            "assistant", "informational", "success"]
    notices = [line for line in lines if line.get("subtype") == "informational"]
    assert [line["content"] for line in notices] == ["UserPromptSubmit says: prompt seen", "PreToolUse:Bash says: about to run",
                                                     "PostToolUse:Bash says: it ran", "Stop says: all done"]
    assert all(set(line) == {"type", "subtype", "content", "level", "uuid", "session_id"} and line["level"] == "notice"
               for line in notices)
    shown = agent.run("Say hi.")  # as text: the answer on stdout, what the hooks say on stderr
    assert shown.stdout == "Said hi.\n"
    assert [line for line in shown.stderr.splitlines() if " says: " in line] == [
        "[agent] UserPromptSubmit says: prompt seen", "[agent] PreToolUse:Bash says: about to run",
        "[agent] PostToolUse:Bash says: it ran", "[agent] Stop says: all done"]


GATE = """input=$(cat)
case "$input" in
  *rm\\ *) echo 'no deleting' >&2; exit 2 ;;
  *ask-me*) echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"R9"}}' ;;
esac
"""


def test_the_json_result_counts_hook_runs_lists_their_denials_and_says_a_hook_stopped_the_run(agent):
    agent.write(".claude/hooks/gate.sh", GATE, mode=0o755)
    hooks_settings(agent, {"PreToolUse": command_hook('"$CLAUDE_PROJECT_DIR"/.claude/hooks/gate.sh', "Bash"),
                           "PostToolUse": command_hook('echo \'{"continue": false, "stopReason": "S9"}\'', "Bash")})
    agent.script(call("Bash", command="rm -f keep.txt"), call("Bash", command="echo ask-me"),
                 call("Bash", command="touch ran.txt"), text("never sent"))
    run = agent.run("Work.", "--output-format", "json")
    result = json.loads(run.stdout)
    assert (run.exit_code, result["result"], result["is_error"], result["subtype"]) == (0, "", False, "success")
    assert result["terminal_reason"] == "hook_stopped" and (agent.workspace / "ran.txt").exists()
    assert result["hooks"] == {"runs": 4, "blocked": 1, "errors": 0}
    assert [(d["tool_name"], d["tool_input"]) for d in result["permission_denials"]] == [
        ("Bash", {"command": "rm -f keep.txt"}), ("Bash", {"command": "echo ask-me"})]
    assert all(d["tool_use_id"] for d in result["permission_denials"]) and len(run.payloads) == 3
    assert sdk_problems(result) == []


def test_nobody_is_asked_in_print_mode_so_notification_hooks_never_hear_of_a_question(agent):
    agent.settings({"permissions": {"defaultMode": "default"},
                    "hooks": {"Notification": command_hook("cat >> notified.jsonl")}})
    agent.script(call("Bash", command="touch made.txt"), text("It needs approval."))
    run = agent.run("Make the file.")
    assert run.exit_code == 0 and "needs approval" in json.dumps(run.payloads[-1])
    assert not (agent.workspace / "notified.jsonl").exists()  # as Claude Code -p: Notification does not fire
    for flags in ((), ("--replay-tools",)):  # a replay answers as the recording did: it asks nobody either
        replayed = agent.replay(*flags)
        assert (replayed.exit_code, replayed.stdout) == (0, "It needs approval.\n")
        assert not (agent.workspace / "notified.jsonl").exists() and not (agent.workspace / "made.txt").exists()

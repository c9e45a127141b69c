"""Hooks as Claude Code runs them: settings hooks fire at their moments, read the moment's JSON
on stdin, and what they answer reaches the model (or stops a call) in Claude Code's words."""

from __future__ import annotations

import io
import json

import pytest

from agent import cli
from pty_session import start  # noqa: F401 (the fixture of the interactive test)
from scripted_model import call, text


def hooks_settings(agent, hooks: dict, where: str = "user", permissions: dict | None = None) -> None:
    """Settings with `hooks` (bypass mode kept, as the harness's default settings have it, unless
    `permissions` are given)."""
    agent.settings({"permissions": permissions or {"defaultMode": "bypassPermissions"}, "hooks": hooks}, where=where)


def command_hook(command: str, matcher: str = "", **extra) -> list:
    return [{"matcher": matcher, "hooks": [{"type": "command", "command": command, **extra}]}]


def message_text(message: dict) -> str:
    """A message's text on either wire (the chat wire joins a user turn's text blocks)."""
    content = message["content"]
    if isinstance(content, str):
        return content
    return "\n\n".join(block.get("text", "") for block in content if block.get("type") == "text")


def echo_results(request):
    return text("\n".join(request.tool_results()))


def test_a_guard_hook_that_exits_2_blocks_the_call_and_the_model_reads_why(agent):
    agent.write(".claude/hooks/guard.sh", "#!/bin/bash\ncat > guard-input.json\necho 'no deleting here' >&2\nexit 2\n",
                mode=0o755)
    hooks_settings(agent, {"PreToolUse": command_hook('"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh', "Bash")})
    agent.write("keep.txt", "precious")
    agent.script(call("Bash", command="rm -f keep.txt"), echo_results)
    run = agent.run("Clean up.")
    assert run.exit_code == 0
    assert (agent.workspace / "keep.txt").exists()
    command = '"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh'
    assert f"PreToolUse:Bash hook error: [{command}]: no deleting here" in run.stdout
    seen = json.loads((agent.workspace / "guard-input.json").read_text())
    assert seen["hook_event_name"] == "PreToolUse" and seen["tool_name"] == "Bash"
    assert seen["tool_input"] == {"command": "rm -f keep.txt"} and seen["permission_mode"] == "bypassPermissions"
    assert {"session_id", "transcript_path", "cwd", "tool_use_id", "prompt_id"} <= set(seen)


def test_session_start_and_prompt_hooks_add_context_before_the_prompt(agent):
    hooks_settings(agent, {"SessionStart": command_hook("echo branch main is green"),
                           "UserPromptSubmit": command_hook("echo remember the style guide")})
    agent.script(text("ok"))
    run = agent.run("Hello.")
    assert run.exit_code == 0 and run.stdout.strip() == "ok"
    first = message_text(run.payloads[0]["messages"][-1])
    started = "<system-reminder>\nSessionStart:startup hook success: branch main is green\n</system-reminder>"
    submitted = "<system-reminder>\nUserPromptSubmit hook success: remember the style guide\n</system-reminder>"
    assert first.startswith(started) and first.index(submitted) > 0 and first.endswith("Hello.")


def hook_script(agent, name: str, body: str) -> str:
    """An executable bash script under .claude/hooks/; the command that runs it."""
    agent.write(f".claude/hooks/{name}", "#!/bin/bash\n" + body, mode=0o755)
    return f".claude/hooks/{name}"


def last_tool_result(payload: dict) -> str:
    """The text of the last tool result a request sends, on either wire."""
    last = payload["messages"][-1]
    if last["role"] == "tool":
        return last["content"]
    block = [b for b in last["content"] if b.get("type") == "tool_result"][-1]
    return block["content"] if isinstance(block["content"], str) else message_text(block)


def seen_inputs(agent, name: str = "inputs.jsonl") -> list[dict]:
    """The stdin JSON of each run of a hook that appended it to `name` (see LOG_INPUT)."""
    path = agent.workspace / name
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


LOG_INPUT = "{ cat; echo; } >> inputs.jsonl"  # a hook keeping what it read, one JSON a line


@pytest.mark.parametrize("answer, note", [
    ("""echo '{"decision": "block", "reason": "lint failed"}'""",
     'PostToolUse:Bash hook blocking error from command: "{cmd}": lint failed'),
    ("echo 'lint failed' >&2; exit 2", 'PostToolUse:Bash hook blocking error from command: "{cmd}": [{cmd}]: lint failed\n'),
    ("""echo '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "3 files changed"}}'""",
     "PostToolUse:Bash hook additional context: 3 files changed"),
], ids=["block", "exit-2", "context"])
def test_post_tool_use_answers_are_appended_to_the_tool_result(agent, answer, note):
    hooks_settings(agent, {"PostToolUse": command_hook(answer, "Bash")})
    agent.script(call("Bash", command="echo out1"), text("noted"))
    run = agent.run("Run it.")
    assert run.exit_code == 0 and run.stdout.strip() == "noted"
    sent = last_tool_result(run.payloads[1])
    assert sent.endswith("out1\n\n<system-reminder>\n" + note.format(cmd=answer) + "\n</system-reminder>")


def test_plain_stdout_of_tool_hooks_never_reaches_the_model(agent):
    hooks_settings(agent, {"PreToolUse": command_hook("echo PRE-PLAIN"), "PostToolUse": command_hook("echo POST-PLAIN"),
                           "PostToolUseFailure": command_hook("echo FAIL-PLAIN")})
    agent.script(call("Bash", command="echo out1"), call("Read", file_path="missing.txt"), text("done"))
    run = agent.run("Run it.")
    assert run.stdout.strip() == "done"
    assert not any(word in "".join(run.bodies) for word in ("PRE-PLAIN", "POST-PLAIN", "FAIL-PLAIN"))


FORMATTER = """#!/usr/bin/env python3
import json, sys
path = json.load(sys.stdin)["tool_input"]["file_path"]
lines = open(path).read().split("\\n")
open(path, "w").write("\\n".join(line.rstrip().replace("\\t", "    ") for line in lines))
"""


def test_a_format_on_save_hook_rewrites_what_write_and_edit_wrote(agent):
    agent.write(".claude/hooks/format.py", FORMATTER, mode=0o755)
    hooks_settings(agent, {"PostToolUse": command_hook('"$CLAUDE_PROJECT_DIR"/.claude/hooks/format.py', "Edit|Write")})
    agent.script(call("Write", file_path="app.py", content="def f():   \n\treturn 1  \n"),
                 call("Edit", file_path="app.py", old_string="return 1", new_string="return 2\t"), text("done"))
    run = agent.run("Write app.py.")
    assert run.exit_code == 0
    assert (agent.workspace / "app.py").read_text() == "def f():\n    return 2\n"


def test_post_tool_use_reads_the_tool_response_of_bash_and_write(agent):
    hooks_settings(agent, {"PostToolUse": command_hook(LOG_INPUT)})
    agent.script(call("Bash", command="echo hi; echo oops >&2"), call("Write", file_path="new.txt", content="fresh\n"),
                 text("done"))
    agent.run("Go.")
    bash, write = seen_inputs(agent)
    assert bash["hook_event_name"] == "PostToolUse" and bash["tool_name"] == "Bash"
    assert bash["tool_response"] == {"stdout": "hi", "stderr": "oops", "interrupted": False, "isImage": False,
                                     "noOutputExpected": False}
    assert write["tool_input"] == {"file_path": "new.txt", "content": "fresh\n"}
    assert write["tool_response"] == {"type": "create", "filePath": str(agent.workspace / "new.txt"),
                                      "content": "fresh\n", "structuredPatch": [], "originalFile": None,
                                      "userModified": False}
    assert {"session_id", "transcript_path", "cwd", "permission_mode", "tool_use_id", "duration_ms"} <= set(bash)


def test_a_failed_call_fires_post_tool_use_failure_instead(agent):
    context = """echo '{"hookSpecificOutput": {"hookEventName": "PostToolUseFailure", "additionalContext": "see the docs"}}'"""
    hooks_settings(agent, {"PostToolUse": command_hook(LOG_INPUT, "*"),
                           "PostToolUseFailure": command_hook(LOG_INPUT + "; " + context, "*")})
    agent.script(call("Bash", command="echo partial; exit 3"), call("Read", file_path="missing.txt"), text("done"))
    run = agent.run("Go.")
    bash, read = seen_inputs(agent)
    assert [bash["hook_event_name"], read["hook_event_name"]] == ["PostToolUseFailure"] * 2
    assert "tool_response" not in bash and bash["is_interrupt"] is False and read["is_interrupt"] is False
    assert "partial" in bash["error"] and "3" in bash["error"]
    note = "\n\n<system-reminder>\nPostToolUseFailure:{} hook additional context: see the docs\n</system-reminder>"
    assert last_tool_result(run.payloads[1]) == bash["error"] + note.format("Bash")
    assert last_tool_result(run.payloads[2]).endswith(read["error"] + note.format("Read"))


def test_prompt_hook_context_goes_before_the_prompt(agent):
    context = """echo '{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "ticket 42"}}'"""
    hooks_settings(agent, {"UserPromptSubmit": command_hook(LOG_INPUT + "; " + context)})
    agent.script(text("ok"))
    run = agent.run("Hello.")
    first = message_text(run.payloads[0]["messages"][-1])
    assert "<system-reminder>\nUserPromptSubmit hook additional context: ticket 42\n</system-reminder>" in first
    assert first.endswith("Hello.")
    [seen] = seen_inputs(agent)
    assert seen["prompt"] == "Hello." and seen["hook_event_name"] == "UserPromptSubmit" and "permission_mode" in seen


@pytest.mark.parametrize("answer, said", [
    ("""echo '{"decision": "block", "reason": "no secrets in prompts"}'""",
     "UserPromptSubmit operation blocked by hook:\nno secrets in prompts\n\nOriginal prompt: My password is hunter2.\n"),
    ("echo 'no secrets in prompts' >&2; exit 2",
     "UserPromptSubmit operation blocked by hook:\n[{cmd}]: no secrets in prompts\n\n\nOriginal prompt: My password is hunter2.\n"),
    ("""echo '{"continue": false, "stopReason": "not now", "decision": "block", "reason": "unsaid"}'""",
     "Operation stopped by hook: not now\n"),
], ids=["json", "exit-2", "continue-false"])
def test_a_blocked_prompt_sends_no_request_and_says_why(agent, capsys, answer, said):
    # No request means no cassette to record or replay (a cassette holds at least one exchange), so
    # the agent runs without one: a request would fail (nothing listens at the base URL in replay,
    # and the scripted model would see it when recording).
    command = LOG_INPUT + "; " + answer
    hooks_settings(agent, {"UserPromptSubmit": command_hook(command)})
    capsys.readouterr()
    code = cli.main(["-p", "My password is hunter2."], stdin=io.BytesIO(b""))
    assert code == 0 and capsys.readouterr().out == said.format(cmd=command)
    assert [seen["prompt"] for seen in seen_inputs(agent)] == ["My password is hunter2."]
    assert agent.model is None or agent.model.requests == []


def test_session_start_hooks_match_their_source(agent):
    context = """echo '{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "fresh start"}}'"""
    hooks_settings(agent, {"SessionStart": command_hook(LOG_INPUT + "; " + context, "startup")
                           + command_hook(LOG_INPUT + "; echo resumed work", "resume")})
    agent.script(text("first"))
    run = agent.run("Hello.", "--output-format", "json")
    first = message_text(run.payloads[0]["messages"][-1])
    assert first.startswith("<system-reminder>\nSessionStart hook additional context: fresh start\n</system-reminder>")
    agent.script(text("second"))
    run = agent.run("Again.", "--resume", json.loads(run.stdout)["session_id"])
    latest = message_text(run.payloads[0]["messages"][-1])
    assert "SessionStart:resume hook success: resumed work" in latest and "fresh start" not in latest
    assert [seen["source"] for seen in seen_inputs(agent)] == ["startup", "resume"]
    assert all("permission_mode" not in seen and "prompt_id" not in seen for seen in seen_inputs(agent))


BLOCK_ONCE = LOG_INPUT + """; if [ ! -e stopped-once ]; then touch stopped-once; {answer}; fi"""


@pytest.mark.parametrize("answer, feedback", [
    ("""echo '{"decision": "block", "reason": "run the tests first"}'""", "run the tests first"),
    ("echo 'run the tests first' >&2; exit 2", "[{cmd}]: run the tests first\n"),
], ids=["json", "exit-2"])
def test_a_stop_hook_that_blocks_makes_the_model_go_on(agent, answer, feedback):
    command = BLOCK_ONCE.replace("{answer}", answer)
    hooks_settings(agent, {"Stop": command_hook(command)})
    agent.script(text("first answer"), text("second answer"))
    run = agent.run("Finish.")
    assert run.exit_code == 0 and run.stdout == "second answer\n"
    told = message_text(run.payloads[1]["messages"][-1])
    reason = feedback.format(cmd=command)
    named = f"<system-reminder>\nStop hook blocking error from command: \"{command}\": {reason}\n</system-reminder>"
    assert (named in told) == ("exit 2" not in command)  # Claude Code names the hook only for a JSON block
    assert told.endswith(f"Stop hook feedback:\n{reason}\n</system-reminder>")
    first, second = seen_inputs(agent)
    assert (first["stop_hook_active"], second["stop_hook_active"]) == (False, True)
    assert (first["last_assistant_message"], second["last_assistant_message"]) == ("first answer", "second answer")


def test_session_end_runs_when_a_print_run_ends(agent):
    hooks_settings(agent, {"SessionEnd": command_hook(LOG_INPUT)})
    agent.script(text("bye"))
    run = agent.run("Hello.")
    assert run.stdout == "bye\n"
    [seen] = seen_inputs(agent)
    assert seen["hook_event_name"] == "SessionEnd" and seen["reason"] == "other"


@pytest.mark.parametrize("provider", ["openrouter", "anthropic"])
def test_continue_false_ends_only_its_own_turn_of_an_interactive_session(model, start, tmp_path, provider):
    model.script(call("Bash", command="touch one.txt"), call("Bash", command="touch two.txt"), text("second turn done"))
    once = """if [ ! -e stopped ]; then touch stopped; echo '{"continue": false}'; fi"""
    (tmp_path / "workspace" / ".claude").mkdir()  # the session's workspace; its hooks run once it is trusted
    (tmp_path / "workspace" / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"PostToolUse": command_hook(once)}}))
    session = start("--trust-workspace", provider=provider)
    session.ready()
    session.send("First.")
    session.ready()
    session.send("Second.")
    session.expect("second turn done")
    assert len(model.requests) == 3 and (session.workspace / "two.txt").exists()

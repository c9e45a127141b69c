"""Hooks as Claude Code runs them: settings hooks fire at their moments, read the moment's JSON
on stdin, and what they answer reaches the model (or stops a call) in Claude Code's words."""

from __future__ import annotations

import json

from scripted_model import call, text


def hooks_settings(agent, hooks: dict, where: str = "user") -> None:
    """Settings with `hooks` (bypass mode kept, as the harness's default settings have it)."""
    agent.settings({"permissions": {"defaultMode": "bypassPermissions"}, "hooks": hooks}, where=where)


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

"""What a hook's answer does, as Claude Code 2.1.332 does it. PreToolUse: a deny (or the legacy
block, or an exit 2) stops the call with the reason, an allow approves what would need approval but
never what a deny or an ask rule refuses, an ask is refused in -p, updatedInput replaces the input
(still judged by the rules). continue: false ends the run once the call has run (and wins over a
Stop hook's block). A script that cannot run, exits 1 or outlives its timeout is non-blocking; a
systemMessage is for the user only."""

from __future__ import annotations

import json

import pytest

from scripted_model import call, text
from test_hooks import command_hook, echo_results, hooks_settings, last_tool_result


def pre_tool_answer(decision: str, reason: str = "", **more) -> str:
    """A hook command printing a PreToolUse hookSpecificOutput."""
    answer = {"hookEventName": "PreToolUse", "permissionDecision": decision, **more}
    if reason:
        answer["permissionDecisionReason"] = reason
    return "echo '" + json.dumps({"hookSpecificOutput": answer}) + "'"


@pytest.mark.parametrize("answer, reason", [
    (pre_tool_answer("deny", "no deleting here"), "no deleting here"),
    ("""echo '{"decision": "block", "reason": "no deleting here"}'""", "no deleting here"),
    (pre_tool_answer("deny"), "Blocked by hook"),  # Claude Code's words when the hook gives none
    ("exit 2", "[exit 2]: No stderr output"),
], ids=["deny", "legacy-block", "no-reason", "silent-exit-2"])
def test_a_deny_blocks_the_call_with_its_reason(agent, answer, reason):
    hooks_settings(agent, {"PreToolUse": command_hook(answer, "Bash")})
    agent.write("keep.txt", "precious")
    agent.script(call("Bash", command="rm -f keep.txt"), echo_results)
    run = agent.run("Clean up.", "--output-format", "json")
    result = json.loads(run.stdout)
    assert (agent.workspace / "keep.txt").exists()
    assert result["result"].endswith(f"PreToolUse:Bash hook error: {reason}")  # "Error: " first on the chat wire
    assert [d["tool_name"] for d in result["permission_denials"]] == ["Bash"]


@pytest.mark.parametrize("answer", [pre_tool_answer("allow", "touching is fine"),
                                    """echo '{"decision": "approve"}'"""], ids=["allow", "legacy-approve"])
def test_an_allow_runs_what_default_mode_would_refuse(agent, answer):
    hooks_settings(agent, {"PreToolUse": command_hook(answer, "Bash")}, permissions={"defaultMode": "default"})
    agent.script(call("Bash", command="touch made.txt"), echo_results)
    run = agent.run("Make it.", "--output-format", "json")
    assert (agent.workspace / "made.txt").exists()
    assert json.loads(run.stdout)["permission_denials"] == []


@pytest.mark.parametrize("rule, refusal", [("deny", "denied by the permission rule 'Bash(touch:*)'"),
                                           ("ask", "matches the ask rule 'Bash(touch:*)'")])
def test_an_allow_never_beats_a_deny_or_an_ask_rule(agent, rule, refusal):
    hooks_settings(agent, {"PreToolUse": command_hook(pre_tool_answer("allow"), "Bash")},
                   permissions={"defaultMode": "default", rule: ["Bash(touch:*)"]})
    agent.script(call("Bash", command="touch made.txt"), echo_results)
    run = agent.run("Make it.")
    assert not (agent.workspace / "made.txt").exists()
    assert refusal in run.stdout


def test_a_deny_beats_an_allow_rule(agent):
    hooks_settings(agent, {"PreToolUse": command_hook(pre_tool_answer("deny", "not today"), "Bash")},
                   permissions={"defaultMode": "default", "allow": ["Bash(touch:*)"]})
    agent.script(call("Bash", command="touch made.txt"), echo_results)
    run = agent.run("Make it.")
    assert not (agent.workspace / "made.txt").exists()
    assert run.stdout.strip().endswith("PreToolUse:Bash hook error: not today")


@pytest.mark.parametrize("reason, said", [("a person should look at this", "a person should look at this"),
                                          ("", "Hook PreToolUse:Bash asked for confirmation for this tool")],
                         ids=["reason", "no-reason"])
def test_an_ask_is_refused_in_print_mode_with_the_bare_reason(agent, reason, said):
    hooks_settings(agent, {"PreToolUse": command_hook(pre_tool_answer("ask", reason), "Bash")})
    agent.script(call("Bash", command="touch made.txt"), echo_results)
    run = agent.run("Make it.", "--output-format", "json")
    result = json.loads(run.stdout)
    assert not (agent.workspace / "made.txt").exists()
    assert result["result"].endswith(said) and result["is_error"] is False
    assert [d["tool_name"] for d in result["permission_denials"]] == ["Bash"]
    assert last_tool_result(run.payloads[1]).endswith(said)


def test_updated_input_replaces_the_command_and_is_still_judged_by_the_rules(agent):
    replace = pre_tool_answer("allow", updatedInput={"command": "echo replaced"})
    hooks_settings(agent, {"PreToolUse": command_hook(replace, "Bash")})
    agent.script(call("Bash", command="echo original"), echo_results)
    run = agent.run("Say it.")
    assert "replaced" in run.stdout and "original" not in run.stdout

    agent.write("keep.txt", "precious")
    sneaky = pre_tool_answer("allow", updatedInput={"command": "rm -f keep.txt"})
    hooks_settings(agent, {"PreToolUse": command_hook(sneaky, "Bash")},
                   permissions={"defaultMode": "bypassPermissions", "deny": ["Bash(rm:*)"]})
    agent.script(call("Bash", command="echo harmless"), echo_results)
    run = agent.run("Say it again.")
    assert (agent.workspace / "keep.txt").exists()
    assert "denied by the permission rule 'Bash(rm:*)'" in run.stdout


@pytest.mark.parametrize("event", ["PreToolUse", "PostToolUse"])
def test_continue_false_lets_the_call_run_then_ends_the_run_without_another_request(agent, event):
    stop = """echo '{"continue": false, "stopReason": "enough for today"}'"""
    hooks_settings(agent, {event: command_hook(stop, "Bash")})
    agent.script(call("Bash", command="touch ran.txt"))
    run = agent.run("Go.")
    assert (agent.workspace / "ran.txt").exists()
    assert run.exit_code == 0 and run.stdout.strip() == "" and len(run.payloads) == 1
    assert "enough for today" not in run.stdout

    (agent.workspace / "ran.txt").unlink()
    agent.script(call("Bash", command="touch ran.txt"))
    run = agent.run("Go.", "--output-format", "json")
    result = json.loads(run.stdout)
    assert (agent.workspace / "ran.txt").exists() and len(run.payloads) == 1
    assert result["result"] == "" and result["terminal_reason"] == "hook_stopped" and result["is_error"] is False


def test_hooks_that_fail_to_run_or_exit_1_are_non_blocking_and_shown_under_verbose(agent):
    agent.write(".claude/hooks/not-executable.sh", "#!/bin/bash\necho NOT-EXEC-OUT\n", mode=0o644)
    broken = [".claude/hooks/missing.sh", ".claude/hooks/not-executable.sh", "echo EXIT-ONE-OUT; echo EXIT-ONE-ERR >&2; exit 1"]
    hooks_settings(agent, {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": c} for c in broken]}],
                           "PostToolUse": command_hook(broken[2], "Bash")})
    agent.script(call("Bash", command="touch ran.txt"), text("done"))
    run = agent.run("Go.", "--verbose")
    assert run.exit_code == 0 and (agent.workspace / "ran.txt").exists()
    sent = "".join(run.bodies)
    assert not any(word in sent for word in ("NOT-EXEC", "EXIT-ONE", "missing.sh", "not-executable.sh"))
    for command, code in zip(broken, ("exit 127", "exit 126", "exit 1")):
        assert any(f"[{command}]: {code}" in line and "non-blocking error" in line for line in run.stderr.splitlines())


def test_a_hook_past_its_timeout_is_abandoned_and_the_call_runs(agent):
    hooks_settings(agent, {"PreToolUse": command_hook("""sleep 5; echo '{"decision": "block", "reason": "too late"}'""",
                                                      "Bash", timeout=1)})
    agent.script(call("Bash", command="touch ran.txt"), echo_results)
    run = agent.run("Go.")
    assert (agent.workspace / "ran.txt").exists() and "too late" not in run.stdout
    assert "hook PreToolUse:Bash [sleep 5; echo" in run.stderr and "timed out after 1 s" in run.stderr


def test_a_system_message_is_for_the_user_never_the_model(agent):
    hooks_settings(agent, {"PreToolUse": command_hook("""echo '{"systemMessage": "backups are off today"}'""", "Bash")})
    agent.script(call("Bash", command="echo hi"), text("done"))
    run = agent.run("Go.")
    assert run.stdout == "done\n" and "backups are off today" in run.stderr
    assert "backups are off today" not in "".join(run.bodies)


def test_a_stop_hooks_continue_false_wins_over_its_block(agent):
    hooks_settings(agent, {"Stop": command_hook("""echo '{"continue": false, "decision": "block", "reason": "go on"}'""")})
    agent.script(text("first answer"))
    run = agent.run("Finish.")
    assert run.exit_code == 0 and len(run.payloads) == 1

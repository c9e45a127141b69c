"""The Agent SDK's hook callbacks (`ClaudeAgentOptions(hooks=...)`): Python functions that fire at
their moments as command hooks do, each through a `hook_callback` request; their answers read as a
command hook's JSON. Every session is recorded once, replayed through the SDK (the callbacks run
again and their effects are compared), replayed with --replay-tools (nothing runs, the recorded
answers stand), and replayed without any SDK (the recorded answers stand in for the callbacks)."""

from __future__ import annotations

import asyncio

from claude_agent_sdk import HookMatcher

from scripted_model import call, text
from sdk_replays import REPLAY_TOOLS, prompt, replay_query, sent_to_model, tool_results
from sdk_session import sdk_query

REASON = "BLOCKED-BY-HOOK-8664"


def test_a_pre_tool_use_callback_denies_a_bash_call(agent):
    agent.write("keep.txt", "still here\n")
    agent.script(call("Bash", command="rm -f keep.txt"), text("I could not delete it."))
    seen: list[dict] = []

    async def guard(hook_input, tool_use_id, context):
        seen.append({**hook_input, "tool_use_id_argument": tool_use_id})
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                       "permissionDecisionReason": REASON}}

    hooks = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[guard])]}
    run = sdk_query(agent, prompt("Delete keep.txt"), hooks=hooks)
    assert run.error is None, "\n".join(run.stderr)
    assert (agent.workspace / "keep.txt").read_text() == "still here\n"  # the command never ran
    assert f"PreToolUse:Bash hook error: {REASON}" in tool_results(run)
    assert f"PreToolUse:Bash hook error: {REASON}" in sent_to_model(run)
    assert [(s["hook_event_name"], s["tool_name"], s["tool_input"]) for s in seen] == [
        ("PreToolUse", "Bash", {"command": "rm -f keep.txt"})]
    assert seen[0]["tool_use_id"] == seen[0]["tool_use_id_argument"] and seen[0]["cwd"] == str(agent.workspace)
    assert run.result.result == "I could not delete it."

    seen.clear()  # with --replay-tools the recorded answer stands: the callback is not asked
    again = replay_query(agent, run.cassette, prompt("Delete keep.txt"), REPLAY_TOOLS, hooks=hooks)
    assert again.error is None, again.stderr
    assert seen == [] and f"PreToolUse:Bash hook error: {REASON}" in tool_results(again)
    assert (agent.workspace / "keep.txt").exists()

    async def lenient(hook_input, tool_use_id, context):
        return {}

    # an SDK-driven replay asks the callbacks again: one that no longer denies is drift, caught before the call runs
    drifted = replay_query(agent, run.cassette, prompt("Delete keep.txt"), drifting=True,
                           hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[lenient])]})
    said = "\n".join(drifted.stderr)
    assert "the PreToolUse:Bash hook [SDK callback hook_0] differs from the cassette" in said, said[-800:]
    assert f"its block: recorded \"{REASON}\", now none" in said
    assert (agent.workspace / "keep.txt").exists()

    # without the SDK (a plain --replay) there is no callback to ask: its recorded answer stands in
    plain = agent.replay("--verbose")
    assert plain.exit_code == 0, plain.stderr
    assert plain.stdout.strip() == "I could not delete it."
    assert "its hook callbacks are answered from the cassette" in plain.stderr
    assert (agent.workspace / "keep.txt").exists()


def test_a_post_tool_use_callback_sees_the_tool_response(agent):
    agent.script(call("Bash", command="echo hello-from-bash"), text("done"))
    responses: list = []

    async def watch(hook_input, tool_use_id, context):
        responses.append(hook_input.get("tool_response"))
        return {"hookSpecificOutput": {"hookEventName": "PostToolUse",
                                       "additionalContext": "SEEN " + hook_input["tool_response"]["stdout"].strip()}}

    run = sdk_query(agent, prompt("Say hello through Bash"), hooks={"PostToolUse": [HookMatcher(hooks=[watch])]})
    assert run.error is None, run.stderr
    assert len(responses) == 1 and responses[0]["stdout"].strip() == "hello-from-bash"
    assert set(responses[0]) >= {"stdout", "stderr", "interrupted", "isImage"}
    assert "PostToolUse:Bash hook additional context: SEEN hello-from-bash" in sent_to_model(run)

    responses.clear()
    again = replay_query(agent, run.cassette, prompt("Say hello through Bash"), REPLAY_TOOLS,
                         hooks={"PostToolUse": [HookMatcher(hooks=[watch])]})
    assert again.error is None, again.stderr
    assert responses == [] and again.result.result == "done"


def test_a_callback_that_answers_nothing_changes_nothing(agent):
    agent.script(call("Bash", command="echo made > made.txt"), text("made it"))
    asked: list[str] = []

    async def quiet(hook_input, tool_use_id, context):
        asked.append(hook_input["tool_name"])
        return {}

    run = sdk_query(agent, prompt("Make made.txt"), hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[quiet])]})
    assert run.error is None, run.stderr
    assert asked == ["Bash"]
    assert (agent.workspace / "made.txt").read_text() == "made\n"
    assert "hook error" not in sent_to_model(run) and "hook additional context" not in sent_to_model(run)
    assert run.result.result == "made it"


def test_a_callback_that_raises_is_a_non_blocking_hook_error(agent):
    agent.script(call("Bash", command="echo ran > ran.txt"), text("it ran"))

    async def broken(hook_input, tool_use_id, context):
        raise RuntimeError("CALLBACK-EXPLODED-3141")

    run = sdk_query(agent, prompt("Run it"), hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[broken])]})
    assert run.error is None, run.stderr
    assert (agent.workspace / "ran.txt").read_text() == "ran\n"  # the call went ahead
    assert "CALLBACK-EXPLODED-3141" not in sent_to_model(run)  # the model is not told
    failed = [line for line in run.stderr if "CALLBACK-EXPLODED-3141" in line]
    assert failed and "hook PreToolUse:Bash [SDK callback hook_0]: failed" in failed[0], run.stderr[-5:]
    assert "non-blocking error: the Agent SDK's hook callback failed" in failed[0]

    (agent.workspace / "ran.txt").unlink()  # the SDK-driven replay runs the callback and the command again
    again = replay_query(agent, run.cassette, prompt("Run it"),
                         hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[broken])]})
    assert again.error is None, again.stderr
    assert (agent.workspace / "ran.txt").exists() and again.result.result == "it ran"


def test_a_callback_that_does_not_answer_in_time_is_ignored(agent):
    agent.script(call("Bash", command="echo late > late.txt"), text("went ahead"))

    async def slow(hook_input, tool_use_id, context):
        await asyncio.sleep(2.5)
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny"}}

    run = sdk_query(agent, prompt("Go"), hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[slow], timeout=1)]})
    assert run.error is None, run.stderr
    assert (agent.workspace / "late.txt").read_text() == "late\n"  # its late deny came to nothing
    assert any("[SDK callback hook_0] timed out after 1 s" in line for line in run.stderr), run.stderr[-5:]
    assert "hook error" not in sent_to_model(run)


def test_a_recorded_callback_answer_never_widens_a_replay_that_runs_tools(agent):
    agent.script(call("Bash", command="echo original > out.txt"), text("written"))

    async def rewrite(hook_input, tool_use_id, context):
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                       "updatedInput": {"command": "echo rewritten > out.txt"}}}

    run = sdk_query(agent, prompt("Write out.txt"), hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[rewrite])]})
    assert run.error is None, run.stderr
    assert (agent.workspace / "out.txt").read_text() == "rewritten\n"  # the SDK's own callback changed the command

    # a plain replay runs tools for real: the cassette's answer may block, never allow or change a call
    (agent.workspace / "out.txt").unlink()
    plain = agent.replay()
    assert plain.exit_code == 0, plain.stderr
    assert (agent.workspace / "out.txt").read_text() == "original\n"
    assert "the recorded PreToolUse:Bash hook callback [SDK callback hook_0] allowed the call or changed its input; " \
           "this replay runs tools for real, so that is not followed" in plain.stderr

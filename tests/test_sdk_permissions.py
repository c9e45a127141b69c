"""The Agent SDK's `can_use_tool` decides the calls that need approval, as with Claude Code 2.1.332
(`--permission-prompt-tool stdio`): what the callback is asked, and what its answers do (allow,
allow with a rewritten input or permission updates, deny with a message, deny that interrupts the
turn, a callback that fails); a deny rule still wins; a recorded session replays the same decisions
without asking; without a callback each refusal is a `permission_denied` message.

Most sessions are recorded once and replayed; a replay uses the recording as the user's own
(a copy in their trusted workspace), so its grants are followed and the tools really run. The
interrupted turn (left out of a recording, as an interrupt's is) and what the callback is asked
run against the scripted model each time."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
from typing import Any

import yaml
from claude_agent_sdk import (ClaudeAgentOptions, ClaudeSDKClient, PermissionResultAllow, PermissionResultDeny,
                              PermissionUpdate, ResultMessage, SystemMessage, UserMessage)
from claude_agent_sdk.types import PermissionRuleValue

from conftest import BASES
from scripted_model import Call, call, calls, text
from sdk_session import CLI, SdkRun, sdk_query

DEFAULT_MODE = {"permissions": {"defaultMode": "default"}}


class Callback:
    """A can_use_tool callback giving each of its answers in turn (a PermissionResult, or an
    exception to raise), and keeping what it was asked (tool, input, context)."""

    def __init__(self, *answers):
        self.answers = list(answers)
        self.asked: list[tuple[str, dict, Any]] = []

    async def __call__(self, tool: str, tool_input: dict, context) -> Any:
        self.asked.append((tool, tool_input, context))
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


async def one_prompt(prompt: str):
    """The prompt as the SDK's streaming mode sends it (can_use_tool needs that mode)."""
    yield {"type": "user", "message": {"role": "user", "content": prompt}}


def run_session(agent, prompt: str, callback: Callback | None = None, **options: Any) -> SdkRun:
    """The test's first query through the SDK, recorded against the scripted model or replayed from
    a copy of its cassette in the (trusted) workspace, so that the replay follows its approvals
    and runs the tools for real; the callback is passed either way."""
    agent.trust()
    if callback is not None:
        options["can_use_tool"] = callback
    if not agent.recording:
        own = agent.workspace / "recorded" / agent.cassette_path(1).name
        own.parent.mkdir(exist_ok=True)
        shutil.copy(agent.cassette_path(1), own)
        options["extra_args"] = {"replay": str(own)}
    run = sdk_query(agent, one_prompt(prompt) if callback is not None else prompt, **options)
    assert run.cassette == agent.cassette_path(1)  # the cassette the copy was made of
    return run


def converse(options: ClaudeAgentOptions, *prompts: str) -> list[list[Any]]:
    """A ClaudeSDKClient session sending each prompt in turn: each turn's messages, up to its result."""

    async def go() -> list[list[Any]]:
        turns = []
        async with ClaudeSDKClient(options=options) as client:
            for prompt in prompts:
                await client.query(prompt)
                turns.append([message async for message in client.receive_response()])
        return turns

    return asyncio.run(asyncio.wait_for(go(), 60))


def tool_results(run: SdkRun | list[Any]) -> list[dict]:
    """Every tool result the SDK saw (in a run, or in one turn's messages), as {content, is_error}."""
    return [{"content": block.content, "is_error": bool(block.is_error)}
            for m in (run.messages if isinstance(run, SdkRun) else run)
            if isinstance(m, UserMessage) and isinstance(m.content, list) for block in m.content
            if hasattr(block, "tool_use_id")]


def asked(callback: Callback, agent) -> list[str]:
    """The tools the callback was asked about: none in a replay, which answers as recorded."""
    names = [tool for tool, _, _ in callback.asked]
    assert names == [] or agent.recording, "a replay asked the callback"
    return names


def test_a_callback_allowing_a_write_lets_it_run(agent):
    agent.settings(DEFAULT_MODE)
    agent.script(call("Write", file_path="out.txt", content="allowed\n"), text("wrote it"))
    callback = Callback(PermissionResultAllow())
    run = run_session(agent, "Write the file", callback)
    assert run.error is None, run.stderr
    assert asked(callback, agent) == (["Write"] if agent.recording else [])
    assert (agent.workspace / "out.txt").read_text() == "allowed\n"
    assert run.result.result == "wrote it" and run.result.permission_denials == []
    assert not tool_results(run)[0]["is_error"]


def test_a_callback_denying_a_command_gives_the_model_its_message(agent):
    agent.settings(DEFAULT_MODE)
    agent.script(call("Bash", command="touch made.txt"), lambda request: text("got: " + request.tool_results()[0]))
    callback = Callback(PermissionResultDeny(message="DENIED-BY-CALLBACK-2494"))
    run = run_session(agent, "Touch the file", callback)
    assert run.error is None, run.stderr
    assert asked(callback, agent) == (["Bash"] if agent.recording else [])
    assert tool_results(run) == [{"content": "DENIED-BY-CALLBACK-2494", "is_error": True}]
    assert run.result.result in ("got: DENIED-BY-CALLBACK-2494", "got: Error: DENIED-BY-CALLBACK-2494")  # as each wire says it
    [denial] = run.result.permission_denials
    assert denial["tool_name"] == "Bash" and denial["tool_input"] == {"command": "touch made.txt"}
    assert denial["tool_use_id"] and not (agent.workspace / "made.txt").exists()


def test_a_callback_rewriting_a_write_runs_the_rewritten_content(agent):
    agent.settings(DEFAULT_MODE)
    agent.script(call("Write", file_path="out.txt", content="original-content\n"),
                 lambda request: text("got: " + request.tool_results()[0]))
    callback = Callback(PermissionResultAllow(updated_input={"file_path": "out.txt", "content": "REWRITTEN-7555\n"}))
    run = run_session(agent, "Write the file", callback)
    assert run.error is None, run.stderr
    assert (agent.workspace / "out.txt").read_text() == "REWRITTEN-7555\n"
    assert run.result.result.endswith("The user modified your proposed content before accepting it.")
    runs = yaml.safe_load(run.cassette.read_text())["tool_runs"]
    assert [(r["input"]["content"], r["updated_input"]["content"], r["by"]) for r in runs] == [
        ("original-content\n", "REWRITTEN-7555\n", "sdk")]


def test_a_callback_that_fails_refuses_the_call(agent):
    agent.settings(DEFAULT_MODE)
    agent.script(call("Bash", command="touch made.txt"), lambda request: text("got: " + request.tool_results()[0]))
    run = run_session(agent, "Touch the file", Callback(RuntimeError("callback-broke-3141")))
    assert run.error is None, run.stderr
    assert "callback-broke-3141" in run.result.result and "was not allowed" in run.result.result
    assert not (agent.workspace / "made.txt").exists() and len(run.result.permission_denials) == 1


def test_permission_updates_apply_to_the_session_only(agent):
    agent.settings(DEFAULT_MODE)
    agent.script(call("Bash", command="echo first-echo"), call("Bash", command="echo second-echo"),
                 call("Write", file_path="a.txt", content="a\n"), call("Write", file_path="b.txt", content="b\n"),
                 text("all ran"))
    rule = PermissionUpdate("addRules", [PermissionRuleValue("Bash", "echo:*")], "allow", destination="localSettings")
    edits = PermissionUpdate("setMode", mode="acceptEdits", destination="session")
    callback = Callback(PermissionResultAllow(updated_permissions=[rule]), PermissionResultAllow(updated_permissions=[edits]))
    run = run_session(agent, "Run them", callback)
    assert run.error is None, run.stderr
    assert asked(callback, agent) == (["Bash", "Write"] if agent.recording else [])  # the second of each: approved
    assert (agent.workspace / "b.txt").read_text() == "b\n" and run.result.result == "all ran"
    assert [r["content"].split("\n")[-1] for r in tool_results(run)][:2] == ["first-echo", "second-echo"]
    assert not (agent.workspace / ".claude" / "settings.local.json").exists()  # no settings file written


def test_a_deny_rule_wins_over_what_a_callback_allows(agent):
    agent.settings({"permissions": {"defaultMode": "default", "deny": ["Edit(./locked.txt)", "Bash(rm:*)"]}})
    agent.write("keep.txt", "kept\n")
    agent.script(calls(Call("Bash", {"command": "rm -f keep.txt"}), Call("Write", {"file_path": "notes.txt", "content": "n\n"})),
                 lambda request: text("got: " + " | ".join(request.tool_results())))
    callback = Callback(PermissionResultAllow(updated_input={"file_path": "locked.txt", "content": "sneaked\n"}))
    run = run_session(agent, "Go", callback)
    assert run.error is None, "\n".join(run.stderr)
    assert asked(callback, agent) == (["Write"] if agent.recording else [])  # the denied command: never asked
    assert (agent.workspace / "keep.txt").exists() and not (agent.workspace / "locked.txt").exists()
    assert not (agent.workspace / "notes.txt").exists()
    assert [r["is_error"] for r in tool_results(run)] == [True, True]
    assert run.result.result.count("is denied by the permission rule") == 2 and "'Edit(./locked.txt)'" in run.result.result


def test_a_recorded_session_replays_its_decisions_without_asking(agent):
    agent.settings(DEFAULT_MODE)
    agent.script(call("Write", file_path="out.txt", content="original\n"), call("Bash", command="touch made.txt"),
                 text("done"))
    callback = Callback(PermissionResultAllow(updated_input={"file_path": "out.txt", "content": "rewritten\n"}),
                        PermissionResultDeny(message="NOT-THIS-ONE"))
    first = run_session(agent, "Go", callback)
    assert first.error is None, first.stderr
    (agent.workspace / "out.txt").unlink()
    never = Callback()  # asked anything, it fails the test (no answer left)
    stderr: list[str] = []
    options = ClaudeAgentOptions(cli_path=str(CLI), cwd=str(agent.workspace), stderr=stderr.append, can_use_tool=never,
                                 extra_args={"replay": str(first.cassette), "replay-tools": None})
    [again] = converse(options, "Go")
    agent.drifted(first.cassette, "\n".join(stderr))
    assert never.asked == [] and tool_results(again) == tool_results(first)
    assert tool_results(again)[1] == {"content": "NOT-THIS-ONE", "is_error": True}
    assert again[-1].permission_denials == first.result.permission_denials
    assert not (agent.workspace / "out.txt").exists()  # --replay-tools: nothing ran


def test_without_a_callback_a_refusal_is_a_permission_denied_message(agent):
    agent.settings(DEFAULT_MODE)
    agent.script(call("Bash", command="touch made.txt"), text("could not"))
    run = run_session(agent, "Touch the file")
    assert run.error is None, run.stderr
    [denied] = [m for m in run.messages if isinstance(m, SystemMessage) and m.subtype == "permission_denied"]
    [denial] = run.result.permission_denials
    assert denied.data["tool_name"] == "Bash" and denied.data["tool_use_id"] == denial["tool_use_id"]
    assert "needs approval" in denied.data["message"] and tool_results(run)[0]["content"] == denied.data["message"]
    assert not (agent.workspace / "made.txt").exists()


def test_a_replay_that_withholds_approvals_withholds_the_rewritten_input(agent):
    test_a_callback_rewriting_a_write_runs_the_rewritten_content(agent)
    (agent.workspace / "out.txt").unlink()
    stderr: list[str] = []
    theirs = agent.home / "theirs.yaml"  # someone else's cassette: outside the trusted workspace
    shutil.copy(agent.cassette_path(1), theirs)
    options = ClaudeAgentOptions(cli_path=str(CLI), cwd=str(agent.workspace), stderr=stderr.append,
                                 can_use_tool=Callback(), extra_args={"replay": str(theirs)})
    with contextlib.suppress(Exception):  # the replay drifts (the Write refused), so the CLI fails
        converse(options, "Write the file")
    assert not (agent.workspace / "out.txt").exists()
    assert any("approval" in line and "given" in line for line in stderr), stderr


def test_a_cassette_with_a_bad_approval_field_is_refused_in_one_line(agent, tmp_path):
    test_a_callback_rewriting_a_write_runs_the_rewritten_content(agent)
    data = yaml.safe_load(agent.cassette_path(1).read_text())
    for bad, named in (({"updated_input": "text"}, "updated_input"), ({"message": "no"}, "message"),
                       ({"permission_updates": [{"type": "setMode", "mode": 3}]}, "permission_updates")):
        broken = tmp_path / f"bad-{named}.yaml"
        broken.write_text(yaml.safe_dump({**data, "tool_runs": [{**data["tool_runs"][0], **bad}]}))
        replayed = agent.replay(cassette=broken)
        assert replayed.exit_code == 2 and f"`{named}`" in replayed.stderr and "Traceback" not in replayed.stderr


# --- against the scripted model, every time -------------------------------------------------------


def live_options(agent, model, monkeypatch, **options: Any) -> ClaudeAgentOptions:
    """Options running the CLI against the test's own scripted model, with no cassette (its
    stderr is the test's)."""
    monkeypatch.setenv(BASES[agent.provider], model.base + ("/api/v1/" if agent.provider == "openrouter" else ""))
    return ClaudeAgentOptions(cli_path=str(CLI), cwd=str(agent.workspace), **options)


def test_the_callback_is_asked_as_claude_code_asks(agent, model, monkeypatch, tmp_path):
    agent.settings(DEFAULT_MODE)
    outside = tmp_path / "outside"
    outside.mkdir()
    model.script(call("Write", file_path="out.txt", content="x\n"),
                 call("Bash", command="npm test"),
                 call("Bash", command=f"echo hi > {outside}/log.txt"), text("done"))
    callback = Callback(PermissionResultDeny(message="no"), PermissionResultDeny(message="no"),
                        PermissionResultDeny(message="no"))
    [messages] = converse(live_options(agent, model, monkeypatch, can_use_tool=callback), "Go")
    (write, write_input, first), (_, _, second), (_, _, third) = callback.asked
    ids = [block.id for m in messages if hasattr(m, "content") and isinstance(m.content, list)
           for block in m.content if hasattr(block, "name")]
    assert (write, write_input) == ("Write", {"file_path": "out.txt", "content": "x\n"})
    assert (first.display_name, first.description, first.tool_use_id) == ("Write", "out.txt", ids[0])
    assert [s.to_dict() for s in first.suggestions] == [{"type": "setMode", "mode": "acceptEdits", "destination": "session"}]
    assert first.blocked_path is None and first.agent_id is None
    assert (second.display_name, second.description, second.tool_use_id) == ("Bash", "npm test", ids[1])
    assert [s.to_dict() for s in second.suggestions] == [
        {"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "npm:*"}], "behavior": "allow",
         "destination": "localSettings"}]
    assert third.blocked_path == f"{outside}/log.txt"
    assert {"type": "addDirectories", "directories": [str(outside)], "destination": "session"} in [
        s.to_dict() for s in third.suggestions]


def test_a_deny_that_interrupts_ends_the_turn(agent, model, monkeypatch):
    agent.settings(DEFAULT_MODE)
    model.script(call("Bash", command="touch first.txt"), text("second turn answered"))
    callback = Callback(PermissionResultDeny(message="STOP-NOW", interrupt=True))
    first, second = converse(live_options(agent, model, monkeypatch, can_use_tool=callback),
                             "Touch it", "Say something")
    result = first[-1]
    assert isinstance(result, ResultMessage) and result.subtype == "error_during_execution" and result.is_error
    # the callback's refusal is the call's result (it never ran), then the user's interruption
    assert [(r["content"], r["is_error"]) for r in tool_results(first)] == [("STOP-NOW", True)]
    assert [d["tool_name"] for d in result.permission_denials] == ["Bash"]
    assert len(model.requests) == 2  # the interrupted turn asked the model nothing more
    assert second[-1].result == "second turn answered" and not (agent.workspace / "first.txt").exists()


def test_a_subagents_call_is_asked_with_its_agent_id(agent, model, monkeypatch):
    agent.settings(DEFAULT_MODE)
    task = "Write sub.txt with the word hi."
    model.route(task, call("Write", file_path="sub.txt", content="hi\n"), text("subagent done"))
    model.script(call("Agent", description="write sub.txt", prompt=task, subagent_type="general-purpose",
                      run_in_background=False), text("main done"))
    callback = Callback(PermissionResultAllow())
    [messages] = converse(live_options(agent, model, monkeypatch, can_use_tool=callback), "Delegate it")
    [(tool, _, context)] = callback.asked  # starting an agent needs no approval; its Write does
    assert tool == "Write"
    report = next(r["content"] for r in tool_results(messages) if "agentId:" in str(r["content"]))
    assert context.agent_id and f"agentId: {context.agent_id}" in str(report)
    assert (agent.workspace / "sub.txt").read_text() == "hi\n" and messages[-1].result == "main done"

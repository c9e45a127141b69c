"""A ClaudeSDKClient conversation with our CLI, on both wires: turns that share one conversation,
an interrupt during a long command (the turn ends, the command is killed, the session goes on),
and the SDK's control requests: set_model, set_permission_mode, mcp_status, get_context_usage, and
one we do not support, which the SDK raises."""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from claude_agent_sdk import (AssistantMessage, ClaudeSDKClient, ResultMessage, SystemMessage, TextBlock, ToolResultBlock,
                              ToolUseBlock, UserMessage)

from scripted_model import call, text
from sdk_session import payloads_in, sdk_options

HAIKU = {"openrouter": "anthropic/claude-haiku-4.5", "anthropic": "claude-haiku-4-5"}
SONNET = {"openrouter": "anthropic/claude-sonnet-4.5", "anthropic": "claude-sonnet-4-5"}


def converse(options, body):
    """Run `body(client)` inside one ClaudeSDKClient connection."""

    async def run():
        async with ClaudeSDKClient(options) as client:
            return await body(client)

    return asyncio.run(asyncio.wait_for(run(), 60))


async def turn(client, prompt):
    await client.query(prompt)
    return [message async for message in client.receive_response()]


def around(options, first: str, between, second: str):
    """Two turns of one conversation, with `between(client)` (a control request) awaited between them."""

    async def body(client):
        before = await turn(client, first)
        await between(client)
        return before, await turn(client, second)

    return converse(options, body)


def init_of(messages) -> dict:
    """The turn's `system/init` frame."""
    return next(m for m in messages if isinstance(m, SystemMessage) and m.subtype == "init").data


def answer(messages) -> str:
    return next(m for m in messages if isinstance(m, ResultMessage)).result


def test_two_turns_share_one_conversation(agent):
    agent.script(text("Noted: PLUM-4410."),
                 lambda request: text("You asked me to remember PLUM-4410." if "PLUM-4410" in request.raw else "No idea."))
    stderr: list[str] = []
    options, cassette = sdk_options(agent, stderr)

    async def body(client):
        return await turn(client, "Remember the word PLUM-4410."), await turn(client, "Which word did I ask you to remember?")

    first, second = converse(options, body)
    assert answer(first) == "Noted: PLUM-4410." and answer(second) == "You asked me to remember PLUM-4410.", stderr
    inits = [m for m in first + second if isinstance(m, SystemMessage) and m.subtype == "init"]
    assert len(inits) == 2 and inits[0].data["session_id"] == inits[1].data["session_id"]  # one per turn, one session
    results = [m for m in first + second if isinstance(m, ResultMessage)]
    assert [r.num_turns for r in results] == [1, 1] and results[1].total_cost_usd >= results[0].total_cost_usd
    payloads = payloads_in(cassette)
    assert len(payloads) == 2
    assert "Remember the word PLUM-4410." in json.dumps(payloads[1]["messages"])
    assert "Noted: PLUM-4410." in json.dumps(payloads[1]["messages"])


def test_an_interrupt_stops_a_long_command_and_the_session_goes_on(agent):
    agent.script(text("Ready."),
                 call("Bash", command="sleep 20 && touch finished.txt"),
                 lambda request: text("Still here." if "Ready." in request.raw and "sleep 20" not in request.raw
                                      else "the interrupted turn was kept"))
    stderr: list[str] = []
    options, cassette = sdk_options(agent, stderr, allowed_tools=["Bash"])

    async def body(client):
        before = await turn(client, "Get ready.")
        await client.query("Run the long job.")
        stopped, started = [], time.monotonic()
        async for message in client.receive_response():
            stopped.append(message)
            if isinstance(message, AssistantMessage) and any(isinstance(b, ToolUseBlock) for b in message.content):
                await asyncio.sleep(0.5)  # the command is running by now
                await client.interrupt()
        took = time.monotonic() - started
        return before, stopped, took, await turn(client, "Are you still there?")

    before, stopped, took, after = converse(options, body)
    assert answer(before) == "Ready.", stderr
    result = stopped[-1]
    assert isinstance(result, ResultMessage) and result.subtype == "error_during_execution" and result.is_error
    assert took < 10  # the sleep was killed, not waited for
    said = [b.text for m in stopped if isinstance(m, UserMessage) and isinstance(m.content, list)
            for b in m.content if isinstance(b, TextBlock)]
    refusals = [b.content for m in stopped if isinstance(m, UserMessage) and isinstance(m.content, list)
                for b in m.content if isinstance(b, ToolResultBlock)]
    if agent.recording:  # the model's call ran, and the interrupt answered it as Claude Code does
        assert said == ["[Request interrupted by user for tool use]"]
        assert len(refusals) == 1 and refusals[0].startswith("The user doesn't want to proceed with this tool use.")
    else:  # the turn is not in the cassette: its replay ends it as the interrupt did, sending nothing
        assert said == ["[Request interrupted by user]"] and refusals == []
    time.sleep(0.3)
    assert not (agent.workspace / "finished.txt").exists()
    assert answer(after) == "Still here."
    # the interrupted turn is not in the conversation the next turn continues, nor in the cassette
    payloads = payloads_in(cassette)
    assert len(payloads) == 2 and "sleep 20" not in json.dumps(payloads)
    # a user's replay sends the two prompts that finished
    elsewhere = agent.workspace.parent / "elsewhere"
    elsewhere.mkdir()
    run = agent.replay(cwd=elsewhere)
    assert run.exit_code == 0 and run.stdout == "Still here.\n", run.stderr
    # the cassette notes the interrupted turn; a note in another shape is refused before anything runs
    recorded = cassette.read_text()
    assert "interrupted:\n  - after: 1\n    prompt: Run the long job.\n" in recorded
    bad = agent.workspace.parent / "bad.yaml"
    bad.write_text(recorded.replace("  - after: 1\n", "  - after: -1\n"))
    run = agent.replay(cassette=bad, cwd=elsewhere)
    assert run.exit_code == 2 and run.stdout == "" and "`interrupted` must be a list of turns" in run.stderr


def test_set_model_names_the_next_request(agent):
    agent.allow_any_model()
    agent.script(text("first"), text("second"))
    stderr: list[str] = []
    options, cassette = sdk_options(agent, stderr)
    first, second = around(options, "Answer on the first model.", lambda client: client.set_model("sonnet"),
                           "Answer on the second model.")
    assert answer(first) == "first" and answer(second) == "second", stderr
    assert [p["model"] for p in payloads_in(cassette)] == [HAIKU[agent.provider], SONNET[agent.provider]]
    assert init_of(second)["model"] == SONNET[agent.provider]


def test_set_permission_mode_applies_to_the_next_call(agent):
    agent.script(call("Write", file_path="kept.txt", content="one\n"), text("wrote kept.txt"),
                 call("Write", file_path="refused.txt", content="two\n"),
                 lambda request: text(request.tool_results()[0][:60]))
    stderr: list[str] = []
    options, _ = sdk_options(agent, stderr)
    first, second = around(options, "Write kept.txt.", lambda client: client.set_permission_mode("plan"),
                           "Write refused.txt.")
    assert answer(first) == "wrote kept.txt", stderr
    assert (agent.workspace / "kept.txt").read_text() == "one\n" and not (agent.workspace / "refused.txt").exists()
    assert init_of(second)["permissionMode"] == "plan"
    denied = next(m for m in second if isinstance(m, ResultMessage)).permission_denials
    assert [d["tool_name"] for d in denied] == ["Write"]


def test_status_and_context_usage_and_an_unsupported_request(agent):
    agent.script(text("Hello there."))
    stderr: list[str] = []
    options, _ = sdk_options(agent, stderr)

    async def body(client):
        status = await client.get_mcp_status()
        said = await turn(client, "Say hello.")
        usage = await client.get_context_usage()
        with pytest.raises(Exception, match="Unsupported control request subtype: rewind_files"):
            await client.rewind_files("a-user-message-id")
        return status, said, usage, await client.get_server_info()

    status, said, usage, info = converse(options, body)
    assert status == {"mcpServers": []}, stderr
    assert answer(said) == "Hello there."
    names = [c["name"] for c in usage["categories"]]
    assert "System prompt" in names and "System tools" in names and "Messages" in names
    assert usage["totalTokens"] == sum(c["tokens"] for c in usage["categories"]) and usage["maxTokens"] > usage["totalTokens"]
    assert usage["model"] == HAIKU[agent.provider]
    assert info["claude_code_version"] and "general-purpose" in [a["name"] for a in info["agents"]]


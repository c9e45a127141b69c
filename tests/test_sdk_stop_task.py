"""The Agent SDK's `stop_task` (ClaudeSDKClient.stop_task), on both wires: a background agent the
application stops is reported as killed at once (a task_updated line) and its notification tells
the model it was stopped, without its report, as TaskStop's does; an id that names no task is
Claude Code's error; and while recording or replaying, where the application's timing rather
than the model's would decide what the model is told, the request is refused."""

from __future__ import annotations

import asyncio
import json

import pytest
from claude_agent_sdk import ClaudeAgentOptions, ClaudeSDKClient, ResultMessage, SystemMessage

from pty_session import PROVIDER_VARIABLES
from scripted_model import call, text
from sdk_session import CLI, sdk_options

WIRES = pytest.mark.parametrize("provider", ["openrouter", "anthropic"])


def told(request):
    """The main conversation's answer: the status its agent's notification gave."""
    last = json.dumps(request.messages[-1])
    status = last.split("<status>")[1].split("</status>")[0] if "<status>" in last else "none"
    return text(f"Status {status}; report {'kept' if 'counted them' in last else 'dropped'}.")


async def stopping_each_launch(client, prompt: str, stops: list):
    """One turn in which every task_started is answered with stop_task; its messages."""
    await client.query(prompt)
    seen = []
    async for message in client.receive_response():
        seen.append(message)
        if isinstance(message, SystemMessage) and message.subtype == "task_started":
            try:
                await client.stop_task(message.data["task_id"])
                stops.append("stopped")
            except Exception as error:  # the SDK raises the CLI's error answer
                stops.append(str(error))
    return seen


@WIRES
def test_stop_task_stops_a_background_agent_and_the_model_is_told_it_was_killed(model, tmp_path, provider):
    model.script(call("Agent", description="Count files", prompt="TASK: count the files."), text("Waiting."), told)
    model.route("TASK: count the files.", text("I counted them: 3.", delay_s=2))
    workspace, home = tmp_path / "work", tmp_path / "home"
    workspace.mkdir()
    home.mkdir()
    options = ClaudeAgentOptions(cli_path=str(CLI), cwd=str(workspace), env={
        "HOME": str(home), "AGENT_PROVIDER": provider, **PROVIDER_VARIABLES[provider](model.base)})
    stops: list = []

    async def body():
        async with ClaudeSDKClient(options) as client:
            return await stopping_each_launch(client, "Count the files in the background.", stops)

    messages = asyncio.run(asyncio.wait_for(body(), 60))
    assert stops == ["stopped"]
    updates = [m.data for m in messages if isinstance(m, SystemMessage) and m.subtype == "task_updated"]
    assert updates and updates[0]["patch"] == {"status": "killed"}
    notices = [m.data for m in messages if isinstance(m, SystemMessage) and m.subtype == "task_notification"]
    assert [n["status"] for n in notices] == ["stopped"]
    assert next(m for m in messages if isinstance(m, ResultMessage)).result == "Status killed; report dropped."


def test_stop_task_is_refused_while_recording_and_the_replay_answers_alike(agent):
    agent.script(call("Agent", description="Count files", prompt="TASK: count the files."), text("Waiting."), told)
    agent.route("TASK: count the files.", text("I counted them: 3."))
    options, _ = sdk_options(agent)
    stops: list = []

    async def body():
        async with ClaudeSDKClient(options) as client:
            return await stopping_each_launch(client, "Count the files in the background.", stops)

    messages = asyncio.run(asyncio.wait_for(body(), 60))
    assert len(stops) == 1 and "stop_task is not available while recording or replaying" in stops[0]
    assert next(m for m in messages if isinstance(m, ResultMessage)).result == "Status completed; report kept."

"""What the Agent SDK is told about a subagent, as Claude Code tells it, on both wires: after the
model's Agent call `task_started`, the agent's own messages under the call's parent_tool_use_id,
then `task_progress`, `task_updated {patch: {status}}` and `task_notification` (the report as its
summary), then the call's result with its agentId line and `tool_use_result`. A background agent
is told once; parallel agents each end their own task; a failing agent's task fails."""

from __future__ import annotations

import re

from claude_agent_sdk import (AgentDefinition, AssistantMessage, ResultMessage, SystemMessage, TaskNotificationMessage,
                              TaskStartedMessage, ToolResultBlock, ToolUseBlock, UserMessage)

from scripted_model import Call, call, calls, fail, text, unframed
from sdk_session import sdk_query

COUNTER = {"counter": AgentDefinition(description="Counts things.", prompt="You count files.", tools=["Glob", "Bash"])}
REPORT = "COUNT-2290: 2 files, 1 line in a.txt."


def kind(message) -> str:
    """What a message is, in the words of the order the frames come in."""
    if isinstance(message, SystemMessage):
        return message.subtype
    if isinstance(message, ResultMessage):
        return "result"
    if getattr(message, "parent_tool_use_id", None):
        return "inside"
    if isinstance(message, UserMessage) and isinstance(message.content, list) and any(
            isinstance(b, ToolResultBlock) for b in message.content):
        return "call result"
    return "assistant" if isinstance(message, AssistantMessage) else type(message).__name__


def said(message) -> str:
    """The text of a user message (its content, or its text blocks joined)."""
    content = message.content
    return content if isinstance(content, str) else "".join(getattr(b, "text", "") for b in content)


def of_kind(run, wanted: str) -> list:
    return [m for m in run.messages if kind(m) == wanted]


def test_a_foreground_agent_is_told_as_claude_code_tells_it(agent):
    agent.write("a.txt", "one line\n")
    agent.write("b.txt", "")
    agent.script(call("Agent", description="Count the files", prompt="Count the files here.", subagent_type="counter",
                      run_in_background=False))
    agent.route("Count the files here.", call("Glob", pattern="*.txt"), call("Bash", command="wc -l < a.txt"), text(REPORT))
    agent.script(lambda request: text(request.reports()[0].split("\nagentId:")[0]))
    run = sdk_query(agent, "How many files are here?", allowed_tools=["Agent", "Glob", "Bash"], agents=COUNTER)
    assert run.error is None, run.stderr
    agent_call = of_kind(run, "assistant")[0].content[0]
    assert isinstance(agent_call, ToolUseBlock) and agent_call.name == "Agent"
    inside = of_kind(run, "inside")
    # its prompt, Glob and its result, Bash and its result, its report
    assert [kind(m) for m in run.messages] == ["init", "assistant", "task_started", *["inside"] * 6, "task_progress",
                                               "task_updated", "task_notification", "call result", "assistant", "result"]
    assert {m.parent_tool_use_id for m in inside} == {agent_call.id}
    assert said(inside[0]) == "Count the files here."
    started = of_kind(run, "task_started")[0]
    assert isinstance(started, TaskStartedMessage) and started.tool_use_id == agent_call.id
    assert started.task_type == "local_agent" and started.description == "Count the files"
    assert started.data["subagent_type"] == "counter" and started.data["is_backgrounded"] is False
    assert started.data["prompt"] == "Count the files here."
    progress = of_kind(run, "task_progress")[0]
    assert progress.task_id == started.task_id and progress.data["last_tool_name"] == "Bash"
    assert progress.data["usage"]["tool_uses"] == 2 and progress.data["usage"]["total_tokens"] > 0
    assert of_kind(run, "task_updated")[0].data["patch"] == {"status": "completed"}
    ended = of_kind(run, "task_notification")[0]
    assert isinstance(ended, TaskNotificationMessage) and ended.task_id == started.task_id
    assert ended.status == "completed" and ended.summary == REPORT and ended.tool_use_id == agent_call.id
    handed_back = of_kind(run, "call result")[0]
    block = handed_back.content[0]
    assert block.tool_use_id == agent_call.id and unframed(block.content).startswith(REPORT)  # under the hand-back header
    assert re.search(r"agentId:\s*([\w-]+)", block.content).group(1) == started.task_id  # the seed's own regex
    used = handed_back.tool_use_result
    assert used["status"] == "completed" and used["agentId"] == started.task_id and used["agentType"] == "counter"
    assert used["toolsUsed"] == ["Glob", "Bash"] and used["totalToolUseCount"] == 2
    assert used["totalTokens"] == progress.data["usage"]["total_tokens"]
    assert used["resolvedModel"] == run.payloads[1]["model"] and used["content"] == [{"type": "text", "text": REPORT}]
    assert run.result.result == REPORT


def test_parallel_agents_each_end_their_own_task(agent):
    agent.script(calls(Call("Agent", {"description": "left", "prompt": "Say LEFT-1.", "run_in_background": False}),
                       Call("Agent", {"description": "right", "prompt": "Say RIGHT-2.", "run_in_background": False})))
    agent.route("Say LEFT-1.", text("LEFT-1"))
    agent.route("Say RIGHT-2.", text("RIGHT-2"))
    agent.script(text("both said"))
    run = sdk_query(agent, "Ask two agents at once.", allowed_tools=["Agent"])
    assert run.error is None, run.stderr
    started = {m.data["description"]: m for m in of_kind(run, "task_started")}
    ended = {m.task_id: m for m in of_kind(run, "task_notification")}
    assert sorted(started) == ["left", "right"] and len(ended) == 2
    assert ended[started["left"].task_id].summary == "LEFT-1" and ended[started["right"].task_id].summary == "RIGHT-2"
    assert [kind(m) for m in run.messages][-3:] == ["call result", "assistant", "result"]
    assert of_kind(run, "call result")[0].tool_use_result is None  # one frame carries both results


def test_a_background_agent_is_told_once(agent):
    agent.script(call("Agent", description="Count files", prompt="Count the files here.", subagent_type="counter"))
    agent.route("Count the files here.", call("Glob", pattern="*"), text("COUNT-6610: no files."))
    agent.script(text("Waiting for the counter."),
                 lambda request: text("The counter says: COUNT-6610" if "COUNT-6610" in request.raw else "no report"))
    run = sdk_query(agent, "Count the files in the background.", allowed_tools=["Agent", "Glob"], agents=COUNTER)
    assert run.error is None, run.stderr
    started, ended = of_kind(run, "task_started"), of_kind(run, "task_notification")
    assert len(started) == 1 and started[0].data["is_backgrounded"] is True
    assert len(ended) == 1 and ended[0].task_id == started[0].task_id and ended[0].status == "completed"
    assert of_kind(run, "task_updated") == []  # a foreground agent's closing frames are not sent for it
    launch = of_kind(run, "call result")[0]
    assert launch.tool_use_result == {"status": "async_launched", "agentId": started[0].task_id,
                                      "description": "Count files", "prompt": "Count the files here."}
    inside = of_kind(run, "inside")  # its own messages are forwarded, its prompt first
    assert inside and said(inside[0]) == "Count the files here."
    assert run.result.result == "The counter says: COUNT-6610"


def test_a_failing_agent_is_a_failed_task(agent):
    agent.script(call("Agent", description="Doomed", prompt="Try the impossible.", run_in_background=False))
    agent.route("Try the impossible.", fail(400, "FAIL-9107: this request is refused"))
    agent.script(lambda request: text("the agent failed" if "FAIL-9107" in request.raw else "?"))
    run = sdk_query(agent, "Try it.", allowed_tools=["Agent"])
    assert run.error is None, run.stderr
    ended = of_kind(run, "task_notification")[0]
    assert ended.status == "failed" and "FAIL-9107" in ended.summary
    assert of_kind(run, "task_updated")[0].data["patch"] == {"status": "failed"}
    handed_back = of_kind(run, "call result")[0]
    assert handed_back.content[0].is_error and handed_back.tool_use_result is None
    assert run.result.result == "the agent failed"

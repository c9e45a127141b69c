"""The Agent SDK drives the agent over --input-format stream-json: a query's messages as the SDK
types them, a ClaudeSDKClient conversation over several turns, and the control requests."""

from __future__ import annotations

import json

from claude_agent_sdk import AssistantMessage, ResultMessage, SystemMessage, TextBlock, ToolUseBlock, UserMessage

from scripted_model import call, fail, text
from sdk_session import sdk_query


def test_a_query_yields_init_messages_and_a_result(agent):
    agent.script(call("Bash", command="echo hi-from-bash"), text("all done"))
    run = sdk_query(agent, "Say hello", allowed_tools=["Bash"])
    assert run.error is None, run.stderr
    init = run.messages[0]
    assert isinstance(init, SystemMessage) and init.subtype == "init"
    assert init.data["claude_code_version"] and "Bash" in init.data["tools"]
    assert "Task" in init.data["tools"] and "Agent" not in init.data["tools"]  # Claude Code's name for it there
    calls = [b for m in run.messages if isinstance(m, AssistantMessage) for b in m.content if isinstance(b, ToolUseBlock)]
    assert [c.input["command"] for c in calls] == ["echo hi-from-bash"]
    outputs = [m for m in run.messages if isinstance(m, UserMessage)]
    assert "hi-from-bash" in str(outputs[0].content[0].content)
    texts = [b.text for m in run.messages if isinstance(m, AssistantMessage) for b in m.content if isinstance(b, TextBlock)]
    assert texts == ["all done"]
    result = run.result
    assert isinstance(result, ResultMessage) and result.subtype == "success" and result.result == "all done"
    assert result.num_turns == 2 and result.session_id == init.data["session_id"] and not result.is_error
    assert len(run.payloads) == 2 and "Say hello" in json.dumps(run.payloads[0]["messages"])


def test_a_provider_error_ends_the_session_as_claude_code_tells_the_sdk(agent):
    agent.script(fail(400, "the request was malformed"))
    run = sdk_query(agent, "Say hello")
    said = [b.text for m in run.messages if isinstance(m, AssistantMessage) for b in m.content if isinstance(b, TextBlock)]
    assert len(said) == 1 and said[0].startswith("API Error: ") and "malformed" in said[0]
    result = run.result
    assert result.is_error and result.subtype == "success" and result.result == said[0]
    assert "exit code: 1" in str(run.error)  # the SDK raises after the error result, as with Claude Code

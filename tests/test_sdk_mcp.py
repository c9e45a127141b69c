"""The Agent SDK's in-process MCP servers (`create_sdk_mcp_server` with `@tool`): the SDK passes
`--mcp-config {"mcpServers": {"kb": {"type": "sdk", "name": "kb"}}}` and the agent reaches the
server through `mcp_message` requests, so its tools are offered, called, listed and recorded as
any MCP server's. Recorded once, replayed through the SDK (the tool runs again) and with
--replay-tools (no server is reached: the cassette answers)."""

from __future__ import annotations

import asyncio
import json

from claude_agent_sdk import ClaudeSDKClient, SystemMessage, UserMessage, create_sdk_mcp_server, tool

from scripted_model import call, text
from sdk_replays import REPLAY_TOOLS, prompt, replay_options, replay_query, sent_to_model, tool_results
from sdk_session import sdk_options, sdk_query

ANSWER = "The code of alpha is MCPCODE-8432-alpha."


def knowledge_base(calls: list[str]):
    """An SDK MCP server `kb` with one tool, lookup_code, that notes each call in `calls`."""
    @tool("lookup_code", "Look up the code of a named item.", {"item": str})
    async def lookup_code(arguments):
        calls.append(arguments["item"])
        return {"content": [{"type": "text", "text": f"MCPCODE-8432-{arguments['item']}"}]}

    return {"kb": create_sdk_mcp_server("kb", tools=[lookup_code])}


def test_the_model_calls_an_sdk_mcp_tool(agent):
    agent.script(call("mcp__kb__lookup_code", item="alpha"), text(ANSWER))
    calls: list[str] = []
    options = {"mcp_servers": knowledge_base(calls), "allowed_tools": ["mcp__kb__lookup_code"]}
    run = sdk_query(agent, prompt("What is the code of alpha?"), **options)
    assert run.error is None, "\n".join(run.stderr)
    assert calls == ["alpha"]
    init = next(m for m in run.messages if isinstance(m, SystemMessage) and m.subtype == "init")
    assert {"name": "kb", "status": "connected"} in init.data["mcp_servers"]
    assert "mcp__kb__lookup_code" in init.data["tools"]
    assert "MCPCODE-8432-alpha" in tool_results(run) and "MCPCODE-8432-alpha" in sent_to_model(run)
    offered = json.dumps(run.payloads[0].get("tools"))
    assert "mcp__kb__lookup_code" in offered and "Look up the code of a named item." in offered
    assert run.result.result == ANSWER

    calls.clear()  # through the SDK again: the tool runs again
    again = replay_query(agent, run.cassette, prompt("What is the code of alpha?"), **options)
    assert again.error is None, "\n".join(again.stderr)
    assert calls == ["alpha"] and again.result.result == ANSWER

    calls.clear()  # with --replay-tools no server is reached: the recorded tools and their result answer
    offline = replay_query(agent, run.cassette, prompt("What is the code of alpha?"), REPLAY_TOOLS, **options)
    assert offline.error is None, "\n".join(offline.stderr)
    assert calls == [] and "MCPCODE-8432-alpha" in tool_results(offline) and offline.result.result == ANSWER


def test_mcp_status_lists_the_sdk_server_and_its_tools(agent):
    agent.script(call("mcp__kb__lookup_code", item="beta"), text("beta is MCPCODE-8432-beta"))
    calls: list[str] = []
    stderr: list[str] = []
    servers = knowledge_base(calls)

    async def converse(options):
        async with ClaudeSDKClient(options) as client:
            status = await client.get_mcp_status()
            await client.query("What is the code of beta?")
            said = [message async for message in client.receive_response()]
        return status, said

    built, cassette = sdk_options(agent, stderr, mcp_servers=servers, allowed_tools=["mcp__kb__lookup_code"])
    status, said = asyncio.run(asyncio.wait_for(converse(built), 60))
    kb = [server for server in status["mcpServers"] if server["name"] == "kb"]
    assert kb and kb[0]["status"] == "connected", status
    assert [t["name"] for t in kb[0]["tools"]] == ["mcp__kb__lookup_code"]
    assert calls == ["beta"]
    assert "MCPCODE-8432-beta" in json.dumps([m.content for m in said if isinstance(m, UserMessage)], default=str)

    calls.clear()  # offline, nothing started: the recorded server is still listed as it was
    offline = replay_options(agent, cassette, stderr, REPLAY_TOOLS, mcp_servers=servers,
                             allowed_tools=["mcp__kb__lookup_code"])
    status, said = asyncio.run(asyncio.wait_for(converse(offline), 60))
    assert [s["status"] for s in status["mcpServers"] if s["name"] == "kb"] == ["connected"]
    assert calls == [] and "MCPCODE-8432-beta" in json.dumps([m.content for m in said if isinstance(m, UserMessage)],
                                                             default=str)


def test_an_sdk_server_without_the_sdk_fails_to_start_with_one_warning(agent):
    agent.script(text("no tools here"))
    run = agent.run("Hello", "--mcp-config", json.dumps({"mcpServers": {"kb": {"type": "sdk", "name": "kb"}}}))
    assert run.exit_code == 0, run.stderr
    warned = [line for line in run.stderr.splitlines() if "kb" in line]
    assert len(warned) == 1 and "MCP server kb failed to start" in warned[0] and "no Agent SDK is connected" in warned[0]
    assert "mcp__kb" not in json.dumps(run.payloads)

"""MCP servers: their tools offered as mcp__<server>__<tool>, called through the official SDK."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from scripted_model import Call, calls, text

SERVERS = Path(__file__).resolve().parent / "mcp_servers"


def kb_config(log: Path) -> str:
    """--mcp-config JSON for the knowledge-base test server over stdio, logging its calls to `log`."""
    return json.dumps({"mcpServers": {"kb": {"command": sys.executable, "args": [str(SERVERS / "knowledge_base.py")],
                                             "env": {"KB_CALL_LOG": str(log)}}}})


def echo_results(request):
    return text("\n".join(request.tool_results()))


def test_a_stdio_servers_tool_is_offered_and_called(agent, tmp_path):
    log = tmp_path / "calls.log"
    agent.script(calls(Call("mcp__kb__lookup", {"name": "alpha"})), echo_results)
    run = agent.run("Look up alpha.", "--mcp-config", kb_config(log))
    assert run.exit_code == 0, run.stderr
    assert run.stdout.strip() == "the code for alpha is 518"
    tools = [t.get("name") or t["function"]["name"] for t in run.payloads[0]["tools"]]
    assert "mcp__kb__lookup" in tools and "mcp__kb__add" in tools
    assert log.read_text() == "lookup alpha\n"

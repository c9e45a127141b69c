"""MCP servers over streamable HTTP (`type: http`, `url`, `headers`) and SSE (`type: sse`): each
test server is served on a free port of 127.0.0.1 by a fixture, for the recording and its replay
alike (a replay runs the servers for real, as it runs tools)."""

from __future__ import annotations

import contextlib

import pytest

from mcp_servers import call_id, listening, mcp_config, tool_results
from scripted_model import Call, calls, text


@pytest.fixture
def served(tmp_path):
    """A function serving the knowledge base over a transport; it logs its HTTP requests to
    tmp_path / "http.log" and its calls to tmp_path / "calls.log"."""
    with contextlib.ExitStack() as servers:
        yield lambda transport: servers.enter_context(listening(
            "knowledge_base.py", transport, tmp_path, MCP_TEST_LOG=str(tmp_path / "http.log"),
            KB_CALL_LOG=str(tmp_path / "calls.log")))


def look_up_and_add(agent, config: str):
    agent.script(calls(Call("mcp__kb__lookup", {"name": "alpha"})), calls(Call("mcp__kb__add", {"a": 2, "b": 3})),
                 lambda request: text("answers seen"))
    return agent.run("Look up alpha, then add 2 and 3.", "--mcp-config", config)


def test_a_streamable_http_server_gets_its_header_on_every_post_and_its_session_closed(agent, served, tmp_path,
                                                                                      monkeypatch):
    monkeypatch.setenv("KB_TOKEN", "sesame")
    url = served("streamable-http")
    run = look_up_and_add(agent, mcp_config(kb={"type": "http", "url": url, "headers": {"X-Test-Token": "${KB_TOKEN}"}}))
    assert (run.exit_code, run.stdout.strip()) == (0, "answers seen"), run.stderr
    assert tool_results(run.payloads[1]) == [("the code for alpha is 518", False)]
    assert tool_results(run.payloads[2]) == [("5", False)]
    assert (tmp_path / "calls.log").read_text() == "lookup alpha\nadd 2 3\n"
    log = (tmp_path / "http.log").read_text().splitlines()
    posts = [line for line in log if line.startswith("POST")]
    methods = [line for line in log if not line.startswith(("POST", "GET", "DELETE"))]
    # the MCP requests, each its own POST, all with the header as expanded from the environment
    assert methods[:3] == ["initialize", "tools/list", "tools/call lookup " + call_id(run.payloads[1])]
    assert len(posts) >= 4 and set(posts) == {"POST sesame"}
    assert log[-1] == "DELETE sesame"  # the session closed as the run ended


def test_an_sse_server_is_reached_with_its_headers(agent, served, tmp_path):
    url = served("sse")
    run = look_up_and_add(agent, mcp_config(kb={"type": "sse", "url": url, "headers": {"X-Test-Token": "old-style"}}))
    assert (run.exit_code, run.stdout.strip()) == (0, "answers seen"), run.stderr
    assert tool_results(run.payloads[1]) == [("the code for alpha is 518", False)]
    assert tool_results(run.payloads[2]) == [("5", False)]
    log = (tmp_path / "http.log").read_text().splitlines()
    assert log[0] == "GET old-style"  # the event stream, then each message as a POST
    assert {line for line in log if line.startswith("POST")} == {"POST old-style"}


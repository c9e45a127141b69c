"""MCP servers: their tools offered as mcp__<server>__<tool> and called through the official SDK;
every kind of result given back to the model; names valid on both wires; a hostile tool list or
a flood of stderr kept bounded. (Transports: test_mcp_transports; timeouts, failures and
stopping: test_mcp_lifecycle.)"""

from __future__ import annotations

import json
import re
from pathlib import Path

from mcp_servers import call_id, mcp_config, stdio, tool_results
from scripted_model import Call, calls, text

VALID_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")  # what both wires accept for a tool's name


def kb_config(log: Path, **env: str) -> str:
    """--mcp-config JSON for the knowledge-base test server over stdio, logging its calls to `log`."""
    return mcp_config(kb=stdio("knowledge_base.py", KB_CALL_LOG=str(log), **env))


def echo_results(request):
    return text("\n".join(request.tool_results()))


def offered(run, server: str = "") -> dict[str, dict]:
    """The MCP tools the run's first request offered (of `server`, or all), by name: each as the
    wire holds it (description, schema)."""
    tools = {}
    for tool in run.payloads[0]["tools"]:
        definition = tool.get("function", tool)
        if definition["name"].startswith(f"mcp__{server}"):
            tools[definition["name"]] = definition
    return tools


def schema(definition: dict) -> dict:
    return definition.get("input_schema") or definition.get("parameters")


def test_a_stdio_servers_tool_is_offered_and_called(agent, tmp_path):
    log, requests = tmp_path / "calls.log", tmp_path / "requests.log"
    agent.script(calls(Call("mcp__kb__lookup", {"name": "alpha"})), echo_results)
    run = agent.run("Look up alpha.", "--mcp-config", kb_config(log, MCP_TEST_LOG=str(requests)))
    assert run.exit_code == 0, run.stderr
    assert run.stdout.strip() == "the code for alpha is 518"
    tools = offered(run)
    assert list(tools) == ["mcp__kb__lookup", "mcp__kb__add"]
    assert tools["mcp__kb__lookup"]["description"] == "Look up the code stored under a name."
    assert schema(tools["mcp__kb__add"])["required"] == ["a", "b"]  # the server's own schema
    assert log.read_text() == "lookup alpha\n"
    # initialize, then the tool list, then the call with the model's tool_use id (as Claude Code sends it)
    assert requests.read_text().splitlines() == ["initialize", "tools/list", f"tools/call lookup {call_id(run.payloads[1])}"]


def test_every_kind_of_result_is_given_back_to_the_model(agent, monkeypatch):
    """Several text blocks, structured content alone, an image (a placeholder: our tool results
    are text), an error result, a tool that raised, and a result over MAX_MCP_OUTPUT_TOKENS."""
    monkeypatch.setenv("MAX_MCP_OUTPUT_TOKENS", "500")  # 2,000 characters
    names = ["several", "structured", "picture", "refuse", "broken"]
    agent.script(calls(*[Call(f"mcp__results__{name}", {}) for name in names],
                       Call("mcp__results__huge", {"lines": 400})), text("done"))
    run = agent.run("Try every tool.", "--mcp-config", mcp_config(results=stdio("results.py")))
    assert (run.exit_code, run.stdout.strip()) == (0, "done"), run.stderr
    several, structured, picture, refuse, broken, huge = tool_results(run.payloads[-1])
    assert several == ("first block\nsecond block", False)
    assert (json.loads(structured[0]), structured[1]) == ({"code": 518, "names": ["alpha", "beta"]}, False)
    assert picture == ("[image (image/png, 70 bytes): not shown to the model]", False)
    assert refuse == ("no record of that", True)
    assert broken == ("Error executing tool broken", True)  # the server's own words for it
    body, is_error = huge
    assert not is_error and len(body) < 2100
    assert body.startswith("line 000000 ") and body.endswith("line 000399 " + "x" * 28 + "\n")
    assert re.search(r"\n\[\.\.\. \d+ characters dropped \.\.\.\]\n", body)  # cut in the middle


def test_names_are_made_valid_for_both_wires_as_claude_code_makes_them(agent, tmp_path):
    agent.script(calls(Call("mcp__my-srv_v2__lookup", {"name": "beta"})), echo_results)
    run = agent.run("Look up beta.", "--mcp-config",
                    mcp_config(**{"my-srv.v2": stdio("knowledge_base.py", KB_CALL_LOG=str(tmp_path / "log"))}))
    assert run.exit_code == 0, run.stderr
    assert list(offered(run)) == ["mcp__my-srv_v2__lookup", "mcp__my-srv_v2__add"]
    assert run.stdout.strip() == "the code for beta is 412"


def test_a_hostile_tool_list_stays_bounded(agent):
    """Thousands of tools, a huge description, a schema nested 150 deep, schemas that are not
    JSON objects, two names that clean to one: the server still works, within bounds."""
    agent.script(calls(Call("mcp__hostile__nullable", {"note": None}), Call("mcp__hostile__a_b", {})), echo_results)
    run = agent.run("Use the odd server.", "--mcp-config", mcp_config(hostile=stdio("hostile.py")))
    assert run.exit_code == 0, run.stderr
    tools = offered(run, "hostile")
    assert len(tools) == 499  # the first 500 usable ones, less the second of the two a_b
    assert all(VALID_NAME.match(name) for name in tools)
    assert {"mcp__hostile__look_up_" + "x" * 42, "mcp__hostile__w_rter_z_hlen"} <= set(tools)
    assert not {"mcp__hostile__deep", "mcp__hostile__text_schema", "mcp__hostile__list_props"} & set(tools)
    wordy = tools["mcp__hostile__wordy"]["description"]
    assert wordy == "W" * 16_384 + "… [truncated]"  # where and how Claude Code cuts a description
    assert tools["mcp__hostile__a_b"]["description"] == "The dotted one, listed first."
    assert run.stdout.strip().splitlines() == ["called nullable with [('note', None)]", "called a.b with []"]
    warnings = [line for line in run.stderr.splitlines() if "MCP server hostile" in line]
    assert len(warnings) == 2, warnings
    assert all(name in warnings[0] for name in ("deep", "text_schema", "list_props", "past the first 500"))
    assert "'a_b' is not offered: another tool is already named mcp__hostile__a_b" in warnings[1]


def test_a_noisy_server_keeps_working_within_bounds_and_without_tracebacks(agent, tmp_path):
    """A server that prints a banner on stdout (where only JSON-RPC belongs) and floods stderr."""
    agent.script(calls(Call("mcp__kb__lookup", {"name": "alpha"})), echo_results)
    config = kb_config(tmp_path / "log", MCP_TEST_BANNER="Knowledge base ready", MCP_TEST_STDERR_BYTES=str(8 << 20))
    run = agent.run("Look up alpha.", "--mcp-config", config)
    assert (run.exit_code, run.stdout.strip()) == (0, "the code for alpha is 518"), run.stderr[-2000:]
    assert run.stderr == ""
    agent.script(calls(Call("mcp__kb__lookup", {"name": "alpha"})), echo_results)
    verbose = agent.run("Look up alpha.", "--verbose", "--mcp-config", config)
    assert verbose.exit_code == 0, verbose.stderr[-2000:]
    assert "MCP server kb stderr:" in verbose.stderr and "flood end" in verbose.stderr
    assert len(verbose.stderr) < 100_000  # of the 8 MB it wrote: only its end is kept
    (banner,) = [line for line in verbose.stderr.splitlines() if "MCP SDK" in line]
    assert "Failed to parse JSONRPC message from server" in banner and "Traceback" not in verbose.stderr

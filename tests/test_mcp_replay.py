"""MCP sessions recorded and replayed: a recording keeps each server's tool list (in the setup) and
each call with its result (with the tool runs); --replay-tools starts no server and answers every
call from the cassette, in any folder; a plain --replay starts the servers and drifts, naming the
server, when their tools changed; `cassette show` and `check` read MCP cassettes; stream-json's
init line lists the servers; a run without servers never loads the SDK. On both wire formats."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from datetime import date
from pathlib import Path

import yaml

from scripted_model import Call, calls, text
from test_cassette_reading import cassette
from test_mcp import echo_results, kb_config

REPO = Path(__file__).resolve().parent.parent
STREAM = ("--output-format", "stream-json", "--verbose")


def record_lookup(agent, log: Path, *flags: str):
    """Record (or replay) a run in which the model calls the kb server's lookup once."""
    agent.script(calls(Call("mcp__kb__lookup", {"name": "alpha"})), echo_results)
    run = agent.run("Look up alpha.", *flags)
    assert run.exit_code == 0, run.stderr
    assert run.stdout.strip() == "the code for alpha is 518"
    return run


def elsewhere(tmp_path: Path) -> Path:
    """Another folder, with no .mcp.json."""
    folder = tmp_path / "elsewhere"
    folder.mkdir(exist_ok=True)
    return folder


def edited_copy(source: Path, target: Path, edit) -> Path:
    """A copy of a cassette with `edit(data)` applied to its parsed YAML."""
    data = yaml.safe_load(source.read_text())
    edit(data)
    target.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    return target


def in_subprocess(code: str, cwd: Path) -> subprocess.CompletedProcess:
    """`code` run by a fresh Python in `cwd`, with the test's environment (its HOME, no keys)."""
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=environment, capture_output=True, text=True,
                          timeout=120)


def test_a_recording_keeps_the_tool_list_and_calls_and_replay_tools_needs_no_server(agent, tmp_path):
    log = tmp_path / "calls.log"
    run = record_lookup(agent, log, "--mcp-config", kb_config(log))
    assert log.read_text() == "lookup alpha\n"  # recording, or a plain replay: the server ran the call
    recorded = yaml.safe_load(run.cassette.read_text())
    [server] = recorded["setup"]["mcp_servers"]
    assert (server["name"], server["status"]) == ("kb", "connected")
    assert [tool["name"] for tool in server["tools"]] == ["lookup", "add"]
    assert server["tools"][0]["description"] == "Look up the code stored under a name."
    assert server["tools"][0]["inputSchema"]["required"] == ["name"]
    [lookup] = [entry for entry in recorded["tool_runs"] if entry["tool"] == "mcp__kb__lookup"]
    assert (lookup["input"], lookup["output"]) == ({"name": "alpha"}, "the code for alpha is 518")

    log.unlink()
    replay = agent.replay("--replay-tools", cwd=elsewhere(tmp_path))  # no .mcp.json, no --mcp-config
    assert replay.exit_code == 0, replay.stderr
    assert replay.stdout.strip() == "the code for alpha is 518"
    assert not log.exists()  # no server was started: the cassette answered


def test_replay_tools_starts_not_even_the_workspaces_servers_nor_loads_the_sdk(agent, tmp_path):
    log = tmp_path / "calls.log"
    agent.write(".mcp.json", kb_config(log))
    agent.trust()
    run = record_lookup(agent, log)
    assert log.read_text() == "lookup alpha\n"
    log.unlink()
    code = (f"import sys\nfrom agent import cli\ncode = cli.main(['--replay', {str(run.cassette)!r}, '--replay-tools'])\n"
            "print('the mcp SDK was loaded' if 'mcp' in sys.modules else 'no mcp SDK', file=sys.stderr)\n"
            "sys.exit(code)")
    replay = in_subprocess(code, agent.workspace)  # the workspace's .mcp.json names the server
    assert replay.returncode == 0, replay.stderr
    assert replay.stdout.strip() == "the code for alpha is 518"
    assert replay.stderr.strip().splitlines()[-1] == "no mcp SDK"
    assert not log.exists()


def test_a_run_without_servers_never_loads_the_sdk_and_its_init_line_lists_none(agent, tmp_path):
    agent.script(text("hello"))
    run = agent.run("Say hello.", *STREAM)
    assert run.exit_code == 0, run.stderr
    init = json.loads(run.stdout.splitlines()[0])
    assert init["subtype"] == "init" and init["mcp_servers"] == []
    code = (f"import sys\nfrom agent import cli\ncode = cli.main(['--replay', {str(run.cassette)!r}])\n"
            "assert 'mcp' not in sys.modules, 'a run without MCP servers loaded the mcp SDK'\nsys.exit(code)")
    replay = in_subprocess(code, agent.workspace)
    assert replay.returncode == 0, replay.stderr
    assert replay.stdout.strip() == "hello"


def test_stream_json_init_lists_each_server_and_its_status_and_tools(agent, tmp_path):
    log = tmp_path / "calls.log"
    servers = json.loads(kb_config(log))
    servers["mcpServers"]["broken"] = {"command": str(tmp_path / "no-such-server")}
    agent.script(text("ready"))
    run = agent.run("Are you ready?", "--mcp-config", json.dumps(servers), *STREAM)
    assert run.exit_code == 0, run.stderr
    assert "MCP server broken failed to start" in run.stderr
    init = json.loads(run.stdout.splitlines()[0])
    assert init["mcp_servers"] == [{"name": "kb", "status": "connected"}, {"name": "broken", "status": "failed"}]
    assert {"mcp__kb__lookup", "mcp__kb__add"} <= set(init["tools"])

    replay = agent.replay("--replay-tools", *STREAM, cwd=elsewhere(tmp_path))
    assert replay.exit_code == 0, replay.stderr
    init = json.loads(replay.stdout.splitlines()[0])
    assert init["mcp_servers"] == [{"name": "kb", "status": "connected"}, {"name": "broken", "status": "failed"}]
    assert {"mcp__kb__lookup", "mcp__kb__add"} <= set(init["tools"])


def test_a_plain_replay_whose_server_is_missing_or_changed_drifts_naming_it(agent, tmp_path):
    log = tmp_path / "calls.log"
    config = kb_config(log)
    run = record_lookup(agent, log, "--mcp-config", config)

    missing = agent.replay(cwd=elsewhere(tmp_path))
    assert missing.exit_code == 1
    assert ("the recording offered the tools of MCP server kb (mcp__kb__lookup, mcp__kb__add); this run offers "
            "none of them (is kb configured here") in missing.stderr

    def schema_changed(data):
        for tool in data["interactions"][0]["request"]["body"]["tools"]:
            spec = tool.get("function", tool)
            if spec["name"] == "mcp__kb__lookup":
                spec.get("input_schema", spec.get("parameters"))["properties"]["name"]["type"] = "integer"

    changed = agent.replay("--mcp-config", config, cassette=edited_copy(run.cassette, tmp_path / "schema.yaml", schema_changed))
    assert changed.exit_code == 1
    assert ("the input schema of MCP tool mcp__kb__lookup differs from the recording's (its server kb changed it): "
            "request 1 differs") in changed.stderr

    def one_tool_fewer(data):
        tools = data["interactions"][0]["request"]["body"]["tools"]
        tools[:] = [tool for tool in tools if tool.get("function", tool)["name"] != "mcp__kb__add"]

    added = agent.replay("--mcp-config", config, cassette=edited_copy(run.cassette, tmp_path / "added.yaml", one_tool_fewer))
    assert added.exit_code == 1
    assert "MCP server kb offers other tools than in the recording: this run adds mcp__kb__add" in added.stderr


def test_cassette_show_and_check_read_an_mcp_cassette_without_its_server(agent, tmp_path, capsys, monkeypatch):
    log = tmp_path / "calls.log"
    run = record_lookup(agent, log, "--mcp-config", kb_config(log))
    log.unlink()
    code, out, err = cassette(capsys, "show", str(run.cassette))
    assert code == 0, err
    assert "mcp       kb (connected, 2 tools: lookup, add)" in out
    assert '  → mcp__kb__lookup(name="alpha")\n    ← the code for alpha is 518' in out
    code, out, err = cassette(capsys, "show", str(run.cassette), "--html", str(tmp_path / "report.html"))
    assert code == 0, err
    report = (tmp_path / "report.html").read_text()
    assert "MCP server kb (connected, 2 tools: lookup, add)" in report and "mcp__kb__lookup" in report
    monkeypatch.chdir(elsewhere(tmp_path))
    code, out, err = cassette(capsys, "check", str(run.cassette))
    assert code == 0, out + err
    assert out.startswith("ok")
    assert not log.exists()


def test_a_hostile_server_list_in_a_cassette_is_one_line(agent, tmp_path):
    log = tmp_path / "calls.log"
    run = record_lookup(agent, log, "--mcp-config", kb_config(log))
    hostile = {
        "not a list": ({"kb": "connected"}, "`mcp_servers` must be a list of servers"),
        "a name with a line break": ([{"name": "kb\nrm -rf /", "status": "connected"}],
                                     "`mcp_servers` entry 1: `name` must be a short text"),
        "an unknown status": ([{"name": "kb", "status": "owned"}], "MCP server 'kb': `status` must be one of"),
        "too many tools": ([{"name": "kb", "status": "connected", "tools": [{"name": f"t{n}"} for n in range(1001)]}],
                           "MCP server 'kb': `tools` must be a list of at most 1000 tools"),
        "a nameless tool": ([{"name": "kb", "status": "connected", "tools": [{"description": "x"}]}],
                            "MCP server 'kb': each tool needs a `name`"),
        "a schema that is not a mapping": ([{"name": "kb", "status": "connected",
                                            "tools": [{"name": "lookup", "inputSchema": ["x"]}]}],
                                           "tool 'lookup': `inputSchema` must be a mapping"),
        "a schema holding a date": ([{"name": "kb", "status": "connected",
                                     "tools": [{"name": "lookup", "inputSchema": {"default": date(2026, 1, 1)}}]}],
                                   "values must be JSON data"),
        "too many servers": ([{"name": f"s{n}", "status": "failed"} for n in range(201)],
                             "`mcp_servers` lists 201 servers (at most 200)"),
    }
    for number, (what, (servers, message)) in enumerate(hostile.items()):
        def edit(data, servers=servers):
            data["setup"]["mcp_servers"] = servers

        copy = edited_copy(run.cassette, tmp_path / f"hostile-{number}.yaml", edit)
        replay = agent.replay("--replay-tools", cassette=copy, cwd=elsewhere(tmp_path))
        assert replay.exit_code == 2, what
        assert message in replay.stderr and len(replay.stderr.strip().splitlines()) == 1, (what, replay.stderr)
        assert "Traceback" not in replay.stderr

    def string_schema(data):  # well formed, but no tool a live server could offer: cleaned out as a live one is
        data["setup"]["mcp_servers"][0]["tools"][0]["inputSchema"] = {"type": "string"}

    copy = edited_copy(run.cassette, tmp_path / "string-schema.yaml", string_schema)
    replay = agent.replay("--replay-tools", cassette=copy, cwd=elsewhere(tmp_path))
    assert replay.exit_code == 1
    assert "MCP server kb offers other tools than in the recording: this run leaves out mcp__kb__lookup" in replay.stderr


def test_an_agents_inline_server_is_recorded_for_it_and_replays_without_starting(agent, tmp_path, capsys):
    log = tmp_path / "calls.log"
    entry = json.loads(kb_config(log))["mcpServers"]["kb"]
    agent.agent_file("looker.md", "looker", "Looks codes up.", "You look codes up.", user=True,
                     extra="mcpServers:\n  - inl: " + json.dumps(entry))
    agent.script(calls(Call("Agent", {"description": "look up", "prompt": "Look up alpha.", "subagent_type": "looker", "run_in_background": False})),
                 echo_results)
    agent.route("Look up alpha.", calls(Call("mcp__inl__lookup", {"name": "alpha"})), echo_results)
    run = agent.run("Ask the looker for alpha's code.")
    assert run.exit_code == 0, run.stderr
    assert "the code for alpha is 518" in run.stdout
    assert log.read_text() == "lookup alpha\n"
    [server] = yaml.safe_load(run.cassette.read_text())["setup"]["mcp_servers"]
    assert (server["name"], server["started_by"]) == ("inl", "the mcpServers of agent 'looker'")
    assert [tool["name"] for tool in server["tools"]] == ["lookup", "add"]

    log.unlink()
    replay = agent.replay("--replay-tools", cwd=elsewhere(tmp_path))
    assert replay.exit_code == 0, replay.stderr
    assert replay.stdout == run.stdout
    assert not log.exists()
    code, out, err = cassette(capsys, "show", str(run.cassette))
    assert code == 0, err
    assert "mcp       inl (connected, 2 tools: lookup, add; started by the mcpServers of agent 'looker')" in out

"""MCP servers over a run's life: started together before the first request, each within
MCP_TIMEOUT; each call within MCP_TOOL_TIMEOUT; a server that fails to start, or dies in a call,
is a warning and tool errors, never the end of the run (the next call starts it again); and no
server process outlives the run, whether it ends, fails or is killed by a signal."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from conftest import PROVIDERS
from mcp_servers import mcp_config, stdio, tool_results
from scripted_model import Call, ScriptedModel, call, calls, text
from test_endings import agent_env, alive, finish, start, wait_for


def gone(pid_file: Path) -> bool:
    """Whether the process whose pid the server wrote has gone (reaped, not a zombie)."""
    try:
        os.kill(int(pid_file.read_text()), 0)
    except ProcessLookupError:
        return True
    return False


def warnings(run) -> list[str]:
    return [line for line in run.stderr.splitlines() if "MCP server" in line]


def test_a_server_slower_than_mcp_timeout_is_missing_from_the_run(agent, tmp_path, monkeypatch):
    """(That the other servers keep working is shown with servers that fail at once, below: a
    second server here would have to start within the short MCP_TIMEOUT on a busy machine.)"""
    monkeypatch.setenv("MCP_TIMEOUT", "2000")
    slow_pid = tmp_path / "slow.pid"
    agent.script(calls(Call("mcp__slow__lookup", {"name": "alpha"})), text("done"))
    run = agent.run("Ask it.", "--mcp-config", mcp_config(
        slow=stdio("knowledge_base.py", MCP_TEST_SLEEP="60", MCP_TEST_PID_FILE=str(slow_pid))))
    assert (run.exit_code, run.stdout.strip()) == (0, "done"), run.stderr
    assert warnings(run) == ["[agent] MCP server slow failed to start: did not start within 2 s (MCP_TIMEOUT)"]
    assert not [t for t in run.payloads[0]["tools"] if "mcp__slow__" in str(t)]
    (unknown,) = tool_results(run.payloads[1])
    assert unknown[1] and "unknown tool 'mcp__slow__lookup'" in unknown[0]
    assert gone(slow_pid)  # stopped, though it never answered


def test_a_hung_call_is_an_error_naming_the_timeout_and_the_run_goes_on(agent, monkeypatch):
    monkeypatch.setenv("MCP_TOOL_TIMEOUT", "1000")
    agent.script(calls(Call("mcp__results__hang", {})), calls(Call("mcp__results__several", {})), text("done"))
    run = agent.run("Wait, then go on.", "--mcp-config", mcp_config(results=stdio("results.py")))
    assert (run.exit_code, run.stdout.strip()) == (0, "done"), run.stderr
    assert tool_results(run.payloads[1]) == [('MCP server "results" tool "hang" timed out after 1s', True)]
    assert tool_results(run.payloads[2]) == [("first block\nsecond block", False)]


def test_servers_that_exit_at_start_or_do_not_exist_are_one_warning_each(agent, tmp_path):
    agent.script(calls(Call("mcp__broken__lookup", {"name": "alpha"}), Call("mcp__missing__lookup", {"name": "alpha"}),
                       Call("mcp__kb__lookup", {"name": "alpha"})), text("done"))
    run = agent.run("Ask all three.", "--mcp-config", mcp_config(
        broken=stdio("knowledge_base.py", MCP_TEST_EXIT="1"),
        missing={"command": str(tmp_path / "no-such-server")},
        kb=stdio("knowledge_base.py")))
    assert (run.exit_code, run.stdout.strip()) == (0, "done"), run.stderr
    failed = warnings(run)
    assert len(failed) == 2, failed
    assert failed[0].startswith("[agent] MCP server broken failed to start: ")
    assert "exiting at start, as asked" in failed[0]  # the end of its stderr says why
    assert failed[1].startswith("[agent] MCP server missing failed to start: ") and "no-such-server" in failed[1]
    broken, missing, answered = tool_results(run.payloads[1])
    assert broken[1] and "unknown tool 'mcp__broken__lookup'" in broken[0]
    assert missing[1] and "unknown tool 'mcp__missing__lookup'" in missing[0]
    assert answered == ("the code for alpha is 518", False)


def test_a_server_that_dies_in_a_call_is_connection_closed_and_starts_again(agent, tmp_path):
    log = tmp_path / "requests.log"
    agent.script(calls(Call("mcp__results__crash", {})), calls(Call("mcp__results__several", {})), text("done"))
    run = agent.run("Crash it, then go on.", "--mcp-config", mcp_config(results=stdio("results.py", MCP_TEST_LOG=str(log))))
    assert (run.exit_code, run.stdout.strip()) == (0, "done"), run.stderr
    assert tool_results(run.payloads[1]) == [("Connection closed", True)]
    assert tool_results(run.payloads[2]) == [("first block\nsecond block", False)]
    assert warnings(run) == ["[agent] MCP server results stopped: Connection closed"]
    requests = [" ".join(line.split()[:2]) for line in log.read_text().splitlines()]  # less the tool_use ids
    assert requests == ["initialize", "tools/list", "tools/call crash",
                        "initialize", "tools/list", "tools/call several"]  # started again: a new initialize


def test_servers_start_in_parallel_and_none_is_left_after_the_run(agent, tmp_path):
    """Each server, before it serves, writes its start file and waits (at most 20 s) for the
    other's: started one after the other, the first would give up and be missing."""
    (tmp_path / "meet").mkdir()
    pids = {name: tmp_path / f"{name}.pid" for name in ("left", "right")}

    def server(me: str, other: str) -> dict:
        return stdio("knowledge_base.py", MCP_TEST_MEET=f"{tmp_path / 'meet'}:{me}:{other}", MCP_TEST_SLEEP="1",
                     MCP_TEST_PID_FILE=str(pids[me]))

    agent.script(calls(Call("mcp__left__lookup", {"name": "alpha"}), Call("mcp__right__add", {"a": 1, "b": 2})),
                 text("done"))
    run = agent.run("Ask both.", "--mcp-config", mcp_config(left=server("left", "right"), right=server("right", "left")))
    assert (run.exit_code, run.stdout.strip()) == (0, "done"), run.stderr
    assert warnings(run) == []
    assert tool_results(run.payloads[1]) == [("the code for alpha is 518", False), ("3", False)]
    assert all(gone(pid) for pid in pids.values())


def signalled(tmp_path: Path, provider: str, signum: int, config: str, replies: list, ready, *flags: str):
    """Run the agent as a user would (against a scripted model answering `replies`, with `config`
    as its --mcp-config), and send it `signum` once `ready()`. Returns its exit code, stdout,
    stderr, the seconds from the signal to its exit, and the requests the model got. The server
    (its pid in tmp_path / "server.pid") must be gone within 5 s of the exit."""
    pid_file, model = tmp_path / "server.pid", ScriptedModel()
    process, pid = None, None
    try:
        model.script(*replies)
        process = start(tmp_path, agent_env(tmp_path, provider, model), "-p", "Go.", "--mcp-config", config, *flags)
        assert wait_for(lambda: ready() and pid_file.exists() and pid_file.read_text(), 60), finish(process, 1)
        pid = int(pid_file.read_text())
        assert alive(pid)
        sent = time.monotonic()
        process.send_signal(signum)
        code, out, err = finish(process, timeout=40)
        waited = time.monotonic() - sent
        assert wait_for(lambda: not alive(pid), 5), "the MCP server outlived the agent"
        return code, out, err, waited, list(model.requests)
    finally:
        if process is not None and process.poll() is None:
            finish(process, timeout=0.1)
        if pid is not None and alive(pid):
            os.kill(pid, signal.SIGKILL)
        model.close()


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_during_a_call_leaves_no_server_process(tmp_path, provider, signum):
    log = tmp_path / "requests.log"
    config = mcp_config(results=stdio("results.py", MCP_TEST_LOG=str(log), MCP_TEST_PID_FILE=str(tmp_path / "server.pid")))
    code, out, err, _, requests = signalled(tmp_path, provider, signum, config,
                                            [call("mcp__results__hang"), text("never sent")],
                                            lambda: log.exists() and "tools/call hang" in log.read_text(),
                                            "--dangerously-skip-permissions")
    assert code == 128 + signum and out == "", err
    assert err.strip().splitlines()[-1] == ("interrupted" if signum == signal.SIGINT else "terminated by SIGTERM")
    assert len(requests) == 1


@pytest.mark.parametrize("provider", PROVIDERS)
def test_sigterm_while_servers_start_ends_the_run_at_once_and_leaves_none(tmp_path, provider):
    """Servers still starting (this one never answers) do not hold the agent up once it is told to end."""
    config = mcp_config(slow=stdio("knowledge_base.py", MCP_TEST_SLEEP="120", MCP_TEST_PID_FILE=str(tmp_path / "server.pid")))
    code, out, err, waited, requests = signalled(tmp_path, provider, signal.SIGTERM, config, [text("never sent")],
                                                 lambda: True)
    assert waited < 10, "it waited for the server's start to time out"
    assert (code, out, err.strip().splitlines()[-1]) == (143, "", "terminated by SIGTERM"), err
    assert requests == []

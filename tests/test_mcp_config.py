"""Where MCP servers come from, as Claude Code reads them: the local and user scopes of
~/.claude.json, the project's .mcp.json (started only when the workspace is trusted or the user
enabled them), --mcp-config and --strict-mcp-config, ${VAR} expansion, and bad input. What the
model is offered (the request's tools) and which server a call reached (its call log) show it."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from mcp_servers import SERVERS, mcp_config, stdio
from pty_session import start  # noqa: F401 (the interactive tests' fixture)
from scripted_model import Call, calls, text

from agent import cli

SERVER = SERVERS / "knowledge_base.py"
KB_TOOLS = ["mcp__kb__lookup", "mcp__kb__add"]


def kb(log: Path) -> dict:
    """The knowledge-base test server over stdio, logging each call to `log`."""
    return stdio("knowledge_base.py", KB_CALL_LOG=str(log))


def claude_json(home: Path, workspace: Path, user: dict | None = None, local: dict | None = None) -> None:
    """Servers of the user scope (top-level mcpServers of ~/.claude.json) and of the local scope
    (its entry for the workspace), as `claude mcp add -s user|local` stores them."""
    path = home / ".claude.json"
    config = json.loads(path.read_text()) if path.exists() else {}
    if user is not None:
        config["mcpServers"] = user
    if local is not None:
        config.setdefault("projects", {}).setdefault(os.path.realpath(workspace), {})["mcpServers"] = local
    path.write_text(json.dumps(config, indent=2))


def offered(run) -> list[str]:
    """The MCP tools the model was offered in the run's first request."""
    names = [t.get("name") or t["function"]["name"] for t in run.payloads[0].get("tools", [])]
    return [name for name in names if name.startswith("mcp__")]


def echo_results(request):
    return text("\n".join(request.tool_results()))


def lookup(agent, *flags: str):
    agent.script(calls(Call("mcp__kb__lookup", {"name": "alpha"})), echo_results)
    run = agent.run("Look up alpha.", *flags)
    assert run.exit_code == 0, run.stderr
    assert run.stdout.strip() == "the code for alpha is 518"
    return run


def test_local_beats_project_beats_user_and_the_flag_beats_them_all(agent, tmp_path):
    logs = {scope: tmp_path / f"{scope}.log" for scope in ("user", "project", "local", "flag")}
    agent.trust()
    claude_json(agent.home, agent.workspace, user={"kb": kb(logs["user"])})
    agent.write(".mcp.json", mcp_config(kb=kb(logs["project"])))
    lookup(agent)
    assert [p.name for p in logs.values() if p.exists()] == ["project.log"]
    claude_json(agent.home, agent.workspace, local={"kb": kb(logs["local"])})
    lookup(agent)
    assert logs["local"].read_text() == "lookup alpha\n" and logs["project"].read_text() == "lookup alpha\n"
    run = lookup(agent, "--mcp-config", mcp_config(kb=kb(logs["flag"])))
    assert logs["flag"].read_text() == "lookup alpha\n" and logs["local"].read_text() == "lookup alpha\n"
    assert offered(run) == KB_TOOLS


def test_an_untrusted_projects_servers_do_not_start_and_its_own_settings_cannot_enable_them(agent, tmp_path):
    log = tmp_path / "calls.log"
    agent.write(".mcp.json", mcp_config(kb=kb(log)))
    agent.settings({"enableAllProjectMcpServers": True}, "project")
    agent.settings({"enabledMcpjsonServers": ["kb"]}, "local")
    agent.script(text("nothing to call"))
    run = agent.run("hi", "--mcp-config", mcp_config(other=kb(tmp_path / "other.log")))
    assert run.exit_code == 0, run.stderr
    assert offered(run) == ["mcp__other__lookup", "mcp__other__add"]
    warned = [line for line in run.stderr.splitlines() if "MCP server" in line and "Not starting" in line]
    assert len(warned) == 1, run.stderr
    assert "Not starting 1 MCP server of .mcp.json (kb)" in warned[0]
    assert "--trust-workspace" in warned[0] and "enabledMcpjsonServers" in warned[0]
    assert not log.exists()


def test_the_user_enables_project_servers_and_disabled_ones_never_start(agent, tmp_path):
    agent.write(".mcp.json", mcp_config(kb=kb(tmp_path / "kb.log"), kb2=kb(tmp_path / "kb2.log"),
                                     kb3=kb(tmp_path / "kb3.log")))
    agent.settings({"permissions": {"defaultMode": "bypassPermissions"}, "enabledMcpjsonServers": ["kb", "kb2"]})
    agent.settings({"disabledMcpjsonServers": ["kb2"]}, "project")  # a repository may narrow what runs
    agent.script(text("ok"))
    run = agent.run("hi")
    assert run.exit_code == 0, run.stderr
    assert offered(run) == KB_TOOLS
    assert "Not starting 1 MCP server of .mcp.json (kb3)" in run.stderr and "kb2" not in run.stderr
    agent.settings({"permissions": {"defaultMode": "bypassPermissions"}, "enableAllProjectMcpServers": True,
                    "disabledMcpjsonServers": ["kb"]})
    agent.script(text("ok"))
    run = agent.run("hi")
    assert offered(run) == ["mcp__kb3__lookup", "mcp__kb3__add"]
    assert "Not starting" not in run.stderr


def a_server_in_every_scope(agent, tmp_path: Path) -> None:
    """In a trusted workspace: `mine` in the user scope, `here` in the local one, `proj` in .mcp.json."""
    agent.trust()
    claude_json(agent.home, agent.workspace, user={"mine": kb(tmp_path / "mine.log")},
                local={"here": kb(tmp_path / "here.log")})
    agent.write(".mcp.json", mcp_config(proj=kb(tmp_path / "proj.log")))


def test_strict_mcp_config_uses_only_the_flags_servers(agent, tmp_path):
    a_server_in_every_scope(agent, tmp_path)
    agent.script(text("ok"))
    run = agent.run("hi", "--strict-mcp-config", "--mcp-config", mcp_config(kb=kb(tmp_path / "kb.log")))
    assert run.exit_code == 0, run.stderr
    assert offered(run) == KB_TOOLS


def test_setting_sources_choose_the_scopes(agent, tmp_path):
    a_server_in_every_scope(agent, tmp_path)
    agent.script(text("ok"))
    run = agent.run("hi", "--setting-sources", "project,local")
    assert run.exit_code == 0, run.stderr
    assert offered(run) == ["mcp__proj__lookup", "mcp__proj__add", "mcp__here__lookup", "mcp__here__add"]


def test_variables_expand_in_command_args_and_env(agent, tmp_path, monkeypatch):
    monkeypatch.setenv("KB_PYTHON", sys.executable)
    monkeypatch.setenv("KB_FOLDER", str(SERVER.parent))
    monkeypatch.setenv("KB_EMPTY", "")
    logs = tmp_path / "logs"
    logs.mkdir()
    entry = {"command": "${KB_PYTHON}", "args": ["${KB_FOLDER}/${KB_SCRIPT:-knowledge_base.py}"],
             "env": {"KB_CALL_LOG": "${KB_EMPTY:-" + str(logs) + "}/${KB_UNSET}.log"}}
    lookup(agent, "--mcp-config", mcp_config(kb=entry))
    assert [p.name for p in logs.iterdir()] == ["${KB_UNSET}.log"]  # unset, no default: passed as written


def test_a_server_inherits_the_environment_and_a_project_cannot_expand_the_provider_key(agent, tmp_path, monkeypatch):
    log = tmp_path / "inherited.log"
    monkeypatch.setenv("KB_CALL_LOG", str(log))
    lookup(agent, "--mcp-config", mcp_config(kb={"command": sys.executable, "args": [str(SERVER)]}))
    assert log.read_text() == "lookup alpha\n"
    agent.trust()
    keys = "${OPENROUTER_API_KEY}${ANTHROPIC_API_KEY}"
    agent.write(".mcp.json", mcp_config(kb={"command": sys.executable, "args": [str(SERVER)],
                                         "env": {"KB_CALL_LOG": f"{tmp_path}/{keys}.log"}}))
    lookup(agent)
    assert (tmp_path / f"{keys}.log").exists()


def test_a_bad_mcp_json_or_entry_is_one_warning_and_the_rest_works(agent, tmp_path):
    agent.trust()
    agent.write(".mcp.json", "{not json")
    claude_json(agent.home, agent.workspace, user={
        "kb": kb(tmp_path / "kb.log"), "nocmd": {"args": ["x"]}, "urlonly": {"url": "http://127.0.0.1:9/mcp"},
        "badtype": {"type": "ws", "url": "ws://127.0.0.1:9"}, "argsbad": {"command": "true", "args": "x"}})
    run = lookup(agent)
    assert offered(run) == KB_TOOLS
    lines = run.stderr.splitlines()
    assert sum(".mcp.json" in line for line in lines) == 1
    for name in ("nocmd", "urlonly", "badtype", "argsbad"):
        assert sum(f"'{name}'" in line for line in lines) == 1, run.stderr
    assert any('"url" but no "type"' in line for line in lines)


def test_verbose_says_where_each_server_was_configured_and_how_it_starts(agent, tmp_path):
    agent.trust()
    agent.write(".mcp.json", mcp_config(kb=kb(tmp_path / "kb.log")))
    agent.script(text("ok"))
    run = agent.run("hi", "--verbose")
    assert run.exit_code == 0, run.stderr
    assert f"MCP server kb: {sys.executable} {SERVER}, from .mcp.json (project scope)" in run.stderr
    assert "MCP server kb (" in run.stderr and "connected, 2 tools" in run.stderr


@pytest.mark.parametrize("answer", ["y", "n"])
@pytest.mark.parametrize("wire", ["openrouter", "anthropic"])
def test_a_projects_servers_alone_ask_the_interactive_trust_question(model, start, tmp_path, wire, answer):
    """As the warning of an untrusted folder says: accepting the question starts its servers."""
    log = tmp_path / "calls.log"
    (tmp_path / "workspace" / ".mcp.json").write_text(mcp_config(kb=kb(log)))
    model.script(calls(Call("mcp__kb__lookup", {"name": "alpha"})), echo_results)
    session = start(provider=wire)
    session.expect(r"or \.mcp\.json grant permissions")
    session.expect(r"Trust this folder\?")
    session.send(answer)
    session.ready()
    session.send("Look up alpha.")
    session.expect("the code for alpha is 518" if answer == "y" else "unknown tool 'mcp__kb__lookup'|No such tool available")
    session.ready()
    session.send("/exit")
    assert session.end() == 0
    assert log.exists() == (answer == "y")


def test_an_unusable_mcp_config_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "empty.json").write_text("{}")
    cases = {"{not json": "--mcp-config: invalid JSON in the --mcp-config value",
             "missing.json": "--mcp-config: ",
             "empty.json": 'must be a JSON object with "mcpServers"',
             '{"mcpServers": []}': 'must be a JSON object with "mcpServers"'}
    for value, said in cases.items():
        for argv in (["-p", "hi", "--mcp-config", value], ["mcp", "list", "--mcp-config", value]):
            monkeypatch.setenv("OPENROUTER_API_KEY", "dummy-key")  # each run takes it out of the environment
            capsys.readouterr()
            assert cli.main(argv) == 2, (argv, capsys.readouterr())
            out, err = capsys.readouterr()
            assert out == "" and len(err.splitlines()) == 1 and said in err, (argv, err)

"""`mcp list`, as Claude Code's `claude mcp list`: each configured server in Claude Code's order
(user, project, local, then --mcp-config), how it starts, whether it connects (it is started to
see), where it was configured and its tools; the project's servers of an untrusted workspace are
not started; stdout is the listing alone and the exit code 0."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from mcp_servers import SERVERS, listening, mcp_config, stdio

from agent import cli

KB = f"{sys.executable} {SERVERS / 'knowledge_base.py'}"
USER = "User config (available in all your projects)"
PROJECT = "Project config (shared via .mcp.json)"
LOCAL = "Local config (private to you in this project)"
TOOLS = "  Tools: lookup, add"


@pytest.fixture
def folders(tmp_path, monkeypatch):
    """A home folder and a workspace (the working folder), as (home, workspace)."""
    home, workspace = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    workspace.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(workspace)
    return home, workspace


def claude_json(home: Path, workspace: Path, user: dict | None = None, local: dict | None = None) -> Path:
    config = {"mcpServers": user or {}, "projects": {os.path.realpath(workspace): {"mcpServers": local or {}}}}
    path = home / ".claude.json"
    path.write_text(json.dumps(config))
    return path


def mcp_list(capsys, *flags: str) -> tuple[str, str]:
    capsys.readouterr()
    assert cli.main(["mcp", "list", *flags]) == 0
    return capsys.readouterr()


def test_each_server_with_its_scope_its_state_and_its_tools(folders, capsys, tmp_path):
    home, workspace = folders
    config = claude_json(home, workspace, user={"mine": stdio("knowledge_base.py"),
                                                "broken": {"command": "sh", "args": ["-c", "exit 3"]}},
                         local={"here": stdio("knowledge_base.py")})
    (workspace / ".mcp.json").write_text(mcp_config(proj=stdio("knowledge_base.py"), off={"command": "true"}))
    (workspace / ".claude").mkdir()
    (workspace / ".claude" / "settings.json").write_text(json.dumps({"disabledMcpjsonServers": ["off"]}))
    flag = tmp_path / "more.json"
    flag.write_text(mcp_config(extra=stdio("knowledge_base.py")))
    out, err = mcp_list(capsys, "--mcp-config", str(flag))
    local_entry = f'{config} projects[{json.dumps(os.path.realpath(workspace))}]'
    assert out.splitlines() == [
        f"mine: {KB} - ✔ Connected", f"  Scope: {USER}, in {config}", TOOLS,
        "broken: sh -c exit 3 - ✘ Failed to connect — Connection closed", f"  Scope: {USER}, in {config}",
        f"proj: {KB} - ⏸ Pending approval (not started: this workspace is not trusted; see below)",
        f"  Scope: {PROJECT}, in .mcp.json",
        f"here: {KB} - ✔ Connected", f"  Scope: {LOCAL}, in {local_entry}", TOOLS,
        f"extra: {KB} - ✔ Connected", f"  Scope: Command line (--mcp-config), in {flag}", TOOLS]
    assert err.splitlines()[0] == "Checking MCP server health…"
    assert "Not starting 1 MCP server of .mcp.json (proj)" in err and "--trust-workspace" in err


def test_a_trusted_workspace_starts_the_projects_servers_and_strict_lists_only_the_flags(folders, capsys):
    home, workspace = folders
    claude_json(home, workspace, user={"mine": stdio("knowledge_base.py")})
    (workspace / ".mcp.json").write_text(mcp_config(proj=stdio("knowledge_base.py")))
    out, err = mcp_list(capsys, "--trust-workspace")
    assert out.splitlines() == [f"mine: {KB} - ✔ Connected", f"  Scope: {USER}, in {home / '.claude.json'}", TOOLS,
                                f"proj: {KB} - ✔ Connected", f"  Scope: {PROJECT}, in .mcp.json", TOOLS]
    assert "Not starting" not in err
    out, _ = mcp_list(capsys, "--trust-workspace", "--strict-mcp-config", "--mcp-config",
                      mcp_config(only={"command": "/nonexistent/server", "args": ["--flag"]}))
    assert out.splitlines()[0].startswith("only: /nonexistent/server --flag - ✘ Failed to connect — ")
    assert out.splitlines()[1:] == ["  Scope: Command line (--mcp-config), in the --mcp-config value"]


def test_an_http_server_is_shown_by_its_url_as_written(folders, capsys, tmp_path, monkeypatch):
    home, workspace = folders
    with listening("knowledge_base.py", "streamable-http", tmp_path) as url:
        port = url.split(":")[2].split("/")[0]
        monkeypatch.setenv("KB_PORT", port)
        monkeypatch.setenv("KB_TOKEN", "sesame-secret")
        claude_json(home, workspace, user={"web": {"type": "http", "url": "http://127.0.0.1:${KB_PORT}/mcp",
                                                   "headers": {"X-Test-Token": "${KB_TOKEN}"}}})
        out, _ = mcp_list(capsys)
    assert out.splitlines() == ["web: http://127.0.0.1:${KB_PORT}/mcp (HTTP) - ✔ Connected",
                                f"  Scope: {USER}, in {home / '.claude.json'}", TOOLS]


def test_nothing_configured_says_so(folders, capsys):
    out, err = mcp_list(capsys)
    assert out.startswith("No MCP servers configured.") and err == ""


def test_a_project_naming_hundreds_of_servers_is_bounded_and_starts_none(folders, capsys):
    _, workspace = folders
    many = {f"s{i}": {"command": "/nonexistent/never-started"} for i in range(300)}
    (workspace / ".mcp.json").write_text(mcp_config(**many))
    out, err = mcp_list(capsys)
    states = [line for line in out.splitlines() if not line.startswith("  ")]
    assert len(states) == 200 and all("⏸ Pending approval" in line for line in states)
    assert ".mcp.json names 300 MCP servers; only the first 200 are used" in err


def test_which_project_servers_start_is_the_users_choice(folders, capsys):
    home, workspace = folders
    never = {"command": "/nonexistent/server"}  # started: it fails; withheld: pending; disabled: not listed
    (workspace / ".mcp.json").write_text(mcp_config(a=never, b=never, c=never, d=never, e=never))
    config = claude_json(home, workspace)
    entry = json.loads(config.read_text())
    entry["projects"][os.path.realpath(workspace)].update(enabledMcpjsonServers=["a", "b"], disabledMcpjsonServers=["b"])
    config.write_text(json.dumps(entry))
    (workspace / ".claude").mkdir()
    (workspace / ".claude" / "settings.json").write_text(json.dumps({"enabledMcpjsonServers": ["d"],
                                                                     "enableAllProjectMcpServers": True}))
    (workspace / ".claude" / "settings.local.json").write_text(json.dumps({"disabledMcpjsonServers": ["e"]}))
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text(json.dumps({"enabledMcpjsonServers": "d"}))
    out, err = mcp_list(capsys, "--settings", json.dumps({"enabledMcpjsonServers": ["c"]}))
    states = {line.split(":")[0]: line.split(" - ")[1] for line in out.splitlines() if not line.startswith("  ")}
    assert list(states) == ["a", "c", "d"]
    assert states["a"].startswith("✘ Failed to connect") and states["c"].startswith("✘ Failed to connect")
    assert states["d"].startswith("⏸ Pending approval")
    assert f"ignoring enabledMcpjsonServers in {home / '.claude' / 'settings.json'}: expected a list of server names" in err

"""Agents and MCP servers, as Claude Code 2.1.332 runs them: a subagent inherits the session's MCP
tools, then its `tools` and `disallowedTools` filter them (`mcp__kb`, `mcp__kb__*`, exact names;
`mcp__*` in disallowedTools); `mcpServers` names session servers (offered whatever `tools` says)
or defines inline ones, started when the agent runs and stopped when it ends, seen by it alone.
A repository's own agents start inline servers only in a trusted workspace."""

from __future__ import annotations

import json
import logging

import pytest

from agent.subagents.definitions import AgentDefinition, AgentServer, filter_tools, names_tool
from agent.subagents.discovery import discover_agents, parse_cli_agents
from mcp_servers import mcp_config, stdio, tool_results
from pty_session import start  # noqa: F401 (the interactive tests' fixture)
from scripted_model import Call, call, calls, text

ALIVE = 'kill -0 "$(cat inl.pid)" 2>/dev/null && echo running || echo stopped'  # the inline server's pid file


def tool_names(payload: dict) -> list[str]:
    return [tool.get("name") or tool["function"]["name"] for tool in payload.get("tools", [])]


def requests_of(run, marker: str) -> list[dict]:
    """The requests whose system prompt holds `marker` (a subagent's body)."""
    return [p for p in run.payloads if marker in json.dumps(p.get("system") or p["messages"][0])]


def main_requests(run) -> list[dict]:
    return requests_of(run, "working in the user's terminal")


def inline(name: str, **env: str) -> str:
    """An agent file's `mcpServers` holding one inline knowledge-base server (JSON is YAML too)."""
    return "mcpServers:\n  - " + json.dumps({name: stdio("knowledge_base.py", **env)})


def results(request) -> str:
    return "\n".join(request.reports())


# --- what a definition's lists name -----------------------------------------------------------------

@pytest.mark.parametrize("entry, tool, in_tools, in_disallowed", [
    ("mcp__kb", "mcp__kb__lookup", True, True),
    ("mcp__kb__*", "mcp__kb__lookup", True, True),
    ("mcp__kb__lookup", "mcp__kb__lookup", True, True),
    ("mcp__kb__add", "mcp__kb__lookup", False, False),
    ("mcp__kb__look*", "mcp__kb__lookup", False, False),  # Claude Code reads no other pattern
    ("mcp__*", "mcp__kb__lookup", False, True),
    ("mcp__k*", "mcp__kb__lookup", False, False),
    ("mcp__reports", "mcp__reports__v2__run", True, True),  # the documented `__` pitfall
    ("mcp__reports__v2", "mcp__reports__v2__run", False, False),
    ("mcp__reports__v2__*", "mcp__reports__v2__run", True, True),
    ("mcp__kb", "Read", False, False),
])
def test_which_entries_name_an_mcp_tool(entry, tool, in_tools, in_disallowed):
    assert names_tool(entry, tool) is in_tools and names_tool(entry, tool, removing=True) is in_disallowed


def test_own_tools_are_kept_whatever_tools_says_but_not_what_disallowed_tools_removes():
    available = ["Read", "Bash", "mcp__kb__lookup", "mcp__kb__add", "mcp__other__x"]
    own = {"mcp__kb__lookup", "mcp__kb__add"}
    assert filter_tools(available, AgentDefinition("a", "A.", tools=("Read",)), own) == ["Read", "mcp__kb__lookup",
                                                                                      "mcp__kb__add"]
    removed = AgentDefinition("a", "A.", tools=("Read",), disallowed_tools=("mcp__kb__add",))
    assert filter_tools(available, removed, own) == ["Read", "mcp__kb__lookup"]
    # naming nothing it has is no error when its own servers give it tools
    assert filter_tools(available, AgentDefinition("a", "A.", tools=("WebFetch",)), own) == ["mcp__kb__lookup",
                                                                                          "mcp__kb__add"]
    with pytest.raises(ValueError, match="zero tools"):
        filter_tools(available, AgentDefinition("a", "A.", tools=("WebFetch",)))


def test_mcp_servers_are_read_from_a_file_and_from_agents_json(tmp_path, caplog):
    folder = tmp_path / "repo" / ".claude" / "agents"
    folder.mkdir(parents=True)
    (tmp_path / "repo" / ".git").mkdir()
    (folder / "a.md").write_text("---\nname: a\ndescription: A.\nmcpServers:\n  - kb\n  - inl: {command: x, args: [y]}\n"
                                 "  - 3\n  - kb\n---\nBody.\n")
    (folder / "b.md").write_text("---\nname: b\ndescription: B.\nmcpServers:\n  inl: {command: x}\n---\nBody.\n")
    with caplog.at_level(logging.INFO, logger="agent"):
        agents = discover_agents(tmp_path / "repo", tmp_path / "home")
    assert agents["a"].mcp_servers == (AgentServer("kb"), AgentServer("inl", {"command": "x", "args": ["y"]}))
    assert agents["b"].mcp_servers == ()
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 2 and "neither a server's name" in warnings[0] and "must be a list" in warnings[1]
    assert "ignoring mcpServers" not in caplog.text and "mcpServers (Claude Code fields" not in caplog.text
    given = parse_cli_agents(json.dumps({"c": {"description": "C.", "prompt": "P", "mcpServers": [{"s": {"url": "u"}}]}}))
    assert given["c"].mcp_servers == (AgentServer("s", {"url": "u"}),)


# --- whole runs, both wires -------------------------------------------------------------------------

def test_an_inline_server_runs_for_its_agent_alone_and_stops_when_it_ends(agent, tmp_path):
    log = tmp_path / "inline.log"
    agent.agent_file("helper.md", "helper", "Looks codes up.", "HELPER BODY",
                     "tools: Bash\n" + inline("inl", KB_CALL_LOG=str(log), MCP_TEST_PID_FILE="inl.pid"), user=True)
    agent.script(call("Agent", description="look up", prompt="Look alpha up.", subagent_type="helper", run_in_background=False),
                 calls(Call("mcp__inl__lookup", {"name": "alpha"}), Call("Bash", {"command": ALIVE})),
                 lambda request: text(results(request)),
                 call("Bash", command=ALIVE), lambda request: text(results(request)))
    run = agent.run("Use the helper.")
    assert run.exit_code == 0, run.stderr
    sub = requests_of(run, "HELPER BODY")
    assert tool_names(sub[0]) == ["Bash", "mcp__inl__lookup", "mcp__inl__add"]
    assert [text.split("\n")[-1] for text, _ in tool_results(sub[1])] == ["the code for alpha is 518", "running"]
    assert log.read_text() == "lookup alpha\n"
    main = main_requests(run)
    assert len(main) == 3 and not any("mcp__inl" in json.dumps(p) for p in main)
    assert "(Tools: Bash; and its own MCP servers' tools (inl))" in json.dumps(main[0])
    assert run.stdout.strip().endswith("\nstopped")  # gone once the agent ended, before the run did


def test_a_named_server_is_offered_whatever_tools_says_and_the_lists_filter_the_rest(agent, tmp_path):
    kinds = {
        "named": "tools: Read\nmcpServers: [kb, nosuch]",
        "plain": "tools: Read",
        "picked": "tools: Read, mcp__kb__lookup",
        "server": "tools: Read, mcp__kb",
        "pattern": "tools: Read, mcp__kb__look*",
        "blocked": "tools: Read\ndisallowedTools: mcp__kb__add\nmcpServers: [kb]",
        "nomcp": "disallowedTools: mcp__*, Write, Edit, Bash, Agent",
    }
    for name, extra in kinds.items():
        agent.agent_file(f"{name}.md", name, f"The {name} agent.", f"{name.upper()} BODY", extra, user=True)
    agent.script(calls(*[Call("Agent", {"description": name, "prompt": f"{name} task.", "subagent_type": name, "run_in_background": False})
                         for name in kinds]))
    for name in kinds:
        agent.route(f"{name} task.", text(f"{name} done"))
    agent.script(text("all done"))
    run = agent.run("Ask every agent.", "--mcp-config", mcp_config(kb=stdio("knowledge_base.py")))
    assert run.exit_code == 0, run.stderr
    offered = {name: tool_names(requests_of(run, f"{name.upper()} BODY")[0]) for name in kinds}
    both = ["mcp__kb__lookup", "mcp__kb__add"]
    assert offered == {"named": ["Read", *both], "plain": ["Read"], "picked": ["Read", "mcp__kb__lookup"],
                       "server": ["Read", *both], "pattern": ["Read"], "blocked": ["Read", "mcp__kb__lookup"],
                       "nomcp": ["Read", "Glob", "Grep", "NotebookEdit", "WebFetch", "WebSearch",
                                 "TaskCreate", "TaskGet", "TaskList", "TaskUpdate", "TaskStop"]}
    assert set(both) <= set(tool_names(run.payloads[0]))  # the main conversation keeps them
    assert "The named agent. (Tools: Read, mcp__kb__lookup, mcp__kb__add)" in json.dumps(run.payloads[0])
    assert [line for line in run.stderr.splitlines() if "nosuch" in line] == [
        "[agent] agent 'named': mcpServers names 'nosuch', which this session does not configure; left out"]


def test_disallowed_tools_remove_a_server_for_every_agent(agent, tmp_path):
    log = tmp_path / "inline.log"
    servers = "mcpServers:\n  - kb\n  - " + json.dumps({"inl": stdio("knowledge_base.py", KB_CALL_LOG=str(log))})
    agent.agent_file("helper.md", "helper", "Looks codes up.", "HELPER BODY", "tools: Read\n" + servers, user=True)
    agent.script(call("Agent", description="look up", prompt="Look alpha up.", subagent_type="helper", run_in_background=False),
                 text("looked"), text("done"))
    run = agent.run("Use the helper.", "--mcp-config", mcp_config(kb=stdio("knowledge_base.py")),
                    "--disallowedTools", "mcp__kb mcp__inl__add")
    assert run.exit_code == 0, run.stderr
    assert tool_names(requests_of(run, "HELPER BODY")[0]) == ["Read", "mcp__inl__lookup"]
    assert not any("mcp__kb__" in json.dumps(p) or "mcp__inl__add" in json.dumps(p) for p in run.payloads)


def test_a_project_agents_inline_server_starts_only_in_a_trusted_workspace(agent, tmp_path):
    log = tmp_path / "inline.log"
    agent.agent_file("helper.md", "helper", "Looks codes up.", "HELPER BODY", "tools: Read\n" + inline("inl", KB_CALL_LOG=str(log)))
    for _ in range(2):
        agent.script(call("Agent", description="look up", prompt="Look alpha up.", subagent_type="helper", run_in_background=False),
                     calls(Call("mcp__inl__lookup", {"name": "alpha"})), lambda request: text(results(request)),
                     lambda request: text(results(request).split("\n\n<usage>")[0]))
    untrusted = agent.run("Use the helper.")
    assert untrusted.exit_code == 0, untrusted.stderr
    (warning,) = [line for line in untrusted.stderr.splitlines() if "inline MCP servers" in line]
    assert "Not starting the inline MCP servers of the project agent 'helper'" in warning and "--trust-workspace" in warning
    assert tool_names(requests_of(untrusted, "HELPER BODY")[0]) == ["Read"] and not log.exists()
    trusted = agent.run("Use the helper.", "--trust-workspace")
    assert "inline MCP servers" not in trusted.stderr
    assert tool_names(requests_of(trusted, "HELPER BODY")[0]) == ["Read", "mcp__inl__lookup", "mcp__inl__add"]
    assert trusted.stdout.splitlines()[0] == "the code for alpha is 518" and log.read_text() == "lookup alpha\n"


def test_strict_mcp_config_starts_only_the_inline_servers_of_agents_json(agent, tmp_path, monkeypatch):
    filed, given = tmp_path / "filed.log", agent.workspace / "given.log"
    agent.agent_file("filer.md", "filer", "From a file.", "FILER BODY", "tools: Read\n" + inline("filed", KB_CALL_LOG=str(filed)),
                     user=True)
    server = stdio("knowledge_base.py")  # named through the environment: the flag's text is the same on every machine
    monkeypatch.setenv("KB_PYTHON", server["command"])
    monkeypatch.setenv("KB_SERVER", server["args"][0])
    cli = json.dumps({"giver": {"description": "From the flag.", "prompt": "GIVER BODY", "tools": ["Read"],
                                "mcpServers": [{"given": {"command": "${KB_PYTHON}", "args": ["${KB_SERVER}"],
                                                          "env": {"KB_CALL_LOG": "given.log"}}}]}})
    agent.script(calls(Call("Agent", {"description": "f", "prompt": "filer task.", "subagent_type": "filer", "run_in_background": False}),
                       Call("Agent", {"description": "g", "prompt": "giver task.", "subagent_type": "giver", "run_in_background": False})))
    agent.route("filer task.", text("filer done"))
    agent.route("giver task.", call("mcp__given__add", a=2, b=3), lambda request: text(results(request)))
    agent.script(text("both done"))
    run = agent.run("Ask both.", "--agents", cli, "--strict-mcp-config")
    assert run.exit_code == 0, run.stderr
    assert tool_names(requests_of(run, "FILER BODY")[0]) == ["Read"] and not filed.exists()
    assert tool_names(requests_of(run, "GIVER BODY")[0]) == ["Read", "mcp__given__lookup", "mcp__given__add"]
    assert given.read_text() == "add 2 3\n"
    assert ("--strict-mcp-config: not starting the inline MCP servers of the agent 'filer' (only those of --agents "
            "start)") in run.stderr


def test_a_forked_skill_starts_its_agents_inline_servers(agent, tmp_path):
    log = tmp_path / "inline.log"
    agent.agent_file("helper.md", "helper", "Looks codes up.", "HELPER BODY", inline("inl", KB_CALL_LOG=str(log)), user=True)
    agent.skill("lookup", "Look a code up.", "Look up the code of beta.", fork=True, extra="agent: helper")
    agent.script(call("Skill", skill="lookup"), calls(Call("mcp__inl__lookup", {"name": "beta"})),
                 lambda request: text(results(request)), lambda request: text(results(request).split("\n")[-1]))
    run = agent.run("Look beta up.")
    assert run.exit_code == 0, run.stderr
    assert "mcp__inl__lookup" in tool_names(requests_of(run, "HELPER BODY")[0])
    assert "mcp__inl" not in json.dumps(run.payloads[0])
    assert run.stdout.strip().endswith("returned: the code for beta is 412") and log.read_text() == "lookup beta\n"


@pytest.mark.parametrize("wire", ["openrouter", "anthropic"])
def test_a_project_agents_inline_server_alone_asks_the_interactive_trust_question(model, start, tmp_path, wire):
    """The warning of an untrusted folder says the question would let them start: it is asked."""
    folder = tmp_path / "workspace" / ".claude" / "agents"
    folder.mkdir(parents=True)
    (folder / "helper.md").write_text("---\nname: helper\ndescription: Helps.\n" + inline("inl") + "\n---\nBody.\n")
    session = start(provider=wire)
    session.expect(r"Trust this folder\?")
    session.send("n")
    session.ready()
    session.send("/exit")
    assert session.end() == 0

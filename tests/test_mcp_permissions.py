"""MCP tools under the permission rules, as Claude Code 2.1.332 treats them headless: with no rule
a call is refused before it reaches the server; `mcp__kb`, `mcp__kb__lookup` and `mcp__kb__*`
allow, deny (removing the tool: neither offered nor named) and ask; an interactive "always"
approves the tool for the rest of the session."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from agent.conversation import ToolCall
from agent.loop import AgentSpec, ToolContext
from agent.permissions.policy import Policy
from agent.permissions.rules import rule_warning
from agent.permissions.settings import load_policy
from agent.record.approvals import Approval
from agent.session import Session
from agent.tools.execute import by_name, execute
from agent.workspace import Workspace
from mcp_servers import SERVERS, mcp_config, stdio, tool_results
from scripted_model import Call, calls, text

LOOKUP = Call("mcp__kb__lookup", {"name": "alpha"})
ANSWER = "the code for alpha is 518"


def kb(log: Path) -> str:
    return mcp_config(kb=stdio("knowledge_base.py", KB_CALL_LOG=str(log)))


def tool_names(payload: dict) -> list[str]:
    return [tool.get("name") or tool["function"]["name"] for tool in payload.get("tools", [])]


def result_of(run) -> tuple[str, bool]:
    """The result the model got for its call (the second request's one tool result)."""
    [result] = tool_results(run.payloads[1])
    return result


def calls_made(log: Path) -> str:
    return log.read_text() if log.exists() else ""


# --- rules read on their own (Claude Code's readings, checked against it) -------------------------

def policy(tmp_path: Path, mode: str = "default", allow=(), deny=(), ask=()) -> Policy:
    return Policy(mode=mode, allow=tuple(allow), deny=tuple(deny), ask=tuple(ask), cwd=tmp_path, home=tmp_path)


@pytest.mark.parametrize("rule, allows", [
    ("mcp__kb", True), ("mcp__kb__lookup", True), ("mcp__kb__*", True), ("mcp__kb__look*", True),
    ("mcp__kb__add", False), ("mcp__kb__", False), ("mcp__kbx", False), ("MCP__kb", False),
    # Claude Code: an allow rule must name its server as written, and takes no parentheses
    ("mcp__*", False), ("mcp__k*", False), ("mcp__k*__lookup", False), ("mcp__kb(lookup)", False),
    ("mcp__kb__lookup(*)", False),
])
def test_which_allow_rules_approve_an_mcp_call(tmp_path, rule, allows):
    assert policy(tmp_path, allow=[rule]).check("mcp__kb__lookup", {"name": "x"}, False).allowed is allows


@pytest.mark.parametrize("rule, removes", [
    ("mcp__kb", True), ("mcp__kb__lookup", True), ("mcp__kb__*", True), ("mcp__kb__look*", True),
    ("mcp__*", True), ("mcp__k*", True), ("*", True), ("mcp__kb__add", False), ("mcp__other", False),
    ("mcp__kb(lookup)", True),  # read broadly, as its writer meant it (with a warning)
])
def test_which_deny_rules_remove_an_mcp_tool(tmp_path, rule, removes):
    p = policy(tmp_path, "bypassPermissions", deny=[rule])
    assert p.removes("mcp__kb__lookup") is removes
    assert p.check("mcp__kb__lookup", {}, False).kind == ("deny" if removes else "")  # a call is refused too


def test_a_server_wide_rule_covers_a_server_whose_name_starts_with_it(tmp_path):
    """The documented pitfall: `mcp__reports` is also every tool of the server `reports__v2`."""
    p = policy(tmp_path, deny=["mcp__reports"], allow=["mcp__reports__v2__*"])
    assert p.removes("mcp__reports__v2__run") and p.removes("mcp__reports__run")
    assert policy(tmp_path, allow=["mcp__reports__v2__*"]).check("mcp__reports__v2__run", {}, False).allowed
    assert not policy(tmp_path, allow=["mcp__reports__v2__*"]).check("mcp__reports__run", {}, False).allowed


def test_an_ask_rule_refuses_in_print_mode_even_where_another_rule_allows(tmp_path):
    decision = policy(tmp_path, allow=["mcp__kb"], ask=["mcp__kb__*"]).check("mcp__kb__lookup", {}, False)
    assert (decision.allowed, decision.kind) == (False, "ask")
    assert "'mcp__kb__*'" in decision.reason and "permissions.ask" in decision.reason
    assert policy(tmp_path, "bypassPermissions", ask=["mcp__kb"]).check("mcp__kb__lookup", {}, False).allowed


@pytest.mark.parametrize("rule, kind, warning", [
    ("mcp__kb(lookup)", "allow", "is an MCP rule, which takes no parentheses; it is ignored"),
    ("mcp__kb(lookup)", "deny", "is an MCP rule, which takes no parentheses; it is read as mcp__kb"),
    ("mcp__kb__lookup(*)", "allow", "is an MCP rule, which takes no parentheses; it is ignored"),
    ("mcp__*", "allow", "has '*' in its MCP server name, which only deny and ask rules may; it is ignored"),
    ("mcp__kb__", "deny", "ends with '__', naming no tool (write the server alone for all its tools); "
                          "it is read as mcp__kb"),
    ("mcp__", "deny", "names no MCP server; it is ignored"),
    ("mcp__*", "deny", None), ("mcp__kb", "allow", None), ("mcp__kb__look*", "allow", None),
])
def test_malformed_mcp_rules_are_one_warning(rule, kind, warning):
    assert rule_warning(rule, kind) == warning


def test_a_deny_rule_with_many_stars_cannot_hang_the_check(tmp_path):
    """A backtracking regex would take hours over this name; a rule comes from files others write."""
    p = policy(tmp_path, deny=["*a" * 40 + "b"])
    assert not p.removes("mcp__" + "a" * 58)


# --- whole runs, both wires -------------------------------------------------------------------------

def test_accept_edits_mode_refuses_an_mcp_call_as_default_mode_does(tmp_path):
    refused = [policy(tmp_path, mode).check("mcp__kb__lookup", {}, False) for mode in ("default", "acceptEdits")]
    assert refused[0] == refused[1] and refused[0].kind == "approval"
    assert refused[0].suggestion == "mcp__kb__lookup"  # what an interactive "always" adds


def test_with_no_rule_the_call_is_refused_before_it_reaches_the_server(agent, tmp_path):
    agent.settings({"permissions": {"allow": ["mcp__kb__add"]}})  # another tool's rule allows nothing here
    log = tmp_path / "calls.log"
    agent.script(calls(LOOKUP), text("not allowed"))
    run = agent.run("Look up alpha.", "--mcp-config", kb(log), "--permission-mode", "default", "--output-format", "json")
    assert run.exit_code == 0, run.stderr
    reason, is_error = result_of(run)
    assert is_error and reason.startswith("mcp__kb__lookup needs approval")
    assert "--allowedTools 'mcp__kb__lookup'" in reason and "--allowedTools 'mcp__kb'" in reason
    assert [d["tool_name"] for d in json.loads(run.stdout)["permission_denials"]] == ["mcp__kb__lookup"]
    assert calls_made(log) == ""


def test_dont_ask_mode_says_why_it_refuses(agent, tmp_path):
    agent.settings({})
    log = tmp_path / "calls.log"
    agent.script(calls(LOOKUP), text("not allowed"))
    run = agent.run("Look up alpha.", "--mcp-config", kb(log), "--permission-mode", "dontAsk")
    reason, is_error = result_of(run)
    assert is_error and "runs in dontAsk mode" in reason and "--allowedTools 'mcp__kb__lookup'" in reason
    assert calls_made(log) == ""


@pytest.mark.parametrize("where, rule", [("settings", "mcp__kb"), ("flag", "mcp__kb__*")], ids=["settings-server", "flag-pattern"])
def test_an_allow_rule_lets_the_call_run(agent, tmp_path, where, rule):
    agent.settings({"permissions": {"allow": [rule] if where == "settings" else []}})
    log = tmp_path / "calls.log"
    agent.script(calls(LOOKUP), lambda request: text(request.tool_results()[0]))
    flags = ["--allowedTools", rule] if where == "flag" else []
    run = agent.run("Look up alpha.", "--mcp-config", kb(log), *flags)
    assert run.exit_code == 0, run.stderr
    assert result_of(run) == (ANSWER, False) and run.stdout.strip() == ANSWER
    assert calls_made(log) == "lookup alpha\n"


@pytest.mark.parametrize("where, rule", [("user", "mcp__kb"), ("project", "mcp__kb__lookup"), ("flag", "mcp__kb__*")],
                         ids=["user-server", "project-tool", "flag-pattern"])
def test_a_deny_rule_removes_the_tool(agent, tmp_path, where, rule):
    """Neither offered nor named, in any request; a call the model makes anyway is an unknown
    tool. A project's deny rules apply in a workspace that is not trusted."""
    agent.settings({"permissions": {"defaultMode": "bypassPermissions", "deny": [rule] if where == "user" else []}})
    if where == "project":
        agent.settings({"permissions": {"deny": [rule]}}, where="project")
    log = tmp_path / "calls.log"
    agent.script(calls(LOOKUP), text("no such tool"))
    flags = ["--disallowedTools", rule] if where == "flag" else []
    run = agent.run("Look up alpha.", "--mcp-config", kb(log), *flags)
    assert run.exit_code == 0, run.stderr
    first = run.payloads[0]
    assert "mcp__kb__lookup" not in tool_names(first) and "mcp__kb__lookup" not in json.dumps(first)
    assert ("mcp__kb__add" in tool_names(first)) is (rule == "mcp__kb__lookup")
    reason, is_error = result_of(run)
    assert is_error and reason.startswith("unknown tool 'mcp__kb__lookup'") and "mcp__kb__lookup" not in reason[30:]
    assert calls_made(log) == ""


def test_a_deny_rule_for_another_tool_leaves_lookup_working(agent, tmp_path):
    log = tmp_path / "calls.log"
    agent.script(calls(LOOKUP), lambda request: text(request.tool_results()[0]))
    run = agent.run("Look up alpha.", "--mcp-config", kb(log), "--disallowedTools", "mcp__kb__add")
    assert tool_names(run.payloads[0])[-1:] == ["mcp__kb__lookup"] and "mcp__kb__add" not in json.dumps(run.payloads[0])
    assert run.stdout.strip() == ANSWER and calls_made(log) == "lookup alpha\n"


def test_an_ask_rule_refuses_the_call_in_print_mode(agent, tmp_path):
    agent.settings({"permissions": {"defaultMode": "acceptEdits", "allow": ["mcp__kb"], "ask": ["mcp__kb__lookup"]}})
    log = tmp_path / "calls.log"
    agent.script(calls(LOOKUP), text("asked"))
    run = agent.run("Look up alpha.", "--mcp-config", kb(log))
    reason, is_error = result_of(run)
    assert is_error and reason.startswith("mcp__kb__lookup matches the ask rule 'mcp__kb__lookup'")
    assert "mcp__kb__lookup" in tool_names(run.payloads[0]) and calls_made(log) == ""


def test_malformed_mcp_rules_warn_and_a_parenthesised_deny_still_removes(agent, tmp_path):
    agent.settings({"permissions": {"allow": ["mcp__kb__lookup(*)"], "deny": ["mcp__kb(add)"]}})
    agent.script(text("nothing to call"))
    run = agent.run("Look up alpha.", "--mcp-config", kb(tmp_path / "calls.log"))
    warned = [line for line in run.stderr.splitlines() if "takes no parentheses" in line]
    assert len(warned) == 2, run.stderr
    assert "mcp__kb__lookup(*)" in warned[0] and "ignored" in warned[0] and "read as mcp__kb" in warned[1]
    assert not [name for name in tool_names(run.payloads[0]) if name.startswith("mcp__")]


# --- an interactive approval ------------------------------------------------------------------------

class Person:
    """Answers each approval question from a list, and remembers which tools were asked about."""

    def __init__(self, *answers: str):
        self.answers, self.asked = list(answers), []

    def __call__(self, agent: str, call_id: str, tool: str, arguments: dict) -> Approval:
        self.asked.append(tool)
        return Approval(self.answers.pop(0), "user")


def test_always_approves_that_mcp_tool_for_the_rest_of_the_session(tmp_path):
    from agent.mcp.config import ServerConfig
    from agent.mcp.servers import McpServers

    log = tmp_path / "calls.log"
    (tmp_path / "home").mkdir()
    servers = McpServers([ServerConfig("kb", "stdio", sys.executable, (str(SERVERS / "knowledge_base.py"),),
                                       (("KB_CALL_LOG", str(log)),))], str(tmp_path))
    servers.start()
    try:
        tools = by_name(servers.tools())
        person = Person("always", "no")
        policy = load_policy(tmp_path, tmp_path / "home", None, [], [], False)
        session = Session(workspace=Workspace(tmp_path), policy=policy, approver=person, mcp=servers)
        context = ToolContext(session, AgentSpec("main", "", tools, "m", 10, policy=policy))
        first = execute(ToolCall("c1", "mcp__kb__lookup", {"name": "alpha"}), tools, context)
        second = execute(ToolCall("c2", "mcp__kb__lookup", {"name": "beta"}), tools, context)
        other = execute(ToolCall("c3", "mcp__kb__add", {"a": 1, "b": 2}), tools, context)
    finally:
        servers.close()
    assert first["content"] == ANSWER and "beta" in second["content"] and other["is_error"]
    assert person.asked == ["mcp__kb__lookup", "mcp__kb__add"] and session.approved == ("mcp__kb__lookup",)
    assert log.read_text() == "lookup alpha\nlookup beta\n"

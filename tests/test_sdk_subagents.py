"""The Agent SDK's subagents page on our CLI, both wires: its five Python examples
(tests/sdk_app/subagents_page.py) run as written, each against a scripted model that makes it do
what it shows: two defined agents each doing its part, a factory's agent on the model its level
chose, an Agent call and the messages from inside it told apart, an agent continued by the id its
result gave, and a read-only agent offered only Read, Grep and Glob."""

from __future__ import annotations

import asyncio
import json
import re

from scripted_model import Call, call, calls, text
from sdk_app.subagents_page import (create_subagents, detect_invocation, dynamic_configuration, read_only_analyzer,
                                    resume_agent)
from sdk_session import payloads_in, sdk_options

AUTH = "SECRET = 'hunter2'  # hard-coded\n\ndef login(user, password):\n    return password == SECRET\n"
AUTH_TEST = "from auth import login\nassert login('u', 'hunter2')\nprint('1 passed')\n"


def options_for(agent, stderr):
    """The seed's ClaudeAgentOptions(...), with our CLI, the workspace and the cassette added."""
    return lambda **options: sdk_options(agent, stderr, **options)[0]


def tool_names(payload):
    """The names of the tools a request offers, sorted."""
    return sorted(t.get("name") or t["function"]["name"] for t in payload.get("tools", []))


def requests_of(payloads, marker):
    """The requests whose system prompt holds `marker` (a subagent's prompt)."""
    return [p for p in payloads if marker in json.dumps(p.get("system") or p["messages"][0])]


def payloads_of(agent, number=1):
    """The requests of the test's session `number`."""
    return payloads_in(agent.cassette_path(number))


def first_result(request) -> str:
    return request.reports()[0].split("\nagentId:")[0]


def test_the_code_reviewer_and_the_test_runner_both_report(agent, capsys):
    agent.allow_any_model()  # the reviewer runs on sonnet
    agent.write("auth.py", AUTH)
    agent.write("test_auth.py", AUTH_TEST)
    agent.script(calls(
        Call("Agent", {"description": "Review auth module", "prompt": "Review auth.py for security issues.",
                       "subagent_type": "code-reviewer", "run_in_background": False}),
        Call("Agent", {"description": "Run auth tests", "prompt": "Run test_auth.py and report.",
                       "subagent_type": "test-runner", "run_in_background": False}),
    ))
    agent.route("Review auth.py", call("Read", file_path="auth.py"),
                text("REVIEW-4471: auth.py hard-codes its password in SECRET (line 1)."))
    agent.route("Run test_auth.py", call("Bash", command="python3 test_auth.py"),
                lambda request: text(f"TESTS-8123: {request.tool_results()[0].strip().splitlines()[-1]}"))
    agent.script(lambda request: text(" | ".join(r.split("\nagentId:")[0] for r in request.reports())))
    stderr: list[str] = []
    asyncio.run(create_subagents(options_for(agent, stderr)))
    printed = capsys.readouterr().out
    assert printed == ("REVIEW-4471: auth.py hard-codes its password in SECRET (line 1). | TESTS-8123: 1 passed\n"), stderr
    payloads = payloads_of(agent)
    reviewer, runner = requests_of(payloads, "code review specialist"), requests_of(payloads, "test execution specialist")
    assert len(reviewer) == 2 and len(runner) == 2
    assert all(tool_names(p) == ["Glob", "Grep", "Read"] for p in reviewer)
    assert all(tool_names(p) == ["Bash", "Grep", "Read"] for p in runner)
    assert {p["model"] for p in reviewer} == {"anthropic/claude-sonnet-4.5" if agent.provider == "openrouter"
                                              else "claude-sonnet-4-5"}
    assert "hunter2" in json.dumps(reviewer[-1]) and "1 passed" in json.dumps(runner[-1])
    main = payloads[0]
    assert "code-reviewer" in json.dumps(main) and "Expert code review specialist" in json.dumps(main)


def test_the_security_reviewer_runs_on_the_model_its_level_chose(agent, capsys):
    agent.allow_any_model()
    agent.write("pr.diff", "+ os.system(request.args['cmd'])\n")
    for level in ("strict", "balanced"):
        agent.script(call("Agent", description="Security review", prompt=f"Review pr.diff ({level}).",
                          subagent_type="security-reviewer", run_in_background=False))
        agent.route(f"Review pr.diff ({level})", call("Grep", pattern="os.system"),
                    text(f"{level.upper()}-REVIEW: pr.diff runs a shell command taken from the request."))
        agent.script(lambda request: text(first_result(request)))
    stderr: list[str] = []
    asyncio.run(dynamic_configuration(options_for(agent, stderr), "strict"))
    asyncio.run(dynamic_configuration(options_for(agent, stderr), "balanced"))
    assert capsys.readouterr().out == ("STRICT-REVIEW: pr.diff runs a shell command taken from the request.\n"
                                       "BALANCED-REVIEW: pr.diff runs a shell command taken from the request.\n"), stderr
    family = {"opus": "anthropic/claude-opus-4.5", "sonnet": "anthropic/claude-sonnet-4.5"} if agent.provider == "openrouter" \
        else {"opus": "claude-opus-4-5", "sonnet": "claude-sonnet-4-5"}
    for number, (level, model) in enumerate((("strict", "opus"), ("balanced", "sonnet")), 1):
        payloads = payloads_of(agent, number)
        reviewer = requests_of(payloads, f"You are a {level} security reviewer...")
        assert len(reviewer) == 2 and {p["model"] for p in reviewer} == {family[model]}
        assert all(tool_names(p) == ["Glob", "Grep", "Read"] for p in reviewer)
        assert {p["model"] for p in payloads if p not in reviewer} == {
            "anthropic/claude-haiku-4.5" if agent.provider == "openrouter" else "claude-haiku-4-5"}


def script_one_review(agent):
    agent.write("app.py", "def add(a, b):\n    return a+b\n")
    agent.script(call("Agent", description="Review the codebase", prompt="Review the code in this folder.",
                      subagent_type="code-reviewer", run_in_background=False))
    agent.route("Review the code in this folder", call("Glob", pattern="*.py"), call("Read", file_path="app.py"),
                text("QUALITY-2290: app.py is fine; add() could use a docstring."))
    agent.script(lambda request: text(first_result(request)))


def test_an_agent_call_and_the_messages_from_inside_it_are_detected(agent, capsys):
    script_one_review(agent)
    stderr: list[str] = []
    asyncio.run(detect_invocation(options_for(agent, stderr)))
    # the Agent call; inside it: its prompt, Glob, its result, Read, its result, its report; then the answer
    assert capsys.readouterr().out.splitlines() == [
        "Subagent invoked: code-reviewer", *["  (running inside subagent)"] * 6,
        "QUALITY-2290: app.py is fine; add() could use a docstring."], stderr


ROUTES = ("from app import app\n@app.get('/users')\ndef list_users(): ...\n@app.post('/orders')\ndef create_order(): ...\n"
          "@app.delete('/items/{id}')\ndef delete_item(id): ...\n")


def test_an_agent_is_resumed_by_the_id_its_result_gave(agent, capsys):
    agent.write("routes.py", ROUTES)
    agent.script(call("Agent", description="Find API endpoints", prompt="Find every API endpoint in this codebase.",
                      subagent_type="endpoint-finder", run_in_background=False))
    agent.route("Find every API endpoint", call("Grep", pattern="@app\\.", output_mode="content"),
                text("ENDPOINTS-5519: GET /users (list_users), POST /orders (create_order), "
                     "DELETE /items/{id} (delete_item)"))
    agent.script(lambda request: text(first_result(request)),
                 # query 2: the model continues the agent named in the prompt
                 lambda request: call("SendMessage", to=re.search(r"Resume agent (\w+)", request.raw).group(1),
                                      summary="top 3 complex endpoints",
                                      message="List the top 3 most complex endpoints."))
    # the continued agent sees its whole earlier conversation and the coordinator's message
    agent.route("Find every API endpoint", lambda request: text(
        "TOP3-7702: DELETE /items/{id}, POST /orders, GET /users" if "ENDPOINTS-5519" in request.raw
        and "List the top 3 most complex endpoints." in request.raw else "lost my context"))
    agent.script(lambda request: text(first_result(request)))
    stderr: list[str] = []
    agent_id, session_id = asyncio.run(resume_agent(options_for(agent, stderr)))
    assert capsys.readouterr().out.splitlines() == [
        "ENDPOINTS-5519: GET /users (list_users), POST /orders (create_order), DELETE /items/{id} (delete_item)",
        "TOP3-7702: DELETE /items/{id}, POST /orders, GET /users"], stderr
    assert re.fullmatch(r"a[0-9a-f]{16}", agent_id) and session_id
    second = payloads_of(agent, 2)
    assert f"Resume agent {agent_id}" in json.dumps(second[0]) and "ENDPOINTS-5519" in json.dumps(second[0])
    finder = requests_of(second, "You find and document API endpoints.")
    assert len(finder) == 1 and tool_names(finder[0]) == ["Glob", "Grep", "Read"]


def test_the_code_analyzer_is_offered_only_read_grep_and_glob(agent, capsys):
    agent.write("core/models.py", "class User: ...\n")
    agent.write("web/views.py", "from core.models import User\n")
    agent.script(call("Agent", description="Architecture review", prompt="Analyze the architecture of this codebase.",
                      subagent_type="code-analyzer", run_in_background=False))
    agent.route("Analyze the architecture of this codebase.", call("Glob", pattern="**/*.py"),
                call("Grep", pattern="^from ", output_mode="content"),
                text("ARCH-3318: two layers, web depends on core; core depends on nothing."))
    agent.script(lambda request: text(first_result(request)))
    stderr: list[str] = []
    asyncio.run(read_only_analyzer(options_for(agent, stderr)))
    assert capsys.readouterr().out == "ARCH-3318: two layers, web depends on core; core depends on nothing.\n", stderr
    analyzer = requests_of(payloads_of(agent), "You are a code architecture analyst.")
    assert len(analyzer) == 3 and all(tool_names(p) == ["Glob", "Grep", "Read"] for p in analyzer)
    assert "web/views.py" in json.dumps(analyzer[1]) and "from core.models import User" in json.dumps(analyzer[2])

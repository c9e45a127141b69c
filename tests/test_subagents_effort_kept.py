"""An Agent call's `effort` stays in effect when the agent is continued with SendMessage, in the
same run and after --resume, as the subagents page says (the call's model does too); an agent
its call gave no effort is continued at the effort it ran at before. Both wire formats."""

import json
import re

from scripted_model import call, text

AGENT_ID = re.compile(r"agentId: (a[0-9a-f]{16}) ")
MAIN = {"openrouter": "anthropic/claude-opus-4.5", "anthropic": "claude-opus-4-5"}
BODY = "PLAIN AGENT BODY"


def effort_of(payload):
    """The effort a request asks: output_config on the Messages API, reasoning on OpenRouter."""
    return (payload.get("output_config") or payload.get("reasoning") or {}).get("effort")


def agent_requests(run):
    return [p for p in run.payloads if BODY in json.dumps(p.get("system") or p["messages"][0])]


def send(message):
    """SendMessage to the agent the conversation's latest Agent result names."""
    return lambda request: call("SendMessage", to=AGENT_ID.findall(json.dumps(request.messages))[-1], message=message)


def delegate(task, **extra):
    return call("Agent", description="check", prompt=task, subagent_type="plain", run_in_background=False, **extra)


def test_the_calls_effort_is_kept_when_the_agent_is_continued(agent):
    agent.allow_any_model()
    agent.agent_file("plain.md", "plain", "Plain agent.", BODY)
    agent.script(delegate("Task one.", effort="high"), text("first answer"), send("Go on."), text("second answer"),
                 delegate("Task two."), text("third answer"), send("Go on too."), text("fourth answer"), text("done"))
    run = agent.run("Run the tasks.", "--model", MAIN[agent.provider], "--effort", "low")
    assert run.exit_code == 0 and run.stdout == "done\n", run.stderr
    assert [effort_of(p) for p in agent_requests(run)] == ["high", "high", "low", "low"]
    assert effort_of(run.payloads[0]) == "low"  # the main conversation keeps the session's


def test_the_calls_effort_is_kept_after_resume(agent):
    agent.allow_any_model()
    agent.agent_file("plain.md", "plain", "Plain agent.", BODY)
    agent.script(delegate("Task one.", effort="high"), text("first answer"), text("Delegated."))
    first = agent.run("Run the task.", "--model", MAIN[agent.provider], "--effort", "low", "--output-format", "json")
    assert first.exit_code == 0, first.stderr
    session = json.loads(first.stdout)["session_id"]
    agent.script(send("Go on."), text("second answer"), text("Continued."))
    second = agent.run("Continue it.", "--resume", session, "--model", MAIN[agent.provider], "--effort", "low")
    assert second.exit_code == 0 and second.stdout == "Continued.\n", second.stderr
    (continued,) = agent_requests(second)
    assert effort_of(continued) == "high"
    assert "first answer" in json.dumps(continued["messages"])

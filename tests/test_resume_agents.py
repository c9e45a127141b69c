"""Resumable subagents on both wire formats: the agentId line of an Agent result, SendMessage
continuing a finished agent (its request holds its earlier conversation) within a run, across a
--resume, by name and under --no-session-persistence, a stale name, the maxTurns note and the
clean-up of old transcripts."""

import json
import os
import re
import time

from scripted_model import call, text

REVIEWER = "You are a meticulous code reviewer."
AGENT_ID = re.compile(r"agentId: (a[0-9a-f]{16}) \(use SendMessage with to: '\1', summary: '<5-10 word recap>' to continue this agent\)")
COORDINATOR = ("The coordinator sent a message while you were working:\n{}\n\n"
               "Address this before completing your current task.")


def tool_names(payload):
    return [t.get("name") or t["function"]["name"] for t in payload.get("tools", [])]


def reviewer_requests(run):
    return [p for p in run.payloads if REVIEWER in json.dumps(p.get("system") or p["messages"][0])]


def texts(payload):
    """Every text of a request's messages, in order (tool calls as 'call NAME', results as sent)."""
    found = []
    for message in payload["messages"]:
        if message["role"] == "system":
            continue
        content = message.get("content")
        if isinstance(content, str):
            found.append(content)
        for block in content if isinstance(content, list) else []:
            found.append(block.get("text") or (f"call {block['name']}" if block.get("type") == "tool_use" else None)
                         or json.dumps(block.get("content")))
        for tool_call in message.get("tool_calls") or []:
            found.append(f"call {tool_call['function']['name']}")
    return [t for t in found if t]


def agent_id_in(request):
    """The agentId the latest tool results carry (the scripted main conversation reads it)."""
    return AGENT_ID.search("\n".join(request.tool_results())).group(1)


def send(message, to=None, **extra):
    """A scripted SendMessage call to `to` (default: the agent the latest result names)."""
    return lambda request: call("SendMessage", to=to or agent_id_in(request), message=message, **extra)


def relay(request):
    return text("Relayed: " + request.reports()[0].split("\n")[0])


def reviewer(agent):
    agent.agent_file("reviewer.md", "reviewer", "Reviews code.", REVIEWER, "tools: Read")
    agent.write("a.py", "x = 1\n")


def test_agent_result_carries_the_agent_id_and_explore_none(agent):
    reviewer(agent)
    agent.script(
        call("Agent", description="Review", prompt="Review a.py.", subagent_type="reviewer", run_in_background=False),
        text("a.py is fine"),
        call("Agent", description="Look", prompt="Find a.py.", subagent_type="Explore", run_in_background=False),
        text("found a.py"),
        text("done"),
    )
    run = agent.run("Review and explore.")
    assert run.exit_code == 0, run.stderr
    results = [t for t in texts(run.payloads[-1]) if "<usage>" in t]
    review, explore = (json.loads(t) if t.startswith('"') else t for t in results)
    found = AGENT_ID.search(review)
    assert found and review.index("a.py is fine") < found.start() < review.index("<usage>")
    assert "agentId" not in explore and "found a.py" in explore
    assert "SendMessage" in tool_names(run.payloads[0])
    assert "SendMessage" not in tool_names(reviewer_requests(run)[0])
    transcript = agent.home.glob(f".claude/projects/*/*/subagents/agent-{found.group(1)}.jsonl")
    assert len(list(transcript)) == 1


def test_send_message_continues_a_finished_agent_with_its_history(agent):
    reviewer(agent)
    agent.script(
        call("Agent", description="Review", prompt="Review a.py.", subagent_type="reviewer", run_in_background=False),
        call("Read", file_path="a.py"),
        text("a.py sets x"),
        send("Is x used anywhere?", summary="ask about x"),
        text("x is never used"),
        relay,
    )
    run = agent.run("Review a.py, then ask about x.")
    assert run.exit_code == 0, run.stderr
    assert run.stdout.startswith("Relayed: x is never used")
    continued = reviewer_requests(run)[-1]
    said = texts(continued)
    assert said[0] == "Review a.py." and said[1] == "call Read" and "x = 1" in said[2]
    assert said[3] == "a.py sets x" and said[4] == COORDINATOR.format("Is x used anywhere?")
    assert tool_names(continued) == ["Read"]
    assert continued["model"] == reviewer_requests(run)[0]["model"]
    assert AGENT_ID.search(texts(run.payloads[-1])[-1])


def test_an_agent_is_continued_after_resume_by_id_and_by_name(agent):
    reviewer(agent)
    agent.script(
        call("Agent", description="Review", prompt="Review a.py.", subagent_type="reviewer", run_in_background=False),
        text("a.py sets x to 1"),
        text("Reviewed."),
    )
    first = agent.run("Review a.py.", "--output-format", "json")
    session = json.loads(first.stdout)["session_id"]
    agent_id = AGENT_ID.search(json.dumps(first.payloads[-1])).group(1)

    def by_id(request):
        return call("SendMessage", to=AGENT_ID.search(json.dumps(request.messages)).group(1), message="What is x?")

    agent.script(by_id, text("x is 1"), send("And y?", to="reviewer"), text("there is no y"), relay)
    second = agent.run("Ask the reviewer again.", "--resume", session)
    assert second.exit_code == 0, second.stderr
    assert second.stdout.startswith("Relayed: there is no y")
    first_sub, second_sub = reviewer_requests(second)
    assert texts(first_sub) == ["Review a.py.", "a.py sets x to 1", COORDINATOR.format("What is x?")]
    assert texts(second_sub)[-2:] == ["x is 1", COORDINATOR.format("And y?")]
    assert agent_id in json.dumps(second.payloads[-1])


def test_a_name_now_held_by_another_agent_is_refused_naming_it(agent):
    reviewer(agent)
    agent.script(
        call("Agent", description="Review", prompt="Review a.py.", subagent_type="reviewer", run_in_background=False),
        text("first review"),
        call("Agent", description="Review again", prompt="Review a.py again.", subagent_type="reviewer", run_in_background=False),
        text("second review"),
        send("Which review?", to="reviewer"),
        lambda request: text("Refused: " + request.tool_results()[0]),
    )
    run = agent.run("Review twice.")
    assert run.exit_code == 0, run.stderr
    ids = AGENT_ID.findall(json.dumps(run.payloads[-1]))
    first, second = dict.fromkeys(ids)
    assert f"the name 'reviewer' is now held by agent {second}; it no longer names the earlier agent {first}" in run.stdout
    assert len(reviewer_requests(run)) == 2  # nothing was sent to either agent


def test_a_turn_limited_report_says_a_message_lets_the_agent_go_on(agent):
    agent.agent_file("reviewer.md", "reviewer", "Reviews code.", REVIEWER, "tools: Read\nmaxTurns: 1")
    agent.write("a.py", "x = 1\n")
    agent.script(
        call("Agent", description="Review", prompt="Review a.py.", subagent_type="reviewer", run_in_background=False),
        call("Read", "Reading a.py first.", file_path="a.py"),
        send("Go on."),
        call("Read", "Reading again.", file_path="a.py"),
        lambda request: text(request.tool_results()[0]),
    )
    run = agent.run("Review a.py.")
    assert run.exit_code == 0, run.stderr
    note = ("NOTE: this agent stopped at its 1-turn limit before finishing. The text below is PARTIAL output; "
            "treat it as incomplete. Send the agent a message (SendMessage) to let it continue from where it stopped.")
    assert note in json.dumps(run.payloads[2]) and run.stdout.startswith(note)
    continued = reviewer_requests(run)[-1]
    assert texts(continued)[-1] == COORDINATOR.format("Go on.") and "Reading a.py first." in texts(continued)


def test_send_message_works_without_session_persistence(agent):
    reviewer(agent)
    agent.script(
        call("Agent", description="Review", prompt="Review a.py.", subagent_type="reviewer", run_in_background=False),
        text("a.py sets x"),
        send("Anything else?"),
        text("nothing else"),
        relay,
    )
    run = agent.run("Review a.py.", "--no-session-persistence")
    assert run.exit_code == 0, run.stderr
    assert run.stdout.startswith("Relayed: nothing else")
    assert texts(reviewer_requests(run)[-1]) == ["Review a.py.", "a.py sets x", COORDINATOR.format("Anything else?")]
    assert not list(agent.home.glob(".claude/projects/*/*"))


def test_transcripts_older_than_cleanup_period_days_are_removed(agent):
    agent.settings({"permissions": {"defaultMode": "bypassPermissions"}, "cleanupPeriodDays": 7})
    old_session, new_session = "5b7a0f0e-1111-4222-8333-944445555666", "5b7a0f0e-1111-4222-8333-944445555777"
    folder = agent.home / ".claude" / "projects" / "-some-project"
    files = {
        "old": folder / f"{old_session}.jsonl",
        "old agent": folder / old_session / "subagents" / "agent-a0123456789abcdef.jsonl",
        "new": folder / f"{new_session}.jsonl",
        "kept": folder / "notes.txt",
    }
    for path in files.values():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}\n")
    eight_days_ago = time.time() - 8 * 86400
    for name in ("old", "old agent", "kept"):
        os.utime(files[name], (eight_days_ago, eight_days_ago))
    agent.script(text("hi"))
    run = agent.run("Hello.")
    assert run.exit_code == 0, run.stderr
    assert not files["old"].exists() and not files["old agent"].exists() and not (folder / old_session).exists()
    assert files["new"].exists() and files["kept"].exists()
    assert list(agent.home.glob(".claude/projects/*/*.jsonl"))  # this run's own transcript is written

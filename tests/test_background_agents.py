"""Background subagents end to end on both wire formats: the main conversation's Agent calls return
at once with Claude Code's launch result, and each agent's report reaches the main conversation
as a <task-notification> in a later request (all of them, in launch order, once the model would
otherwise end), which the final answer can use."""

import json
import re

import pytest
from pty_session import start  # noqa: F401 (the interactive test's fixture)
from scripted_model import Call, call, calls, fail, text

LAUNCHED = "Async agent launched successfully."


def notified(request) -> str:
    """The text of the notifications in a request's last message ('' when it carries none)."""
    last = json.dumps(request.messages[-1])
    return last if "<task-notification>" in last else ""


def echo_notifications(request):
    return text("Final: " + notified(request))


def main_requests(run, marker):
    """The requests of the main conversation: those whose first message is not a subagent's task
    (`marker` is in every subagent task of the test)."""
    def first(payload):
        messages = [m for m in payload["messages"] if m["role"] != "system"]
        return json.dumps(messages[0])
    return [p for p in run.payloads if marker not in first(p)]


def test_background_agent_report_arrives_in_a_later_request(agent):
    agent.script(
        call("Agent", description="Count files", prompt="TASK: count the files."),
        lambda request: text("Launched: " + request.tool_results()[0].split("\n")[0]),
        lambda request: text("The agent says: " + notified(request)),
    )
    agent.route("TASK: count the files.", text("There are <3> files."))
    run = agent.run("How many files are there? Ask an agent.")
    assert run.exit_code == 0, run.stderr
    assert "The agent says:" in run.stdout and "There are &lt;3&gt; files." in run.stdout
    assert "<status>completed</status>" in run.stdout and 'Agent \\"Count files\\" finished' in run.stdout
    main = main_requests(run, "TASK:")
    assert len(main) == 3
    launch = json.dumps(main[1]["messages"][-1])
    assert LAUNCHED in launch and "There are" not in launch
    agent_id = re.search(r"agentId: (a[0-9a-f]{16}) \(internal ID", launch).group(1)
    assert "output_file" not in launch
    last = json.dumps(main[2]["messages"][-1])
    assert f"<task-id>{agent_id}</task-id>" in last and "[SYSTEM NOTIFICATION - NOT USER INPUT]" in last
    assert "<tool_uses>0</tool_uses>" in last and "duration_ms" not in last


def test_background_definition_wins_over_run_in_background_false(agent):
    agent.agent_file("scout.md", "scout", "Scouts around.", "SCOUT BODY", "background: true")
    agent.script(
        call("Agent", description="Scout", prompt="TASK: scout.", subagent_type="scout", run_in_background=False),
        lambda request: text("got: " + request.tool_results()[0].split("\n")[0]),
        echo_notifications,
    )
    agent.route("TASK: scout.", text("scouted the hills"))
    run = agent.run("Send the scout.")
    assert run.exit_code == 0, run.stderr
    assert "scouted the hills" in run.stdout
    main = main_requests(run, "TASK:")
    assert LAUNCHED in json.dumps(main[1]["messages"][-1])


def test_run_in_background_false_stays_in_the_foreground(agent):
    agent.script(
        call("Agent", description="Count", prompt="TASK: count.", run_in_background=False),
        lambda request: text("Report: " + request.reports()[0].split("\n")[0]),
    )
    agent.route("TASK: count.", text("seven things"))
    run = agent.run("Count with an agent, and wait for it.")
    assert run.exit_code == 0, run.stderr
    assert run.stdout.strip() == "Report: seven things"
    assert not any("<task-notification>" in body for body in run.bodies)


def test_two_background_agents_are_reported_in_launch_order(agent):
    agent.script(
        calls(Call("Agent", {"description": "Slow one", "prompt": "TASK: slow."}),
              Call("Agent", {"description": "Fast one", "prompt": "TASK: fast."})),
        text("Both launched."),
        echo_notifications,
    )
    agent.route("TASK: slow.", text("slow report", delay_s=0.5))  # finishes last, reported first
    agent.route("TASK: fast.", text("fast report"))
    run = agent.run("Start two agents.")
    assert run.exit_code == 0, run.stderr
    main = main_requests(run, "TASK:")
    assert len(main) == 3
    launches = json.dumps(main[1]["messages"])
    assert launches.count(LAUNCHED) == 2
    last = main[2]["messages"][-1]
    assert last["role"] == "user"
    delivered = json.dumps(last["content"])
    assert delivered.count("<task-notification>") == 2
    assert delivered.index("slow report") < delivered.index("fast report")
    assert run.stdout.index("slow report") < run.stdout.index("fast report")


def test_a_failing_background_agent_is_a_failed_notification(agent):
    agent.script(
        calls(Call("Agent", {"description": "Breaks", "prompt": "TASK: break."}),
              Call("Agent", {"description": "Works", "prompt": "TASK: work."})),
        text("Launched."),
        echo_notifications,
    )
    agent.route("TASK: break.", fail(400, "the request was not acceptable"))
    agent.route("TASK: work.", text("worked fine"))
    run = agent.run("Start a failing and a working agent.")
    assert run.exit_code == 0, run.stderr
    assert "<status>failed</status>" in run.stdout and "the request was not acceptable" in run.stdout
    assert 'Agent \\"Breaks\\" failed' in run.stdout
    assert "<status>completed</status>" in run.stdout and "worked fine" in run.stdout


def test_json_and_stream_json_show_background_agents(agent):
    agent.script(
        call("Agent", description="Look", prompt="TASK: look.", subagent_type="Explore"),
        text("Waiting."),
        echo_notifications,
    )
    agent.route("TASK: look.", text("looked everywhere"))
    run = agent.run("Explore in the background.", "--output-format", "json")
    assert run.exit_code == 0, run.stderr
    result = json.loads(run.stdout)
    assert "looked everywhere" in result["result"]
    assert [(s["type"], s.get("background")) for s in result["subagents"]] == [("Explore", True)]

    streamed = agent.replay("--output-format", "stream-json", "--verbose")
    assert streamed.exit_code == 0, streamed.stderr
    lines = [json.loads(line) for line in streamed.stdout.splitlines()]
    tasks = [line for line in lines if line.get("subtype") in ("task_started", "task_notification")]
    assert [t["subtype"] for t in tasks] == ["task_started", "task_notification"]
    started, ended = tasks
    assert started["is_backgrounded"] is True and started["task_type"] == "local_agent"
    assert started["subagent_type"] == "Explore" and started["prompt"] == "TASK: look." and started["description"] == "Look"
    assert started["tool_use_id"] and re.fullmatch(r"a[0-9a-f]{16}", started["task_id"])
    assert {"uuid", "session_id"} <= set(started) and {"uuid", "session_id", "output_file"} <= set(ended)
    assert ended["task_id"] == started["task_id"] and ended["status"] == "completed"
    assert ended["summary"] == 'Agent "Look" finished'
    assert lines.index(ended) < lines.index(next(line for line in lines if line["type"] == "result"))


def test_a_replay_with_replay_tools_reproduces_background_agents(agent):
    agent.write("notes.txt", "alpha\n")
    agent.script(
        call("Agent", description="Read notes", prompt="TASK: read notes.txt."),
        text("Waiting for it."),
        echo_notifications,
    )
    agent.route("TASK: read notes.txt.", call("Read", file_path="notes.txt"), text("notes say alpha"))
    run = agent.run("What do the notes say?")
    assert run.exit_code == 0, run.stderr
    assert "notes say alpha" in run.stdout and "<tool_uses>1</tool_uses>" in run.stdout
    replayed = agent.replay("--replay-tools")
    assert replayed.exit_code == 0, replayed.stderr
    assert replayed.stdout == run.stdout


@pytest.mark.parametrize("provider", ["openrouter", "anthropic"])
def test_a_background_agents_permission_request_names_it(model, start, provider):
    model.script(call("Agent", description="Touch", prompt="TASK: touch it."), text("Launched it."),
                 lambda request: text("Done: " + ("worked" if "touched" in notified(request) else "no report")))
    model.route("TASK: touch it.", call("Bash", command="touch asked.txt"), text("touched the file"))
    session = start(bypass=False, provider=provider)
    session.ready()
    session.send("Touch the file with an agent")
    session.expect(r"Allow Bash \(asked by the general-purpose agent\)\?")
    session.send("y")
    session.expect("Done: worked")
    assert (session.workspace / "asked.txt").exists()
    session.ready()
    session.send("/exit")


def test_a_run_its_turn_limit_ends_waits_for_its_background_agent_and_the_cassette_replays(agent):
    agent.script(call("Agent", description="Count", prompt="TASK: count."), call("Glob", pattern="*.txt"))
    agent.route("TASK: count.", call("Glob", pattern="*"), text("seven things"))
    run = agent.run("Count in the background.", "--max-turns", "2")
    assert (run.exit_code, run.stderr.splitlines()[-1]) == (1, "error: stopped after reaching the turn limit "
                                                               "(2 turns; raise --max-turns)")
    assert len(run.payloads) - len(main_requests(run, "TASK:")) == 2  # the agent's last request is in the cassette
    replayed = agent.replay()  # and sent again, before the replay's end is checked
    assert (replayed.exit_code, replayed.stderr.splitlines()[-1]) == (1, run.stderr.splitlines()[-1])

"""The todo list as Claude Code 2.1.332 has it, on both wire formats: the task tools TaskCreate,
TaskGet, TaskList and TaskUpdate offered directly (no ToolSearch) with Claude Code's schemas and
result texts, the list shared with a foreground subagent and kept across --continue and
--resume (where Claude Code keeps it, ~/.claude/tasks/<session-id>/), stream-json's
tool_use_result, TaskStop's errors, and a replay that answers the tools from the cassette."""

from __future__ import annotations

import json
from pathlib import Path

from scripted_model import Request, call, text


def request(agent, payload: dict) -> Request:
    """A recorded request read with the scripted model's helpers (either wire)."""
    return Request("/api/v1/chat/completions" if agent.provider == "openrouter" else "/v1/messages", payload)


def results(agent, run) -> list[str]:
    """The tool result each request after the first answers with, in order."""
    return [text for payload in run.payloads[1:] for text in request(agent, payload).tool_results()]


def tool_names(payload: dict) -> list[str]:
    return [t.get("name") or t["function"]["name"] for t in payload.get("tools", [])]


def tool_schema(payload: dict, name: str) -> dict:
    for tool in payload["tools"]:
        if (tool.get("name") or tool["function"]["name"]) == name:
            return tool.get("input_schema") or tool["function"]["parameters"]
    raise KeyError(name)


def stream(run) -> list[dict]:
    return [json.loads(line) for line in run.stdout.splitlines()]


def create(subject: str, description: str, **more):
    return call("TaskCreate", subject=subject, description=description, **more)


def test_the_task_tools_are_offered_after_grep_and_answer_as_claude_code_does(agent):
    agent.script(
        call("TaskList"),
        create("Write tests", "Write the tests", activeForm="Writing tests"),
        create("Fix bug", "d2"),
        call("TaskUpdate", taskId="1", status="in_progress"),
        call("TaskUpdate", taskId="2", addBlockedBy=["1"], owner="me"),
        call("TaskGet", taskId="2"),
        call("TaskList"),
        call("TaskUpdate", taskId="1", status="completed"),
        call("TaskGet", taskId="1"),
        call("TaskList"),
        call("TaskUpdate", taskId="2", status="deleted"),
        call("TaskUpdate", taskId="2", status="completed"),
        call("TaskGet", taskId="99"),
        call("TaskUpdate", taskId="1", status="bogus"),
        create("Third", "d3"),
        call("TaskUpdate", taskId="3"),
        text("Done."),
    )
    run = agent.run("Plan the work.")
    assert run.exit_code == 0, run.stderr
    assert run.stdout.strip() == "Done."
    names = tool_names(run.payloads[0])
    assert names.index("TaskCreate") > names.index("Grep")
    assert [n for n in names if n.startswith("Task")] == ["TaskCreate", "TaskGet", "TaskList", "TaskUpdate", "TaskStop"]
    assert "TodoWrite" not in names and "ToolSearch" not in names
    assert tool_schema(run.payloads[0], "TaskUpdate")["properties"]["status"]["anyOf"] == [
        {"type": "string", "enum": ["pending", "in_progress", "completed"]}, {"type": "string", "const": "deleted"}]
    assert tool_schema(run.payloads[0], "TaskCreate")["required"] == ["subject", "description"]
    seen = results(agent, run)
    assert seen[:13] == [
        "No tasks found",
        "Task #1 created successfully: Write tests",
        "Task #2 created successfully: Fix bug",
        "Updated task #1 status",
        "Updated task #2 owner, blockedBy",
        "Task #2: Fix bug\nStatus: pending\nDescription: d2\nBlocked by: #1",
        "#1 [in_progress] Write tests\n#2 [pending] Fix bug (me) [blocked by #1]",
        "Updated task #1 status",
        "Task #1: Write tests\nStatus: completed\nDescription: Write the tests\nBlocks: #2",
        "#1 [completed] Write tests\n#2 [pending] Fix bug (me)",  # a completed blocker blocks no more
        "Updated task #2 deleted",
        "Task not found",
        "Task not found",
    ]
    assert "'status' must be one of pending, in_progress, completed or deleted" in seen[13]
    assert seen[14:] == ["Task #3 created successfully: Third", "Updated task #3 "]  # ids are never reused


def test_a_foreground_subagent_shares_the_list_and_it_outlives_the_run(agent):
    agent.script(
        create("Main task", "dm", activeForm="Maining"),
        call("Agent", description="help", prompt="Do it", subagent_type="general-purpose", run_in_background=False),
        call("TaskList"),  # the subagent's
        create("Agent task", "da"),
        call("TaskUpdate", taskId="1", status="in_progress"),
        text("rep"),
        call("TaskList"),  # the main conversation's again
        text("Listed."),
    )
    run = agent.run("Track it.", "--output-format", "json")
    assert run.exit_code == 0, run.stderr
    seen = results(agent, run)
    assert "#1 [pending] Main task" in seen
    assert seen[-1] == "#1 [in_progress] Main task\n#2 [pending] Agent task"
    session_id = json.loads(run.stdout)["session_id"]
    folder = agent.home / ".claude" / "tasks" / session_id
    assert json.loads((folder / "1.json").read_text()) == {
        "id": "1", "subject": "Main task", "description": "dm", "activeForm": "Maining", "status": "in_progress",
        "blocks": [], "blockedBy": []}
    assert sorted(p.name for p in folder.iterdir()) == ["1.json", "2.json"]

    agent.script(call("TaskList"), create("Later", "dl"), text("Still there."))
    again = agent.run("What is left?", "--continue")
    assert again.exit_code == 0, again.stderr
    assert results(agent, again)[-2:] == ["#1 [in_progress] Main task\n#2 [pending] Agent task",
                                          "Task #3 created successfully: Later"]

    agent.script(call("TaskGet", taskId="3"), text("Read."))
    resumed = agent.run("And the last one?", "--resume", session_id)
    assert resumed.exit_code == 0, resumed.stderr
    assert results(agent, resumed)[-1] == "Task #3: Later\nStatus: pending\nDescription: dl"


def test_stream_json_shows_what_the_list_became_on_the_result_line_and_the_list_is_kept_without_a_transcript(agent):
    agent.script(
        create("Write tests", "Write the tests"),
        call("TaskUpdate", taskId="1", status="in_progress"),
        call("TaskList"),
        call("TaskGet", taskId="7"),
        text("Done."),
    )
    run = agent.run("Plan it.", "--output-format", "stream-json", "--verbose", "--no-session-persistence")
    assert run.exit_code == 0, run.stderr
    session_id = stream(run)[-1]["session_id"]  # no transcript, yet the list is kept, as Claude Code keeps it
    assert (agent.home / ".claude" / "tasks" / session_id / "1.json").is_file()
    shown = [line.get("tool_use_result") for line in stream(run) if line["type"] == "user"]
    assert shown == [
        {"task": {"id": "1", "subject": "Write tests", "description": "Write the tests"}},
        {"success": True, "taskId": "1", "updatedFields": ["status"],
         "statusChange": {"from": "pending", "to": "in_progress"}},
        {"tasks": [{"id": "1", "subject": "Write tests", "status": "in_progress", "blockedBy": []}]},
        {"task": None},
    ]


def test_a_replay_runs_the_tools_again_and_replay_tools_answers_them_from_the_cassette(agent, tmp_path):
    agent.script(create("One", "d1"), call("TaskList"), text("Listed."))
    run = agent.run("List it.")
    assert run.exit_code == 0, run.stderr
    assert results(agent, run) == ["Task #1 created successfully: One", "#1 [pending] One"]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    replayed = agent.replay("--replay-tools", cwd=elsewhere)
    assert (replayed.exit_code, replayed.stdout) == (0, run.stdout), replayed.stderr
    again = agent.replay()  # the tools run again, on a new session's empty list: the same requests
    assert (again.exit_code, again.stdout) == (0, run.stdout), again.stderr
    # under --replay-tools the results are the cassette's, and the list is still kept (in memory only)
    folders = sorted((agent.home / ".claude" / "tasks").iterdir())
    streamed = agent.replay("--replay-tools", "--output-format", "stream-json", "--verbose", cwd=elsewhere)
    assert [line.get("tool_use_result") for line in stream(streamed) if line["type"] == "user"] == [
        {"task": {"id": "1", "subject": "One", "description": "d1"}},
        {"tasks": [{"id": "1", "subject": "One", "status": "pending", "blockedBy": []}]}]
    assert sorted((agent.home / ".claude" / "tasks").iterdir()) == folders  # it wrote no task file


def test_task_stop_names_what_it_cannot_stop(agent):
    agent.script(call("TaskStop", task_id="nope"), call("TaskStop"), call("TaskStop", shell_id="nope2"), text("Ok."))
    run = agent.run("Stop it.", "--output-format", "stream-json", "--verbose")
    assert run.exit_code == 0, run.stderr
    assert [line.get("tool_use_result") for line in stream(run) if line["type"] == "user"] == [
        "Error: No task found with ID: nope", "Error: Missing required parameter: task_id",
        "Error: No task found with ID: nope2"]
    errors = [result.removeprefix("Error: ") for result in results(agent, run)]  # the chat wire's mark of an error
    assert errors == ["No task found with ID: nope", "Missing required parameter: task_id",
                      "No task found with ID: nope2"]


def test_tools_offers_the_task_tools_it_names_and_disallowed_tools_refuses_them(agent):
    agent.script(text("Ok."))
    run = agent.run("Hi.", "--tools", "Read,TaskList,TaskGet")
    assert run.exit_code == 0, run.stderr
    assert tool_names(run.payloads[0]) == ["Read", "TaskGet", "TaskList"]
    agent.script(create("One", "d1"), call("TaskList"), text("Ok."))
    denied = agent.run("Hi.", "--disallowedTools", "TaskCreate")
    assert denied.exit_code == 0, denied.stderr
    refused, listed = results(agent, denied)
    assert "TaskCreate" in refused and "Task #1" not in refused and listed == "No tasks found"


def test_task_stop_stops_a_background_agent_and_its_notification_says_killed(agent):
    launch = call("Agent", description="slow", prompt="Count the files.", subagent_type="general-purpose")
    agent.script(launch)
    agent.route("Count the files.", text("There are three."))
    agent.script(
        lambda req: call("TaskStop", task_id=req.tool_results()[-1].split("agentId: ")[1].split(" ")[0]),
        text("Stopped it."),
        text("Told."),
    )
    run = agent.run("Start and stop.", "--output-format", "stream-json", "--verbose")
    assert run.exit_code == 0, run.stderr
    seen = results(agent, run)
    stopped = json.loads(seen[1])
    assert stopped["message"].startswith("Successfully stopped task: a") and stopped["message"].endswith(" (slow)")
    assert (stopped["task_type"], stopped["command"]) == ("local_agent", "slow")
    last = json.dumps(run.payloads[-1]["messages"][-1])
    assert "<status>killed</status>" in last and "was stopped by Claude" in last and "There are three" not in last
    [note] = [line for line in stream(run) if line.get("subtype") == "task_notification"]
    assert note["status"] == "stopped"
    [update] = [line for line in stream(run) if line.get("subtype") == "task_updated"]  # said when it is stopped
    assert (update["task_id"], update["patch"]) == (note["task_id"], {"status": "killed"})
    replayed = agent.replay("--replay-tools")  # the stop is the session's own state: it holds in a replay too
    assert replayed.exit_code == 0, replayed.stderr


def test_an_agent_already_reported_on_is_not_running_and_a_forked_session_starts_a_new_list(agent):
    launch = call("Agent", description="quick", prompt="Say hi.", subagent_type="general-purpose")
    agent.script(create("Keep", "d"), launch)
    agent.route("Say hi.", text("hi"))
    agent.script(
        text("Waiting for it."),  # the turn would end: the agent's report arrives, and the model goes on
        lambda req: call("TaskStop", task_id=json.dumps(req.messages).split("agentId: ")[1].split(" ")[0]),
        text("Nothing to stop."),
    )
    run = agent.run("Start it.", "--output-format", "json")
    assert run.exit_code == 0, run.stderr
    assert results(agent, run)[-1].removeprefix("Error: ").startswith("Task a")
    assert results(agent, run)[-1].endswith(" is not running (status: completed)")
    agent.script(call("TaskList"), text("Empty."))
    forked = agent.run("List.", "--resume", json.loads(run.stdout)["session_id"], "--fork-session")
    assert forked.exit_code == 0, forked.stderr
    assert results(agent, forked)[-1] == "No tasks found"  # as Claude Code: the new session's own list

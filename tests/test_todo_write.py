"""TodoWrite, offered in place of the task tools with CLAUDE_CODE_ENABLE_TASKS=0 as in Claude Code
2.1.332, on both wire formats: its schema and result, its checks, the list cleared once every item
is completed, stream-json's oldTodos/newTodos, the list picked up from the history on --continue,
and (through the tools themselves) each agent's list its own, as current_tasks shows it."""

from __future__ import annotations

import json
from types import SimpleNamespace

from scripted_model import Request, call, text

from agent.tools.todo import TaskList, TodoState, current_tasks, todo_tools

WRITTEN = ("Todos have been modified successfully. Ensure that you continue to use the todo list to track your "
           "progress. Please proceed with the current tasks if applicable")
TESTS = {"content": "Write tests", "status": "in_progress", "activeForm": "Writing tests"}
BUG = {"content": "Fix bug", "status": "pending", "activeForm": "Fixing bug"}


def results(agent, run) -> list[str]:
    path = "/api/v1/chat/completions" if agent.provider == "openrouter" else "/v1/messages"
    return [r.removeprefix("Error: ") for p in run.payloads[1:] for r in Request(path, p).tool_results()]


def shown(run) -> list:
    return [json.loads(line).get("tool_use_result") for line in run.stdout.splitlines()
            if json.loads(line)["type"] == "user"]


def test_todo_write_replaces_the_task_tools_and_its_list_is_cleared_once_all_are_done(agent, monkeypatch):
    monkeypatch.setenv("CLAUDE_CODE_ENABLE_TASKS", "0")
    agent.script(
        call("TodoWrite", todos=[TESTS, BUG]),
        call("TodoWrite", todos=[{**TESTS, "status": "completed"}, {**BUG, "status": "completed"}]),
        call("TodoWrite", todos=[{"content": "", "status": "done", "activeForm": "x"}]),
        call("TodoWrite", todos=[{"content": "a", "status": "pending"}]),
        call("TodoWrite", todos=[{"content": "a", "status": "pending", "activeForm": "A-ing", "id": "7"}]),
        text("Done."),
    )
    run = agent.run("Plan it.", "--output-format", "stream-json", "--verbose")
    assert run.exit_code == 0, run.stderr
    tools = run.payloads[0]["tools"]
    names = [t.get("name") or t["function"]["name"] for t in tools]
    assert "TodoWrite" in names and "TaskStop" in names
    assert not {"TaskCreate", "TaskGet", "TaskList", "TaskUpdate"} & set(names)
    seen = results(agent, run)
    assert seen[:2] == [WRITTEN, WRITTEN] and seen[4] == WRITTEN
    assert seen[2].startswith("InputValidationError: TodoWrite failed due to the following issues:")
    assert "`todos[0].content` cannot be empty" in seen[2] and "`todos[0].status` must be one of" in seen[2]
    assert "The required parameter `todos[0].activeForm` is missing" in seen[3]
    assert shown(run) == [
        {"oldTodos": [], "newTodos": [TESTS, BUG]},
        {"oldTodos": [TESTS, BUG], "newTodos": [{**TESTS, "status": "completed"}, {**BUG, "status": "completed"}]},
        None, None,
        # every item was completed, so the list was cleared; an unknown key is dropped, as Claude Code drops it
        {"oldTodos": [], "newTodos": [{"content": "a", "status": "pending", "activeForm": "A-ing"}]},
    ]


def test_continue_picks_the_list_up_from_the_history(agent, monkeypatch):
    monkeypatch.setenv("CLAUDE_CODE_ENABLE_TASKS", "0")
    agent.script(call("TodoWrite", todos=[TESTS]), text("Noted."))
    assert agent.run("Plan it.").exit_code == 0
    agent.script(call("TodoWrite", todos=[BUG]), text("Next."))
    again = agent.run("Go on.", "--continue", "--output-format", "stream-json", "--verbose")
    assert again.exit_code == 0, again.stderr
    assert shown(again) == [{"oldTodos": [TESTS], "newTodos": [BUG]}]


def _context(state: TodoState, depth: int, call_id: str, agent_id: str | None = None, messages=()):
    agent = SimpleNamespace(depth=depth, transcript=SimpleNamespace(agent_id=agent_id), parent_tool_use_id=call_id,
                            name="general-purpose")
    return SimpleNamespace(session=SimpleNamespace(todo=state), agent=agent, call_id=call_id, messages=list(messages))


def test_each_agent_writes_its_own_list_and_current_tasks_shows_the_one_asked_for():
    tools = {tool.name: tool for tool in todo_tools()}
    state = TodoState(TaskList(), todo_write=True)
    main, helper = _context(state, 0, "c1"), _context(state, 1, "c2", agent_id="a0123456789abcdef")
    tools["TodoWrite"].run({"todos": [TESTS]}, main)
    tools["TodoWrite"].run({"todos": [BUG]}, helper)
    assert state.take_result("c2") == {"oldTodos": [], "newTodos": [BUG]}  # not the main conversation's
    assert [item["subject"] for item in current_tasks(SimpleNamespace(todo=state))] == ["Write tests"]
    assert current_tasks(SimpleNamespace(todo=state), helper.agent) == [
        {"id": None, "subject": "Fix bug", "status": "pending", "activeForm": "Fixing bug", "owner": None, "blockedBy": []}]


def test_current_tasks_shows_the_shared_task_list_with_its_open_blockers():
    tools = {tool.name: tool for tool in todo_tools()}
    state = TodoState(TaskList())
    context = _context(state, 0, "c1")
    tools["TaskCreate"].run({"subject": "A", "description": "a", "activeForm": "Doing A"}, context)
    tools["TaskCreate"].run({"subject": "B", "description": "b"}, context)
    tools["TaskUpdate"].run({"taskId": "2", "addBlockedBy": ["1"], "owner": "helper"}, context)
    assert current_tasks(SimpleNamespace(todo=state)) == [
        {"id": "1", "subject": "A", "status": "pending", "activeForm": "Doing A", "owner": None, "blockedBy": []},
        {"id": "2", "subject": "B", "status": "pending", "activeForm": None, "owner": "helper", "blockedBy": ["1"]}]

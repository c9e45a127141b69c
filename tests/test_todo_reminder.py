"""Claude Code 2.1.332's reminder to keep the list up to date, on both wire formats: after 10
replies without TaskCreate or TaskUpdate (TaskList does not count) the latest reply's result ends
with the reminder and the tasks as they are, and again 10 replies later; with
CLAUDE_CODE_ENABLE_TASKS=0 TodoWrite's own wording, with the agent's list in brackets."""

from __future__ import annotations

from scripted_model import Request, call, text

from agent.tools.todo.reminder import TASKS_NUDGE, TODOS_NUDGE


def results(agent, run) -> list[str]:
    """The result each reply after the first got, in order (one call per reply here)."""
    path = "/api/v1/chat/completions" if agent.provider == "openrouter" else "/v1/messages"
    return [Request(path, payload).tool_results()[-1] for payload in run.payloads[1:]]


def look(n: int):
    return call("Glob", pattern=f"*.{n}")


def test_ten_replies_without_a_task_update_end_with_the_reminder_and_the_tasks(agent):
    agent.write("notes.txt", "n\n")
    replies = [call("TaskCreate", subject="Write tests", description="d"),
               call("TaskUpdate", taskId="1", status="in_progress")]
    replies += [look(n) for n in range(3)] + [call("TaskList")] + [look(n) for n in range(3, 9)]  # replies 3..12
    replies += [look(n) for n in range(9, 19)]  # replies 13..22
    agent.script(*replies, text("Done."))
    run = agent.run("Work.")
    assert run.exit_code == 0, run.stderr
    seen = results(agent, run)
    nudged = [n for n, result in enumerate(seen, 1) if TASKS_NUDGE in result]
    assert nudged == [12, 22]  # 10 replies after the update (TaskList only reads), then 10 after the reminder
    assert seen[11].endswith(f"\n\n<system-reminder>\n{TASKS_NUDGE}\n\n\nHere are the existing tasks:\n\n"
                             "#1. [in_progress] Write tests\n</system-reminder>")


def test_todo_write_has_its_own_reminder_with_the_list_in_brackets(agent, monkeypatch):
    monkeypatch.setenv("CLAUDE_CODE_ENABLE_TASKS", "0")
    todos = [{"content": "A", "status": "in_progress", "activeForm": "Doing A"},
             {"content": "B", "status": "pending", "activeForm": "Doing B"}]
    agent.script(*[look(n) for n in range(10)], call("TodoWrite", todos=todos), *[look(n) for n in range(10, 20)],
                 text("Done."))
    run = agent.run("Work.")
    assert run.exit_code == 0, run.stderr
    seen = results(agent, run)
    assert [n for n, result in enumerate(seen, 1) if TODOS_NUDGE in result] == [10, 21]
    assert seen[9].endswith(f"\n\n<system-reminder>\n{TODOS_NUDGE}\n\n</system-reminder>")  # no list yet
    assert seen[20].endswith("\n\nHere are the existing contents of your todo list:\n\n"
                             "[1. [in_progress] A\n2. [pending] B]\n</system-reminder>")
    assert TASKS_NUDGE not in "".join(seen)

"""The todo list in interactive mode, as Claude Code shows it, driven in a pty against the scripted
model on both wires: under the spinner while a turn runs (the spinner saying the task in
progress's activeForm), and after a turn that changed it, with how many are done."""

from __future__ import annotations

import pytest

from pty_session import start  # noqa: F401 (start is the fixture these tests use)
from scripted_model import call, text


def slow(reply, seconds: float):
    reply.delay_s = seconds
    return reply


@pytest.mark.parametrize("provider", ["openrouter", "anthropic"])
def test_the_todo_list_shows_under_the_spinner_and_after_the_turn(model, start, provider):
    model.script(call("TaskCreate", subject="Review code", description="Review a.py", activeForm="Reviewing code"),
                 call("TaskCreate", subject="Write summary", description="Summarise it", activeForm="Writing summary"),
                 call("TaskUpdate", taskId="1", status="in_progress"),
                 slow(call("TaskUpdate", taskId="1", status="completed"), 2),
                 slow(text("Reviewed; the summary is next."), 1),
                 text("Nothing changed."))
    session = start(provider=provider)
    session.ready()
    session.send("Review a.py, then summarise")
    session.expect(r"Reviewing code…")  # the spinner says what the task in progress does
    session.expect(r"⎿  ◼ Review code\s+◻ Write summary")
    session.expect("Reviewed; the summary is next.")
    session.expect(r"1/2 tasks done\s+✔ Review code\s+◻ Write summary")
    session.ready()
    session.send("Anything else?")
    session.expect("Nothing changed.")
    session.ready()
    session.send("/exit")
    assert session.end() == 0
    assert session.seen.count("tasks done") == 1  # shown again only when a turn changes it


@pytest.mark.parametrize("provider", ["openrouter", "anthropic"])
def test_a_todowrite_list_shows_the_same_way(model, start, provider):
    todos = [{"content": "Run the tests", "status": "completed", "activeForm": "Running the tests"},
             {"content": "Fix the failure", "status": "in_progress", "activeForm": "Fixing the failure"}]
    model.script(call("TodoWrite", todos=todos), slow(text("Fixing it now."), 2))
    session = start(provider=provider, settings={"env": {"CLAUDE_CODE_ENABLE_TASKS": "0"}})
    session.ready()
    session.send("Fix the tests")
    session.expect(r"Fixing the failure…")
    session.expect(r"⎿  ✔ Run the tests\s+◼ Fix the failure")
    session.expect(r"1/2 tasks done\s+✔ Run the tests\s+◼ Fix the failure")
    session.ready()
    session.send("/exit")
    assert session.end() == 0
    assert "TodoWrite" in str(model.requests[0].body) and "TaskCreate" not in str(model.requests[0].body)


@pytest.mark.parametrize("provider", ["openrouter", "anthropic"])
def test_clear_starts_an_empty_task_list_and_resume_brings_the_old_one_back(model, start, provider):
    model.script(call("TaskCreate", subject="Review code", description="Review a.py"), text("Listed."),
                 call("TaskList"), lambda request: text("After clear: " + request.tool_results()[-1]),
                 call("TaskList"), lambda request: text("After resume: " + request.tool_results()[-1]))
    session = start(provider=provider)
    session.ready()
    session.send("Plan the review")
    session.expect("Listed.")
    session.ready()
    session.send("/clear")
    session.expect(r"\(new conversation\)")
    session.ready()
    session.send("What is on the list?")
    session.expect("After clear: No tasks found")  # the new session's own list
    session.ready()
    session.send("/resume")
    session.expect(r"1\. [0-9a-f-]{36}  Plan the review")
    session.send("1")
    session.expect(r"\(resumed ")
    session.ready()
    session.send("And now?")
    session.expect(r"After resume: #1 \[pending\] Review code")  # the resumed session's list again
    session.ready()
    session.send("/exit")
    assert session.end() == 0

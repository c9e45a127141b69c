"""What the todo list holds right now, for whoever shows it (the interactive screen)."""

from __future__ import annotations

from typing import Any

from agent.tools.todo.todo_write import agent_key, last_written


def current_tasks(session: Any, agent: Any = None, messages: Any = None) -> list[dict[str, Any]]:
    """The items of the list `agent` (the main conversation by default) sees, in order, each as
    {id, subject, status, activeForm, owner, blockedBy}: the session's tasks, or with
    CLAUDE_CODE_ENABLE_TASKS=0 the agent's TodoWrite list (id None, subject its content; before
    it writes one in this run, the last one in `messages`, its conversation)."""
    state = getattr(session, "todo", None)
    if state is None:
        return []
    if state.todo_write:
        todos = state.todos(agent_key(agent))
        todos = last_written(messages) if todos is None else todos
        return [{"id": None, "subject": item["content"], "status": item["status"], "activeForm": item["activeForm"],
                 "owner": None, "blockedBy": []} for item in todos]
    return [{"id": task["id"], "subject": task["subject"], "status": task["status"],
             "activeForm": task.get("activeForm"), "owner": task.get("owner") or None,
             "blockedBy": state.tasks.open_blockers(task)} for task in state.tasks.all()]

"""Claude Code 2.1.332's nudge to keep the list up to date: once an agent has gone 10 replies
without writing to its list (TaskCreate or TaskUpdate; TodoWrite with CLAUDE_CODE_ENABLE_TASKS=0;
TaskList and TaskGet only read it), and 10 replies since the last nudge, the results of its
latest reply end with a `<system-reminder>` saying so and showing the list as it is. Counted on
the agent's conversation (its history included), so a recording, its replay and a resumed
session nudge at the same replies."""

from __future__ import annotations

from typing import Any

from agent.tools.todo.todo_write import agent_key, last_written

REPLIES_WITHOUT_USE = 10
REPLIES_BETWEEN = 10
TASKS_NUDGE = ("The task tools haven't been used recently. If you're working on tasks that would benefit from "
               "tracking progress, consider using TaskCreate to add new tasks and TaskUpdate to update task status "
               "(set to in_progress when starting, completed when done). Also consider cleaning up the task list if "
               "it has become stale. Only use these if relevant to the current work. This is just a gentle reminder "
               "- ignore if not applicable.")
TODOS_NUDGE = ("The TodoWrite tool hasn't been used recently. If you're working on tasks that would benefit from "
               "tracking progress, consider using the TodoWrite tool to track progress. Also consider cleaning up "
               "the todo list if has become stale and no longer matches what you are working on. Only use it if "
               "it's relevant to the current work. This is just a gentle reminder - ignore if not applicable.")


def with_reminder(results: list[dict[str, Any]], messages: list[dict[str, Any]], agent: Any,
                  session: Any) -> list[dict[str, Any]]:
    """`results` (the tool results answering the reply that ends `messages`), the last one ending
    with the reminder when it is due; as they are otherwise (or when the agent has no list tool)."""
    state = getattr(session, "todo", None)
    writes = ("TodoWrite",) if getattr(state, "todo_write", False) else ("TaskCreate", "TaskUpdate")
    if state is None or not results or writes[0] not in (getattr(agent, "tools", None) or {}):
        return results
    nudge = TODOS_NUDGE if state.todo_write else TASKS_NUDGE
    if _replies_since(messages, lambda m: _writes(m, writes)) < REPLIES_WITHOUT_USE or \
            _replies_since(messages, lambda m: _nudged(m, nudge)) < REPLIES_BETWEEN:
        return results
    last = results[-1]
    if not isinstance(last.get("content"), str):
        return results
    text = f"{last['content']}\n\n<system-reminder>\n{nudge}\n\n{_listing(state, agent, messages)}</system-reminder>"
    return [*results[:-1], {**last, "content": text}]


def _listing(state: Any, agent: Any, messages: list[dict[str, Any]]) -> str:
    """The list as the reminder shows it (nothing when it is empty)."""
    if state.todo_write:
        todos = state.todos(agent_key(agent))
        todos = last_written(messages) if todos is None else todos
        if not todos:
            return ""
        items = "\n".join(f"{n}. [{item['status']}] {item['content']}" for n, item in enumerate(todos, 1))
        return f"\nHere are the existing contents of your todo list:\n\n[{items}]\n"
    tasks = state.tasks.all()
    if not tasks:
        return ""
    return "\nHere are the existing tasks:\n\n" + "".join(f"#{t['id']}. [{t['status']}] {t['subject']}\n" for t in tasks)


def _replies_since(messages: list[dict[str, Any]], marks) -> int:
    """How many replies (assistant messages) follow the last message `marks` is true of (all of them when none)."""
    count = 0
    for message in reversed(messages):
        if marks(message):
            break
        count += message.get("role") == "assistant"
    return count


def _writes(message: dict[str, Any], names: tuple[str, ...]) -> bool:
    return message.get("role") == "assistant" and any(
        isinstance(b, dict) and b.get("type") == "tool_use" and b.get("name") in names for b in _content(message))


def _nudged(message: dict[str, Any], nudge: str) -> bool:
    return message.get("role") == "user" and any(
        isinstance(b, dict) and b.get("type") == "tool_result" and isinstance(b.get("content"), str)
        and f"<system-reminder>\n{nudge}" in b["content"] for b in _content(message))


def _content(message: dict[str, Any]) -> list:
    content = message.get("content")
    return content if isinstance(content, list) else []

"""The todo list as Claude Code 2.1.332 has it: the task tools TaskCreate, TaskGet, TaskList and
TaskUpdate on a task list the session's agents share and keep on disk (`store`, `task_tools`),
TodoWrite in their place with CLAUDE_CODE_ENABLE_TASKS=0 (`todo_write`: each agent's own list),
TaskStop for background agents (`task_stop`), what a session keeps of them (`state`), and
`current_tasks` for whoever shows the list (`view`).

May import: `agent.tools.base`, `agent.workspace` (the task files, read bounded). The session is
reached only through the tool context, as every tool reaches it."""

from __future__ import annotations

from agent.tools.todo.state import TodoState
from agent.tools.todo.store import TaskList, tasks_folder
from agent.tools.todo.view import current_tasks

__all__ = ["TaskList", "TodoState", "current_tasks", "todo_tools", "tasks_folder"]


def todo_tools() -> list:
    """TaskCreate, TaskGet, TaskList, TaskUpdate, TodoWrite and TaskStop, in the order they are
    offered (a session offers the task tools or TodoWrite: TodoState.offers)."""
    from agent.tools.todo.task_stop import TASK_STOP
    from agent.tools.todo.task_tools import TASK_CREATE, TASK_GET, TASK_LIST, TASK_UPDATE
    from agent.tools.todo.todo_write import TODO_WRITE

    return [TASK_CREATE, TASK_GET, TASK_LIST, TASK_UPDATE, TODO_WRITE, TASK_STOP]

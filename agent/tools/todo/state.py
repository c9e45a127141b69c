"""What a session keeps of its todo lists: the task list its agents share (TaskCreate and the
others, agent.tools.todo.store), each agent's own TodoWrite list (with CLAUDE_CODE_ENABLE_TASKS=0,
in place of the task tools), and the structured results its calls' stream-json lines show."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from agent.tools.todo.store import TaskList

TASK_TOOLS = ("TaskCreate", "TaskGet", "TaskList", "TaskUpdate")
TODO_WRITE = "TodoWrite"
KEPT_RESULTS = 256


@dataclass
class TodoState:
    """One session's todo lists. `todo_write` is CLAUDE_CODE_ENABLE_TASKS=0: TodoWrite is offered
    in place of the task tools."""

    tasks: TaskList = field(default_factory=TaskList)
    todo_write: bool = False
    _todos: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # agent -> its TodoWrite list
    _results: dict[str, Any] = field(default_factory=dict)  # call id -> Claude Code's tool_use_result
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def offers(self, name: str) -> bool:
        """Whether the tool `name` is one of this mode's (every other tool: yes)."""
        if name in TASK_TOOLS:
            return not self.todo_write
        return name != TODO_WRITE or self.todo_write

    def todos(self, agent: str) -> list[dict[str, Any]] | None:
        """Agent `agent`'s TodoWrite list, or None when it wrote none in this run."""
        with self._lock:
            found = self._todos.get(agent)
            return [dict(item) for item in found] if found is not None else None

    def write_todos(self, agent: str, todos: list[dict[str, Any]]) -> None:
        """Keep `todos` as agent `agent`'s list."""
        with self._lock:
            self._todos[agent] = [dict(item) for item in todos]

    def note_result(self, call_id: str | None, result: Any) -> None:
        """Keep what call `call_id`'s stream-json line shows as its `tool_use_result`."""
        if call_id:
            with self._lock:
                self._results[call_id] = result
                while len(self._results) > KEPT_RESULTS:  # a run without stream-json never takes them
                    del self._results[next(iter(self._results))]

    def take_result(self, call_id: str) -> Any:
        """The `tool_use_result` kept for call `call_id` (once), or None."""
        with self._lock:
            return self._results.pop(call_id, None)

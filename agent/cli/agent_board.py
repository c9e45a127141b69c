"""The interactive session's board of subagents: every agent the session started (background ones,
forks, and the agents they start), with who started it, its model and effort, how it is doing and
what it has said so far. The screen feeds it what the session's observer sees (each agent's
messages, in the agent's own thread) and the session's background tasks say how those ended; the
panel under the spinner and `/tasks` read it (agent.cli.panels, agent.cli.tasks_command).

A finished row stays on the board for KEEP_S seconds, as in Claude Code, unless the person clears
it sooner (`/tasks x`)."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from agent.model.reasoning import SESSION_EFFORT

KEEP_S = 30.0  # how long a finished row stays listed
DELEGATING = ("Agent", "Skill")  # the calls that start a subagent


@dataclass
class Row:
    """One subagent: `key` is the call that started it (or its task, for /fork), `parent` the row of
    the agent that made that call (None: the main conversation)."""

    key: str
    number: int  # what /tasks calls it (#1 is the session's first agent)
    kind: str
    description: str
    parent: str | None
    model: str = ""
    effort: str | None = None  # only when the agent has its own (a definition's or the call's)
    background: bool = False  # it (or the agent above it) runs while the main conversation goes on
    started: float = 0.0
    ended: float | None = None
    status: str = "running"  # running, done, failed or stopped
    stop_asked: bool = False
    cleared: bool = False  # taken off the list before its time (`/tasks x`)
    messages: list[dict[str, Any]] = field(default_factory=list)  # its conversation as it happened

    @property
    def running(self) -> bool:
        return self.status == "running"


class Board:
    """The rows, in the order the agents started; safe to feed from every agent's thread."""

    def __init__(self, tasks: Callable[[], list] = list, clock: Callable[[], float] = time.monotonic) -> None:
        self.tasks = tasks  # the session's background tasks (agent.subagents.background.Task), in launch order
        self.clock = clock
        self.rows: dict[str, Row] = {}
        self.stoppable = True  # False while recording: a replay would not stop the agent where the person did
        self.attached: str | None = None  # the row whose work the screen follows as it happens (opened with Enter)
        self._calls: dict[str, tuple[str, str, str | None]] = {}  # call id -> (kind, description, caller's row)
        self._lock = threading.Lock()

    def seen(self, agent, message: dict[str, Any]) -> Row | None:
        """Take in one message of `agent` (an agent.loop.AgentSpec); the row it belongs to, None for
        the main conversation's."""
        with self._lock:
            row = self._row_of(agent) if agent.depth > 0 else None
            if row is not None:
                row.messages.append(message)
            content = message.get("content")
            for block in content if isinstance(content, list) else ():
                if block.get("type") == "tool_use" and block.get("name") in DELEGATING:
                    arguments = block.get("input") or {}
                    kind = str(arguments.get("subagent_type") or arguments.get("skill") or "general-purpose")
                    self._calls[block.get("id")] = (kind, str(arguments.get("description") or kind),
                                                    row.key if row is not None else None)
                elif block.get("type") == "tool_result" and block.get("tool_use_id") in self.rows:
                    self._returned(self.rows[block["tool_use_id"]], bool(block.get("is_error")))
            return row

    def _row_of(self, agent) -> Row:
        key = agent.parent_tool_use_id
        task = None
        if key is None:  # a /fork: its task is the latest one not on the board yet
            bound = set(self.rows)
            task = next((t for t in reversed(self.tasks()) if t.call_id is None and f"task:{t.agent_id}" not in bound), None)
            key = f"task:{task.agent_id}" if task is not None else f"agent:{id(agent.system)}"
        if key in self.rows:
            return self.rows[key]
        kind, description, parent = self._calls.get(key, (agent.name, task.description if task else agent.name, None))
        background = any(t.call_id == agent.parent_tool_use_id for t in self.tasks()) if task is None else True
        if parent is not None and self.rows[parent].background:
            background = True
        effort = agent.effort if agent.effort != SESSION_EFFORT else None
        row = Row(key, len(self.rows) + 1, kind, description, parent, agent.model, effort, background, self.clock())
        self.rows[key] = row
        return row

    def _returned(self, row: Row, failed: bool) -> None:
        """The call that started `row` has its result: a foreground agent has ended (a background
        one's result is only its launch notice)."""
        if row.running and not (row.background and row.parent is None):
            self._end(row, "stopped" if self._asked_to_stop(row) else "failed" if failed else "done")

    def _end(self, row: Row, status: str) -> None:
        row.status, row.ended = status, self.clock()

    def refresh(self) -> None:
        """Look at how the background tasks are doing: a finished one's row ends."""
        with self._lock:
            for task in self.tasks():
                row = self.rows.get(task.call_id) if task.call_id is not None else self.rows.get(f"task:{task.agent_id}")
                if row is not None and row.running and task.done.is_set():
                    failed = task.error is not None or getattr(task.result, "error", None) is not None
                    self._end(row, "stopped" if row.stop_asked or task.stopped else "failed" if failed else "done")

    def listed(self) -> list[Row]:
        """The rows shown now: the running ones, and those that ended less than KEEP_S ago."""
        self.refresh()
        now = self.clock()
        with self._lock:
            return [row for row in self.rows.values()
                    if row.running or (not row.cleared and row.ended is not None and row.ended > now - KEEP_S)]

    def clear(self, row: Row | None = None) -> int:
        """Take `row` (or every finished row) off the list now; how many went."""
        with self._lock:
            gone = [r for r in self.rows.values() if not r.running and not r.cleared and (row is None or r is row)]
            for r in gone:
                r.cleared = True
            return len(gone)

    def stop(self, row: Row) -> bool:
        """Ask a running agent (and the agents it started) to stop at its next step; False if it
        had already ended."""
        with self._lock:
            if not row.running:
                return False
            row.stop_asked = True
            return True

    def stopping(self, row: Row) -> bool:
        """Whether `row`, or an agent above it, was asked to stop."""
        with self._lock:
            return self._asked_to_stop(row)

    def _asked_to_stop(self, row: Row | None) -> bool:
        while row is not None:
            if row.stop_asked:
                return True
            row = self.rows.get(row.parent) if row.parent is not None else None
        return False

    def numbered(self, number: int) -> Row | None:
        """The row /tasks lists as #`number`, while it is listed."""
        return next((row for row in self.listed() if row.number == number), None)

    def followed(self, row: Row) -> bool:
        """Whether the screen shows `row`'s work as it happens: it, or an agent above it, is attached."""
        return self.attached is not None and any(r.key == self.attached for r in self.path(row))

    def path(self, row: Row) -> list[Row]:
        """The rows from the top one down to `row` (the way back to main)."""
        with self._lock:
            chain = [row]
            while chain[-1].parent is not None and chain[-1].parent in self.rows:
                chain.append(self.rows[chain[-1].parent])
            return chain[::-1]

    def children(self, row: Row | None, rows: list[Row]) -> list[Row]:
        """Of `rows`, those `row` started (None: the main conversation's)."""
        key = row.key if row is not None else None
        return [r for r in rows if r.parent == key]

    def descendants(self, row: Row, rows: list[Row]) -> int:
        """How many of `rows` sit below `row`, at any depth."""
        below = self.children(row, rows)
        return len(below) + sum(self.descendants(child, rows) for child in below)

    def elapsed(self, row: Row) -> float:
        """Seconds it ran (so far)."""
        return (row.ended if row.ended is not None else self.clock()) - row.started

"""The todo list on the interactive screen, as Claude Code shows it: while a turn runs it hangs
under the spinner (`⎿  ◼ Review code`) and the spinner says what the task in progress is doing
(its activeForm: "Reviewing code…"); after a turn that changed it, it is shown once more with
how many are done (`1/2 tasks done`). The list is the session's (agent.tools.todo), read as the
main conversation sees it."""

from __future__ import annotations

from typing import Any

from agent.cli.panels import todo_lines
from agent.tools.todo.view import current_tasks

THINKING = "thinking…"


class TodoView:
    """What the screen shows of `session`'s todo list."""

    def __init__(self, session) -> None:
        self.session = session
        self.messages: Any = None  # the main conversation's messages (a TodoWrite list from before this run)
        self._last: list[tuple[str, str]] = []

    def items(self) -> list[dict[str, Any]]:
        return current_tasks(self.session, None, self.messages)

    def live_lines(self) -> list[str]:
        """The list under the spinner."""
        return todo_lines([(item["status"], item["subject"]) for item in self.items()], running=True)

    def activity(self) -> str:
        """The spinner's words: the task in progress's activeForm, else "thinking…"."""
        doing = next((item for item in self.items() if item["status"] == "in_progress" and item.get("activeForm")), None)
        return f"{' '.join(str(doing['activeForm']).split())}…" if doing is not None else THINKING

    def after_turn(self, messages: Any) -> list[str]:
        """The list with its count, when the turn that just ended changed it; else nothing."""
        self.messages = messages
        now = [(item["status"], item["subject"]) for item in self.items()]
        if now == self._last:
            return []
        self._last = now
        return todo_lines(now, running=False)

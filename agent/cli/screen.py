"""The interactive session's observer: shows the model's work on the terminal as it happens. Each
tool call is one line with a short result (agent.cli.call_lines), a foreground subagent's calls
indented under its call; a background agent's work stays in its own view (`/tasks <n>`), the
panel under the spinner shows that it runs (agent.cli.panels), and one line says when it ended,
as Claude Code shows it: `● Agent "Review the code" finished · 8s`."""

from __future__ import annotations

from agent.cli.agent_board import Board
from agent.cli.call_lines import call_label, result_line
from agent.cli.panels import seconds
from agent.cli.terminal import Terminal
from agent.subagents.background import NOTICE
from agent.tools.base import ToolError

STOPPED = "Stopped by the user (/tasks): the agent did not finish its task."
ENDINGS = {"done": "finished", "failed": "failed", "stopped": "was stopped"}


class Screen:
    """Sees every agent's messages (in that agent's thread) and streamed text."""

    wants_text = True  # the answer should stream

    def __init__(self, terminal: Terminal, board: Board) -> None:
        self.terminal = terminal
        self.board = board
        self.calls: dict[str, tuple[int, str]] = {}  # call id -> (depth, tool name)
        self.announced: set[str] = set()

    def message(self, agent, message: dict) -> None:
        """One message of `agent`: onto the board, and its calls and results onto the screen. An
        agent the person stopped is stopped here, at its next step: its call fails with STOPPED
        (a background agent's notification says so), and the agent that started it goes on."""
        row = self.board.seen(agent, message)
        if row is not None and self.board.stopping(row):
            raise ToolError(STOPPED)
        if row is not None and row.background and not self.board.followed(row):
            return  # its work shows in its own view, and here once attached (Enter in the panel)
        content = message.get("content")
        for block in content if isinstance(content, list) else ():
            if block.get("type") == "tool_use":
                self.calls[block["id"]] = (agent.depth, block["name"])
                self.terminal.tool_call(agent.depth, call_label(block["name"], block.get("input") or {}))
            elif block.get("type") == "tool_result" and block.get("tool_use_id") in self.calls:
                depth, name = self.calls.pop(block["tool_use_id"])
                text = block.get("content")
                text = text if isinstance(text, str) else "\n".join(str(p.get("text", "")) for p in text or [])
                self.terminal.tool_result(depth, result_line(name, text, bool(block.get("is_error"))))
            elif block.get("type") == "text" and agent.depth == 0 and str(block.get("text", "")).startswith(NOTICE):
                self._announce_endings()

    def _announce_endings(self) -> None:
        """The background agents whose reports just reached the main conversation, one line each."""
        for row in self.board.listed():
            if row.background and row.parent is None and not row.running and row.key not in self.announced:
                self.announced.add(row.key)
                self.terminal.notice(f'Agent "{row.description}" {ENDINGS[row.status]} · {seconds(self.board.elapsed(row))}')

    def text(self, agent, delta: str) -> None:
        if agent.depth == 0:
            self.terminal.answer_text(delta)

    def hook(self, kind: str, fields: dict) -> None:
        """A hook's event: its notices are shown (a hook's run itself is narrated under --verbose)."""
        if kind == "informational":
            self.terminal.notice(str(fields.get("content", "")), fields.get("level") == "warning")

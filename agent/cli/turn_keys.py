"""Keys for the panel of agents while a turn runs, as Claude Code's `↓ to manage`: ↓/↑ select an
agent (the panel opens the way to it), Enter shows its transcript so far above the panel and
attaches to it (its next calls show as they happen), x stops it (or clears a finished row), Esc
lets go. Keys are read only while the panel lists an agent, so
what a person types ahead during other turns still reaches the next prompt; Ctrl-C keeps
interrupting the turn (the terminal's signals stay on), and a question being asked gets its answer
(keys are never read while the terminal asks)."""

from __future__ import annotations

import contextlib
import os
import select
import sys
import threading

from agent.cli.agent_board import Board
from agent.cli.panels import opened_lines, panel_lines, tree_order
from agent.cli.tasks_command import NOT_RECORDED

HINT = "↓/↑ select · Enter open · x stop · Esc"
POLL_S = 0.05
UP, DOWN = ("\x1b[A", "\x1bOA"), ("\x1b[B", "\x1bOB")


class TurnKeys:
    """The selection in the panel and the keys that move it; `lines()` is the panel to show."""

    def __init__(self, terminal, board: Board) -> None:
        self.terminal = terminal
        self.board = board
        self.selected: str | None = None  # the selected row's key
        self.active = False  # keys are being read (a turn runs on a terminal)

    def lines(self) -> list[str]:
        """The panel under the spinner, with the hint while keys work."""
        if self.selected is not None and self.selected not in {row.key for row in self.board.listed()}:
            self.selected = None  # its row has gone
        return panel_lines(self.board, self.selected, HINT if self.active else "")

    def press(self, keys: str) -> None:
        """Act on what was typed (one read: a key, or an escape sequence)."""
        while keys:
            key = next((k for k in (*UP, *DOWN) if keys.startswith(k)), keys[0])
            keys = keys[len(key):]
            if key in UP or key in DOWN:
                self._move(-1 if key in UP else 1)
            elif key == "\x1b":
                self.selected = self.board.attached = None
            elif key in "\r\n" and (row := self._row()) is not None:
                self.terminal.show([*opened_lines(self.board, row), f"(attached to #{row.number}: Esc lets go)"])
                self.board.attached = row.key
            elif key in "xX" and (row := self._row()) is not None:
                if not row.running:
                    self.board.clear(row)
                elif self.board.stoppable:
                    self.board.stop(row)
                else:
                    self.terminal.show([NOT_RECORDED])

    def _row(self):
        return self.board.rows.get(self.selected) if self.selected is not None else None

    def _move(self, step: int) -> None:
        order = [row.key for row in tree_order(self.board)]
        if not order:
            return
        at = order.index(self.selected) + step if self.selected in order else (0 if step > 0 else len(order) - 1)
        self.selected = order[max(0, min(at, len(order) - 1))]

    @contextlib.contextmanager
    def reading(self):
        """Read keys in a thread while the body (a turn) runs, on a terminal only."""
        try:
            import termios
        except ImportError:  # not a POSIX terminal: no keys, the panel still shows
            yield
            return
        fd = sys.stdin.fileno() if sys.stdin is not None else -1
        if fd < 0 or not self.terminal.interactive_output or not os.isatty(fd):
            yield
            return
        before = termios.tcgetattr(fd)
        keyed = termios.tcgetattr(fd)
        keyed[3] &= ~(termios.ICANON | termios.ECHO)  # key by key, unechoed; ISIG stays: Ctrl-C interrupts
        termios.tcsetattr(fd, termios.TCSANOW, keyed)
        done = threading.Event()
        reader = threading.Thread(target=self._read, args=(fd, done), name="turn-keys", daemon=True)
        self.active = True
        reader.start()
        try:
            yield
        finally:
            self.active, self.selected, self.board.attached = False, None, None
            done.set()
            reader.join(1)
            termios.tcsetattr(fd, termios.TCSADRAIN, before)

    def _read(self, fd: int, done: threading.Event) -> None:
        while not done.is_set():
            data = b""
            if self.board.listed():
                with self.terminal.lock:  # never while a question waits for its answer
                    if select.select([fd], [], [], 0)[0]:
                        data = os.read(fd, 64)
            if data:
                self.press(data.decode("utf-8", errors="ignore"))
            else:
                done.wait(POLL_S)

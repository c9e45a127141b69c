"""`/tasks`: the session's subagents, as Claude Code's command lists its background work. Without
arguments it lists the running agents and those finished less than 30 s ago (each with its
model, and its effort when it has its own); `/tasks <n>` opens one (where it sits, its task and
its transcript so far); `/tasks stop <n>` stops a running one at its next step; `/tasks x`
clears the finished rows now (`/tasks x <n>` one of them)."""

from __future__ import annotations

from agent.cli.agent_board import Board, Row
from agent.cli.panels import opened_lines, tasks_lines

USAGE = "usage: /tasks [<n> | stop <n> | x [<n>]]"
NOT_RECORDED = "stopping an agent is not available while recording: a replay could not stop it where you did"


def tasks_command(rest: str, board: Board) -> list[str]:
    """What `/tasks rest` shows, having done what it asks."""
    words = rest.split()
    if not words:
        return tasks_lines(board)
    if words[0] in ("stop", "x") and len(words) <= 2:
        row = _row(board, words[1]) if len(words) == 2 else None
        if len(words) == 2 and row is None:
            return [_missing(words[1])]
        if words[0] == "x":
            cleared = board.clear(row)
            return [f"cleared {cleared} finished row{'s' if cleared != 1 else ''}" if cleared or row is None
                    else f"#{row.number} is still running: /tasks stop {row.number} stops it"]
        if row is None:
            return [USAGE]
        if not board.stoppable:
            return [NOT_RECORDED]
        if board.stop(row):
            return [f"stopping #{row.number} {row.kind} ({row.description}): it stops at its next step"]
        return [f"#{row.number} has already ended ({row.status})"]
    if len(words) == 1:
        row = _row(board, words[0])
        return opened_lines(board, row) if row is not None else [_missing(words[0])]
    return [USAGE]


def _row(board: Board, word: str) -> Row | None:
    number = word.lstrip("#")
    return board.numbered(int(number)) if number.isdigit() and len(number) < 9 else None


def _missing(word: str) -> str:
    return f"no agent #{word.lstrip('#')} is listed: /tasks lists them"

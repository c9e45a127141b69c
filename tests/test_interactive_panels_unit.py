"""The interactive screen's board of agents and the lines drawn from it, unit by unit: the tree
and its (+N) counts, finished rows kept 30 s and cleared by x, a stopped agent, and how a
delegation and its result read (the report inside its real hand-back frame)."""

from __future__ import annotations

import threading
from types import SimpleNamespace

from agent.cli.agent_board import KEEP_S, Board
from agent.cli.call_lines import BACKGROUNDED, call_label, result_line
from agent.cli.panels import opened_lines, panel_lines, tasks_lines, todo_lines, tree_order
from agent.cli.tasks_command import NOT_RECORDED, tasks_command
from agent.loop import AgentSpec, Result
from agent.subagents.background import LAUNCHED
from agent.subagents.results import format_result


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def spec(depth: int, name: str, call_id: str | None, effort="session") -> AgentSpec:
    return AgentSpec(name=name, system="s", tools={}, model="claude-haiku-4-5", max_turns=5, depth=depth,
                     parent_tool_use_id=call_id, effort=effort)


def agent_call(call_id: str, kind: str, description: str) -> dict:
    return {"role": "assistant", "content": [{"type": "tool_use", "id": call_id, "name": "Agent",
                                              "input": {"subagent_type": kind, "description": description}}]}


def result(call_id: str, text: str = "ok", is_error: bool = False) -> dict:
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id, "content": text,
                                         "is_error": is_error}]}


def nested_board():
    """main starts reviewer (in the background) and counter; reviewer starts namer."""
    clock, task = Clock(), SimpleNamespace(call_id="c1", agent_id="a1", done=threading.Event(), error=None,
                                           result=None, stopped=False)
    board = Board(lambda: [task], clock)
    main, reviewer, namer = spec(0, "main", None), spec(1, "reviewer", "c1"), spec(2, "namer", "c2", effort="low")
    board.seen(main, agent_call("c1", "reviewer", "Review the code"))
    board.seen(reviewer, {"role": "user", "content": "TASK: review"})
    board.seen(main, agent_call("c3", "general-purpose", "Count lines"))
    board.seen(spec(1, "general-purpose", "c3"), {"role": "user", "content": "TASK: count"})
    board.seen(reviewer, agent_call("c2", "namer", "Check naming"))
    board.seen(namer, {"role": "user", "content": [{"type": "text", "text": "CLAUDE.md"}, {"type": "text", "text": "TASK: names"}]})
    return board, clock, task, (main, reviewer, namer)


def test_the_panel_is_a_tree_with_counts_and_opens_the_way_to_a_selected_row():
    board, clock, _, _ = nested_board()
    assert panel_lines(board) == ["● main", "◯ reviewer (+1)    Review the code  0s",  # names in one column
                                  "◯ general-purpose  Count lines  0s"]
    namer = board.numbered(3)
    clock.now += 65
    assert panel_lines(board, namer.key, "hint") == [
        "● main", "  ◯ reviewer (+1)    Review the code  1m 5s", "  ❯ ◯ namer  Check naming  1m 5s",  # one level in
        "  ◯ general-purpose  Count lines  1m 5s", "hint"]
    assert [row.kind for row in tree_order(board)] == ["reviewer", "namer", "general-purpose"]
    opened = opened_lines(board, namer)
    assert opened[:4] == ["main › #1 reviewer › #3 namer", "Check naming · namer · running · 1m 5s · claude-haiku-4-5 (low)",
                          "Siblings: none", "Children: none"]
    assert opened[4:] == ["Prompt", "  TASK: names", "Progress"]  # the task, not the context before it
    assert opened_lines(board, board.numbered(1))[2:4] == ["Siblings: #2 general-purpose(Count lines)",
                                                           "Children: #3 namer(Check naming)"]


def test_finished_rows_stay_30_seconds_and_x_clears_them_sooner():
    board, clock, task, (main, reviewer, namer) = nested_board()
    board.seen(reviewer, result("c2"))  # namer (foreground in reviewer) ended with its call's result
    board.seen(main, result("c1", LAUNCHED))  # a background agent's result is only its launch
    assert [row.status for row in board.listed()] == ["running", "running", "done"]
    task.done.set()
    assert board.numbered(1).status == "done"
    clock.now += KEEP_S - 1
    assert tasks_lines(board)[:3] == ["Running agents", "  #2 ◯ Count lines      running · general-purpose · claude-haiku-4-5",
                                      "Finished"]
    assert "  #1 ✔ Review the code  done · reviewer · claude-haiku-4-5" in tasks_lines(board)
    assert tasks_command("x 2", board) == ["#2 is still running: /tasks stop 2 stops it"]
    assert tasks_command("x", board) == ["cleared 2 finished rows"]
    assert [row.number for row in board.listed()] == [2]
    clock.now += 5
    board.seen(main, result("c3"))
    clock.now += KEEP_S + 1
    assert board.listed() == [] and tasks_lines(board)[0].startswith("No background work")


def test_a_stop_is_asked_of_a_running_agent_and_its_children_and_refused_while_recording():
    board, _, _, (_, reviewer, namer) = nested_board()
    assert tasks_command("stop 1", board) == ["stopping #1 reviewer (Review the code): it stops at its next step"]
    assert board.stopping(board.numbered(3))  # the agent it started stops with it
    board.seen(reviewer, result("c2", "Stopped", is_error=True))
    assert board.numbered(3).status == "stopped"
    assert tasks_command("stop 3", board) == ["#3 has already ended (stopped)"]
    assert tasks_command("9", board) == ["no agent #9 is listed: /tasks lists them"]
    board.stoppable = False
    assert tasks_command("stop 2", board) == [NOT_RECORDED]


def test_a_delegation_reads_name_and_task_and_its_result_is_the_report():
    assert call_label("Agent", {"subagent_type": "code-improver", "description": "Suggest code improvements"}) == \
        "code-improver(Suggest code improvements)"
    assert call_label("Agent", {"description": "Count lines"}) == "Agent(Count lines)"
    assert call_label("Read", {"file_path": "a.py"}) == "Read(a.py)"
    assert call_label("WebFetch", {"url": "https://example.com/", "prompt": "Sum up"}) == "WebFetch(https://example.com/)"
    assert call_label("WebSearch", {"query": "pytest fixtures"}) == "WebSearch(pytest fixtures)"
    assert call_label("NotebookEdit", {"notebook_path": "a.ipynb", "new_source": "x"}) == "NotebookEdit(a.ipynb)"
    assert call_label("TaskCreate", {"subject": "Write tests", "description": "all of them"}) == "TaskCreate(Write tests)"
    assert call_label("TaskUpdate", {"taskId": "2", "status": "completed"}) == "TaskUpdate(2)"
    handed = format_result("code-improver", "a1", Result("Rename x.\nAdd a docstring.", "success", 1), True)
    assert result_line("Agent", handed, False) == "Rename x. (+1 lines)"
    assert result_line("Agent", LAUNCHED.format(id="a1"), False) == BACKGROUNDED
    assert result_line("Agent", "no such type", True) == "error: no such type"


def test_the_todo_lines():
    items = [("completed", "Review code"), ("in_progress", "Write summary"), ("pending", "Ship")]
    assert todo_lines(items, running=True) == ["⎿  ✔ Review code", "   ◼ Write summary", "   ◻ Ship"]
    assert todo_lines(items, running=False) == ["1/3 tasks done", "✔ Review code", "◼ Write summary", "◻ Ship"]
    assert todo_lines([], running=True) == []

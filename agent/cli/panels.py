"""What the interactive screen shows of the session's subagents, as lines of text: the panel
under the spinner while a turn runs (the main conversation, then each agent it started, a row
that still has agents below it marked with their count, `(+N)`), the `/tasks` list (every
listed agent, running first, each with its model and effort), and one agent opened from it (the
path back to main, its siblings and children, its task and its transcript so far)."""

from __future__ import annotations

from agent.cli.agent_board import Board, Row
from agent.cli.call_lines import call_label, result_line

MARKS = {"running": "◯", "done": "✔", "failed": "✘", "stopped": "■"}
TRANSCRIPT_LINES = 200  # an opened agent shows at most its last this many lines


def seconds(value: float) -> str:
    """A duration as Claude Code writes it: 8s, 2m 5s."""
    whole = max(0, int(value))
    return f"{whole // 60}m {whole % 60}s" if whole >= 60 else f"{whole}s"


def panel_lines(board: Board, selected: str | None = None, hint: str = "") -> list[str]:
    """The panel: nothing when no agent is listed, else `● main` and a row for each agent the
    main conversation started, `(+N)` counting the listed agents below it. The `selected` row
    (its key) is marked `❯`, and the way to it is opened: the rows along its path show their
    children, so it is seen with its siblings, its own children and the path back to main."""
    rows = board.listed()
    if not rows:
        return []
    keys = {row.key for row in rows}
    opened = {r.key for r in board.path(board.rows[selected])} if selected in board.rows else set()
    lines = ["● main"]

    def add(level: list[Row], depth: int) -> None:
        if not level:
            return
        names = {row.key: row.kind + (f" (+{n})" if (n := board.descendants(row, rows)) else "") for row in level}
        width = max(len(name) for name in names.values())
        for row in level:
            state = seconds(board.elapsed(row)) if row.running else f"{row.status} · {seconds(board.elapsed(row))}"
            mark = "❯ " if row.key == selected else "  " if selected else ""
            lines.append(f"{'  ' * depth}{mark}{MARKS[row.status]} {names[row.key]:<{width}}  {row.description}  {state}")
            if row.key in opened:
                add(board.children(row, rows), depth + 1)

    add([row for row in rows if row.parent is None or row.parent not in keys], 0)
    return lines + ([hint] if hint else [])


def tree_order(board: Board) -> list[Row]:
    """The listed rows top to bottom as the opened tree shows them: each agent, then those it started."""
    rows = board.listed()
    keys = {row.key for row in rows}
    order: list[Row] = []

    def walk(level: list[Row]) -> None:
        for row in level:
            order.append(row)
            walk(board.children(row, rows))

    walk([row for row in rows if row.parent is None or row.parent not in keys])
    return order


def model_of(row: Row) -> str:
    """The model a row runs on, and its own effort when it has one: `claude-haiku-4-5 (high)`."""
    return row.model + (f" ({row.effort})" if row.effort else "")


def tasks_lines(board: Board) -> list[str]:
    """The `/tasks` list: running agents, then those finished less than 30 s ago."""
    rows = board.listed()
    if not rows:
        return ["No background work in this session right now (finished agents stay listed for 30 s)."]
    width = max(len(row.description) for row in rows)
    lines = []
    for title, group in (("Running agents", [r for r in rows if r.running]),
                         ("Finished", [r for r in rows if not r.running])):
        if group:
            lines.append(title)
            lines += [f"  #{row.number} {MARKS[row.status]} {row.description:<{width}}  "
                      f"{'running' if row.running else row.status} · {row.kind} · {model_of(row)}" for row in group]
    lines.append("/tasks <n> opens one · /tasks stop <n> stops it · /tasks x clears the finished rows")
    return lines


def opened_lines(board: Board, row: Row) -> list[str]:
    """One agent opened: where it sits (the path back to main, its siblings and direct children),
    what it is (type, state, time, model), its task and its transcript so far."""
    rows = board.listed()
    path = " › ".join(["main", *(f"#{r.number} {r.kind}" for r in board.path(row))])
    parent = board.rows.get(row.parent) if row.parent is not None else None
    siblings = [r for r in board.children(parent, rows) if r is not row]
    children = board.children(row, rows)
    state = "running" if row.running else row.status
    lines = [path, f"{row.description} · {row.kind} · {state} · {seconds(board.elapsed(row))} · {model_of(row)}"]
    lines.append("Siblings: " + (", ".join(f"#{r.number} {r.kind}({r.description})" for r in siblings) or "none"))
    lines.append("Children: " + (", ".join(f"#{r.number} {r.kind}({r.description})" for r in children) or "none"))
    transcript = transcript_lines(row.messages)
    if len(transcript) > TRANSCRIPT_LINES:
        transcript = [f"(… {len(transcript) - TRANSCRIPT_LINES} earlier lines)", *transcript[-TRANSCRIPT_LINES:]]
    return lines + transcript


def transcript_lines(messages: list[dict]) -> list[str]:
    """An agent's conversation as its own view shows it: its task under `Prompt`, then each tool
    call as one line with its result, and what it wrote."""
    lines: list[str] = []
    names: dict[str, str] = {}
    for index, message in enumerate(messages):
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        if index == 0:  # its task is the opening's last text (CLAUDE.md and the git status come first)
            task = next((str(b.get("text") or "") for b in reversed(blocks) if b.get("type") == "text"), "")
            lines += ["Prompt", *("  " + line for line in task.strip().split("\n")), "Progress"]
            continue
        for block in blocks:
            kind = block.get("type")
            if kind == "text" and str(block.get("text") or "").strip():
                if message.get("role") == "assistant":
                    lines += str(block["text"]).strip().split("\n")
            elif kind == "tool_use":
                names[block.get("id")] = block.get("name", "")
                lines.append("● " + call_label(str(block.get("name", "")), block.get("input") or {}))
            elif kind == "tool_result":
                text = block.get("content")
                text = text if isinstance(text, str) else "\n".join(str(p.get("text", "")) for p in text or [])
                lines.append("  ⎿ " + result_line(names.get(block.get("tool_use_id"), ""), text, bool(block.get("is_error"))))
    return lines


def todo_lines(items: list[tuple[str, str]], running: bool) -> list[str]:
    """The todo list as Claude Code shows it under the prompt: `◻` pending, `◼` in progress, `✔`
    completed; while a turn runs it hangs under the spinner (`⎿`), between turns it opens with
    how many are done. `items` are (status, subject) pairs in list order."""
    if not items:
        return []
    marks = {"pending": "◻", "in_progress": "◼", "completed": "✔"}
    lines = [f"{marks.get(status, '◻')} {subject}" for status, subject in items]
    if running:
        return ["⎿  " + lines[0], *("   " + line for line in lines[1:])]
    done = sum(1 for status, _ in items if status == "completed")
    return [f"{done}/{len(items)} tasks done", *lines]

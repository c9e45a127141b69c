"""How one tool call and its result read on the interactive screen: `● Read(src/app.py)` then
`⎿ first line (+N lines)`. A delegation reads as Claude Code shows it, the agent's name and its
short task: `● code-improver(Suggest code improvements)` (`Agent(...)` for general-purpose), and
its result is the report's own first line (not the hand-back frame around it), or "Backgrounded
agent" when it went on in the background."""

from __future__ import annotations

from agent.cli.terminal import summary
from agent.subagents.background import LAUNCHED as AGENT_LAUNCHED
from agent.subagents.forks import LAUNCHED as FORK_LAUNCHED
from agent.subagents.results import HANDBACK, INDENT

SHOWN_KEYS = ("file_path", "notebook_path", "command", "pattern", "url", "query", "skill", "subject", "subagent_type",
              "description", "taskId", "task_id", "to", "path")
ARGUMENT_CHARS = 60
BACKGROUNDED = "Backgrounded agent (/tasks to see it)"
_LAUNCH_OPENINGS = tuple(text.split("(", 1)[0] for text in (AGENT_LAUNCHED, FORK_LAUNCHED))


def argument(arguments: dict) -> str:
    """The one argument that says what a call does, on one line and cut to ARGUMENT_CHARS."""
    for key in SHOWN_KEYS:
        if isinstance(arguments.get(key), str):
            return _short(arguments[key])
    return ""


def call_label(name: str, arguments: dict) -> str:
    """`Read(note.txt)`; an Agent call is its agent type with its short task, as Claude Code shows
    it: `code-improver(Suggest code improvements)`, `Agent(...)` for the general-purpose one."""
    if name == "Agent" and isinstance(arguments.get("description"), str):
        kind = str(arguments.get("subagent_type") or "").strip()
        return f"{_short(kind) if kind and kind != 'general-purpose' else 'Agent'}({_short(arguments['description'])})"
    return f"{name}({argument(arguments)})"


def result_line(name: str, text: str, is_error: bool) -> str:
    """A call's result in one short line. A delegation's is its report's first line (the frame
    of harness notes and the agentId and usage footer left out), or that it went to the background."""
    if name == "Agent" and not is_error:
        if text.startswith(_LAUNCH_OPENINGS):
            return BACKGROUNDED
        report = handed_back(text)
        if report is not None:
            return summary(report)
    return ("error: " if is_error else "") + summary(text)


def handed_back(text: str) -> str | None:
    """The report inside a subagent's hand-back result (its indented lines), or None when `text`
    has no hand-back frame."""
    _, header, rest = text.partition(HANDBACK + "\n")
    if not header:
        return None
    report = []
    for line in rest.split("\n"):
        if line and not line.startswith(INDENT):
            break  # the agentId line and the usage footer start at column zero
        report.append(line[len(INDENT):])
    return "\n".join(report)


def _short(value: str) -> str:
    value = " ".join(value.split())
    return value if len(value) <= ARGUMENT_CHARS else value[:ARGUMENT_CHARS - 1] + "…"

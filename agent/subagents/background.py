"""Background subagents: an Agent call of the main conversation that returns at once while its agent
runs on in a thread, and the `<task-notification>` that brings the agent's report back.

As in Claude Code 2.1.332, the main conversation's agents run in the background unless the call
says `run_in_background: false`, and a definition's `background: true` wins over that; agents
started by subagents stay in the foreground. Reports are delivered only when the main
conversation would otherwise end: it waits for every agent it launched, then gets one user
message with their notifications in launch order. A recording and its replay therefore send the
same requests whatever order the agents finished in.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

from agent.errors import Interrupted, ProviderError
from agent.subagents.results import guarded_report
from agent.tools.base import ToolError

log = logging.getLogger("agent")

LAUNCHED = (
    "Async agent launched successfully. (This tool result is internal metadata \u2014 never quote or paste any "
    "part of it, including the agentId below, into a user-facing reply.)\n"
    "agentId: {id} (internal ID - do not mention to user. Use SendMessage with to: '{id}', summary: "
    "'<5-10 word recap>' to continue this agent.)\n"
    "The agent is working in the background. You will be notified automatically when it completes. Do not "
    "do its work yourself meanwhile: go on with something else, or end your turn to wait for its report."
)
NOTICE = ("<system-reminder>\n[SYSTEM NOTIFICATION - NOT USER INPUT] A background agent you launched has "
          "ended; this is its report, not a message from the user.\n")
NOTE = "Tell the user what it found if that answers them, or go on with the task."
WAIT_STEP_S = 0.1  # how often a wait for background agents looks for Ctrl-C


def in_background(arguments: dict[str, Any], definition, parent) -> bool:
    """Whether this Agent call runs its agent in the background: never below the main
    conversation, always for a `background: true` definition, else unless the call says
    `run_in_background: false`."""
    if parent.depth > 0:
        return False
    return bool(getattr(definition, "background", False)) or arguments.get("run_in_background") is not False


@dataclass
class Task:
    """One background agent: what started it, and how it ended once `done` is set."""

    agent_id: str
    call_id: str | None
    kind: str
    description: str
    prompt: str
    result: Any = None  # agent.loop.Result of a finished run
    error: str | None = None  # why it failed
    worktree: Any = None  # agent.subagents.worktrees.Worktree it works in (isolation), or None
    done: threading.Event = field(default_factory=threading.Event)
    delivered: bool = False
    stopped: bool = False  # TaskStop stopped it: its notification says killed, without its report


class Background:
    """The session's background agents, in launch order. `listener(kind, fields)` (stream-json)
    hears `task_started` at each launch and `task_notification` at each delivery. With `daemon`
    set (the interactive mode, where leaving decides what becomes of them), an agent's thread
    does not keep the process alive; otherwise a run that ends without waiting still lets it finish."""

    def __init__(self) -> None:
        self.tasks: list[Task] = []
        self.listener: Callable[[str, dict[str, Any]], None] | None = None
        self.daemon = False
        self._lock = threading.Lock()

    def launch(self, task: Task, work: Callable[[], Any]) -> str:
        """Start `work` (which runs the agent and returns its Result) in a thread for `task`; the
        launch result the Agent call returns."""
        with self._lock:
            self.tasks.append(task)
        self._tell("task_started", {"task_id": task.agent_id, "tool_use_id": task.call_id,
                                    "description": task.description, "subagent_type": task.kind,
                                    "is_backgrounded": True, "task_type": "local_agent", "prompt": task.prompt})
        threading.Thread(target=_run, args=(task, work), name=f"agent-{task.agent_id}", daemon=self.daemon).start()
        return LAUNCHED.format(id=task.agent_id)

    def unfinished(self) -> list[Task]:
        """The agents still running, in launch order."""
        with self._lock:
            return [task for task in self.tasks if not task.done.is_set()]

    def finish(self) -> None:
        """Wait for every agent still running when a run ends without reporting on them (its
        turn limit, its budget): a recording then holds every request they send, and a replay
        sends them all before its end is checked."""
        for task in self.unfinished():
            task.done.wait()

    def stop(self, agent_id: str) -> Task:
        """TaskStop (and the Agent SDK's stop_task): the agent `agent_id`, not yet reported on, is
        stopped and returned; Claude Code's ToolError when the session launched no such agent, or
        when it was reported on already (or stopped). Its notification says it was killed and carries no report. Its
        thread is not cut short (the loop has no per-agent stop): it ends on its own and is still
        waited for, so a recording holds all of its requests and a replay stops it alike, however
        far it got when the call came."""
        with self._lock:
            task = next((t for t in self.tasks if t.agent_id == agent_id), None)
            stopping = task is not None and not (task.delivered or task.stopped)
            if stopping:
                task.stopped = True
        if stopping:
            self._tell("task_updated", {"task_id": agent_id, "patch": {"status": "killed"}})
            return task
        if task is None:
            raise ToolError(f"No task found with ID: {agent_id}")
        raise ToolError(f"Task {agent_id} is not running (status: {_ending(task)[0]})")

    def deliver(self, cancelled: threading.Event) -> dict[str, Any] | None:
        """Wait for every background agent not yet reported on (Ctrl-C, `cancelled`, stops the
        wait), then the user message carrying their notifications in launch order; None when
        there are none."""
        with self._lock:
            pending = [task for task in self.tasks if not task.delivered]
        if not pending:
            return None
        for task in pending:
            while not task.done.wait(WAIT_STEP_S):
                if cancelled.is_set():
                    raise Interrupted("interrupted")
        blocks = []
        for task in pending:
            task.delivered = True
            status, summary = _ending(task)
            self._tell("task_notification", {"task_id": task.agent_id, "status": "stopped" if task.stopped else status,
                                             "output_file": "", "summary": summary})
            blocks.append({"type": "text", "text": notification(task)})
        return {"role": "user", "content": blocks}

    def _tell(self, kind: str, fields: dict[str, Any]) -> None:
        if self.listener is not None:
            self.listener(kind, fields)


def _run(task: Task, work: Callable[[], Any]) -> None:
    try:
        task.result = work()
    except (ProviderError, ToolError) as error:  # inside the agent: its notification says so
        task.error = str(error)
    except Interrupted:
        task.error = "interrupted"
    except Exception as error:  # a thread's exception would otherwise vanish and the wait go on forever
        log.exception("background agent %s failed", task.agent_id)
        task.error = f"internal error: {error}"
    finally:
        task.done.set()


def _ending(task: Task) -> tuple[str, str]:
    if task.stopped:  # Claude Code's words for an agent TaskStop stopped
        return "killed", f'Agent "{task.description}" was stopped by Claude'
    error = task.error if task.error is not None else getattr(task.result, "error", None)  # cut off after some text
    if error is not None:
        return "failed", f'Agent "{task.description}" failed: {error}'
    return "completed", f'Agent "{task.description}" finished'


def notification(task: Task) -> str:
    """Claude Code's `<task-notification>` for a finished `task` (without the output file and the
    duration: we write no output file, and a clock would make requests differ between runs)."""
    status, summary = _ending(task)
    parts = [NOTICE, f"<task-notification><task-id>{task.agent_id}</task-id><tool-use-id>{task.call_id or ''}"
             f"</tool-use-id>\n<status>{status}</status><summary>{_escape(summary)}</summary><note>{NOTE}</note>\n"]
    if task.stopped:  # as Claude Code's notification of a stopped agent, no result
        pass
    elif task.result is not None:
        result = task.result
        uses = sum(1 for message in result.messages if message.get("role") == "assistant"
                   for block in message.get("content") or () if isinstance(block, dict) and block.get("type") == "tool_use")
        tokens = result.usage.input_tokens + result.usage.output_tokens
        parts.append(f"<result>{_escape(guarded_report(result))}</result>\n<usage><subagent_tokens>{tokens}"
                     f"</subagent_tokens><tool_uses>{uses}</tool_uses></usage>\n")
    else:
        parts.append(f"<result>{_escape(task.error or '')}</result>\n")
    if task.worktree is not None and task.worktree.kept:  # as Claude Code names a kept worktree
        parts.append(f"<worktree><worktreePath>{_escape(str(task.worktree.path))}</worktreePath><worktreeBranch>"
                     f"{_escape(task.worktree.branch)}</worktreeBranch></worktree>\n")
    parts.append("</task-notification></system-reminder>")
    return "".join(parts)


def _escape(text: str) -> str:
    """Text inside the notification's tags, `&`, `<` and `>` escaped as Claude Code does (so a
    report cannot close the notification early)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

"""A subagent's life as Claude Code tells the Agent SDK about it: `task_started` once the agent
starts, its prompt forwarded with the Agent call's `parent_tool_use_id`, and at its end
`task_progress`, `task_updated {patch: {status}}` and `task_notification` (its report as the
summary), just before the caller's tool_result, which then carries `tool_use_result`.

Every subagent started by an Agent call or continued by SendMessage is a task. A background
agent's `task_started` and `task_notification` come from the session's background agents
(agent.subagents.background); only its prompt is forwarded here, so no frame is sent twice.
The frames are built from what the stream sees: the calls in the assistant messages, each
subagent's messages (which name the call that started it), and the caller's tool results."""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from agent.tools.base import ToolError
from agent.transcripts import agent_id_for

STARTS_AGENTS = ("Agent", "SendMessage")  # the calls whose subagents are tasks
# the usage footer agent.subagents.results ends an agent's result with (our own text, at its very end)
_FOOTER = re.compile(r"<usage>turns: \d+, input_tokens: (\d+), output_tokens: (\d+)</usage>\Z")


@dataclass
class Task:
    """One foreground subagent run, from its first message to its caller's tool result."""

    task_id: str
    call_id: str
    kind: str
    description: str
    prompt: str
    model: str
    started: float = field(default_factory=time.monotonic)
    tools_used: list[str] = field(default_factory=list)  # each tool_use of the agent, in order
    report: str = ""  # its last text

    def usage(self, tokens: int) -> dict[str, int]:
        """Claude Code's TaskUsage of this run."""
        return {"total_tokens": tokens, "tool_uses": len(self.tools_used),
                "duration_ms": int((time.monotonic() - self.started) * 1000)}


class Tasks:
    """The tasks of one SDK session. `emit(frame, agent_id)` writes a subagent's frame (with its
    uuid and session id), `tell(kind, fields)` a task line."""

    def __init__(self, emit: Callable[[dict[str, Any], str | None], None], tell: Callable[[str, dict[str, Any]], None]) -> None:
        self._emit = emit
        self._tell = tell
        self._lock = threading.Lock()
        self._calls: dict[str, tuple[str, dict[str, Any]]] = {}  # Agent/SendMessage calls: (name, input)
        self._background: dict[str, str] = {}  # call id -> agent id, for agents launched in the background
        self._running: dict[str, Task] = {}  # call id -> its foreground task
        self._prompted: set[str] = set()  # the calls whose agent's prompt was forwarded

    def launched(self, fields: dict[str, Any]) -> None:
        """A background agent's `task_started` was sent (its frames are the background's)."""
        if isinstance(fields.get("tool_use_id"), str):
            with self._lock:
                self._background[fields["tool_use_id"]] = str(fields.get("task_id"))

    def agent_id(self, call_id: str | None) -> str | None:
        """The task id (agentId) of the agent that `call_id` started, once it has started."""
        with self._lock:
            task = self._running.get(call_id or "")
            return task.task_id if task is not None else self._background.get(call_id or "")

    def seen(self, agent, message: dict[str, Any], session) -> None:
        """Note one message of any conversation: the calls that start agents, a subagent's first
        message (its task starts), its replies (what it used, what it said)."""
        content = message.get("content")
        if message.get("role") == "assistant" and isinstance(content, list):
            with self._lock:
                for block in content:
                    if isinstance(block, dict) and block.get("type") == "tool_use" and block.get("name") in STARTS_AGENTS:
                        arguments = block.get("input")
                        self._calls[str(block.get("id"))] = (block["name"], arguments if isinstance(arguments, dict) else {})
        call_id = agent.parent_tool_use_id
        if agent.depth == 0 or not call_id:
            return
        with self._lock:
            first = call_id not in self._prompted and call_id in self._calls
            if first:
                self._prompted.add(call_id)
            task = self._running.get(call_id)
        if first:
            self._start(agent, call_id, message, session)
        elif task is not None and message.get("role") == "assistant" and isinstance(content, list):
            task.tools_used += [str(b.get("name")) for b in content if isinstance(b, dict) and b.get("type") == "tool_use"]
            said = "".join(b.get("text") or "" for b in content if isinstance(b, dict) and b.get("type") == "text")
            task.report = said or task.report

    def _start(self, agent, call_id: str, message: dict[str, Any], session) -> None:
        """The agent of `call_id` sent its first message: its task starts (unless the background's
        did already), and its prompt is forwarded as Claude Code forwards it."""
        with self._lock:
            name, arguments = self._calls[call_id]
            background = call_id in self._background
        if not background:
            task_id = agent_id_for(call_id) if name == "Agent" else _continued(session, arguments)
            description = arguments.get("description" if name == "Agent" else "summary")
            prompt = arguments.get("prompt" if name == "Agent" else "message")
            task = Task(task_id or agent_id_for(call_id), call_id, agent.name,
                        description if isinstance(description, str) else name, prompt if isinstance(prompt, str) else "",
                        agent.model)
            with self._lock:
                self._running[call_id] = task
            self._tell("task_started", {"task_id": task.task_id, "tool_use_id": call_id, "description": task.description,
                                        "subagent_type": task.kind, "is_backgrounded": False, "task_type": "local_agent",
                                        "prompt": task.prompt})
        self._emit({"type": "user", "message": message, "parent_tool_use_id": call_id}, self.agent_id(call_id))

    def ended(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """A caller's tool results arrived: each foreground task they answer ends (its closing
        frames sent now, before them). The `tool_use_result` of the frame carrying them when it
        carries one result, of an agent's run or launch; None otherwise."""
        blocks = [b for b in message.get("content") or () if isinstance(b, dict) and b.get("type") == "tool_result"]
        results = []
        for block in blocks:
            call_id = str(block.get("tool_use_id"))
            with self._lock:
                task = self._running.pop(call_id, None)
                launched = self._background.get(call_id)
                arguments = self._calls.get(call_id, ("", {}))[1]
            if task is not None:
                results.append(self._close(task, block))
            elif launched is not None:
                results.append({"status": "async_launched", "agentId": launched,
                                "description": arguments.get("description"), "prompt": arguments.get("prompt")})
        return results[0] if len(blocks) == 1 and len(results) == 1 else None

    def _close(self, task: Task, block: dict[str, Any]) -> dict[str, Any] | None:
        text = block.get("content") if isinstance(block.get("content"), str) else ""
        failed = bool(block.get("is_error"))
        footer = _FOOTER.search(text)
        tokens = int(footer.group(1)) + int(footer.group(2)) if footer else 0
        usage = task.usage(tokens)
        status = "failed" if failed else "completed"
        summary = text if failed else task.report
        self._tell("task_progress", {"task_id": task.task_id, "tool_use_id": task.call_id, "description": task.description,
                                     "usage": usage, "last_tool_name": task.tools_used[-1] if task.tools_used else None})
        self._tell("task_updated", {"task_id": task.task_id, "patch": {"status": status}})
        self._tell("task_notification", {"task_id": task.task_id, "tool_use_id": task.call_id, "status": status,
                                         "output_file": "", "summary": summary, "usage": usage})
        if failed:
            return None
        return {"status": "completed", "prompt": task.prompt, "agentId": task.task_id, "agentType": task.kind,
                "content": [{"type": "text", "text": task.report}], "resolvedModel": task.model,
                "toolsUsed": list(dict.fromkeys(task.tools_used)), "totalDurationMs": usage["duration_ms"],
                "totalTokens": tokens, "totalToolUseCount": usage["tool_uses"]}

    def stopped(self) -> None:
        """An interrupt stopped the turn: every foreground task still running was stopped with it."""
        with self._lock:
            running, self._running = list(self._running.values()), {}
        for task in running:
            self._tell("task_updated", {"task_id": task.task_id, "patch": {"status": "killed"}})
            self._tell("task_notification", {"task_id": task.task_id, "tool_use_id": task.call_id, "status": "stopped",
                                             "output_file": "", "summary": "interrupted", "usage": task.usage(0)})


def _continued(session, arguments: dict[str, Any]) -> str | None:
    """The agentId a SendMessage call continues (its `to`: an id, or a name only one agent held)."""
    to = arguments.get("to")
    if not isinstance(to, str) or session is None:
        return None
    try:
        return session.agent_registry.find(to.strip(), session.transcripts).agent_id
    except (ToolError, OSError):  # the call itself failed on it, and says so in its result
        return None

"""What the Agent SDK reads of a session: the stream-json lines (`agent.cli.output.StreamJson`),
plus the `session_state_changed` frames it asks for with CLAUDE_CODE_SDK_READS_SESSION_STATE
(marked `sdk_host_only`: the SDK uses them to know when the run is over and swallows them), each
subagent's task frames (agent.cli.sdk.tasks), and what an interrupted turn leaves, in Claude
Code's words."""

from __future__ import annotations

import threading
import uuid
from typing import Any

from agent.cli.output import StreamJson
from agent.cli.sdk.tasks import Tasks

# What Claude Code tells the model (and the SDK) about a tool call an interrupt stopped.
INTERRUPTED_CALL = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a "
                    "file edit, the new_string was NOT written to the file). STOP what you are doing and wait for "
                    "the user to tell you how to proceed. Note: this call was stopped while running, so it may "
                    "have had partial effects.")
INTERRUPTED_TURN = "[Request interrupted by user for tool use]"
INTERRUPTED_REPLY = "[Request interrupted by user]"


class SdkStream(StreamJson):
    """The stream-json lines of an SDK session, with session-state frames when `states` (the SDK
    asked for them), its subagents' task frames, and the main conversation's tool calls still
    without a result tracked, so an interrupt can answer them as Claude Code does."""

    def __init__(self, partial: bool = False, hook_events: bool = False, states: bool = False) -> None:
        super().__init__(partial, hook_events)
        self.states = states
        self._open_calls: dict[str, None] = {}  # the main conversation's tool_use ids without a result yet
        self._calls_lock = threading.Lock()
        self.tasks = Tasks(self._subagent_frame, super().task)
        self.refused_calls: set[str] = set()  # calls can_use_tool refused with interrupt: never run
        # the tool_use_result of the tool-result frame this thread is writing (see `_print`)
        self._result_of = threading.local()

    def state(self, state: str) -> None:
        """The session is `running`, `requires_action` (a question to the SDK) or `idle`."""
        if self.states and self.session is not None:
            self._print({"type": "system", "subtype": "session_state_changed", "state": state,
                         "sdk_host_only": True, "uuid": str(uuid.uuid4()), "session_id": self.session.session_id},
                        early=True)

    def message(self, agent, message: dict[str, Any]) -> None:
        if agent.depth == 0 and message.get("role") == "user" and self.session is not None \
                and self.session.cancelled.is_set():
            # the results of calls an interrupt killed: `interrupted` answers them as Claude Code does;
            # a call the SDK refused with interrupt keeps its refusal as its result
            message = _only_results_of(message, self.refused_calls)
            if message is None:
                return
        if agent.depth == 0 and isinstance(message.get("content"), list):
            with self._calls_lock:
                for block in message["content"]:
                    if not isinstance(block, dict):
                        continue
                    if block.get("type") == "tool_use":
                        self._open_calls[str(block.get("id"))] = None
                    elif block.get("type") == "tool_result":
                        self._open_calls.pop(str(block.get("tool_use_id")), None)
        self.tasks.seen(agent, message, self.session)
        content = message.get("content")
        if message.get("role") == "assistant" or not isinstance(content, list):
            super().message(agent, message)
            return
        self._result_of.value = self.tasks.ended(message)  # a task's closing frames come before its result
        try:
            super().message(agent, message)
        finally:
            self._result_of.value = None

    def task(self, kind: str, fields: dict[str, Any]) -> None:
        """A background agent's task line (agent.subagents.background), noted so that its agent's
        frames are not sent again as a foreground task's."""
        if kind == "task_started":
            self.tasks.launched(fields)
        super().task(kind, fields)

    def _origin(self, agent) -> dict[str, Any]:
        origin = super()._origin(agent)
        if agent.depth > 0 and (agent_id := self.tasks.agent_id(agent.parent_tool_use_id)):
            origin["agent_id"] = agent_id  # Claude Code names the subagent on each of its frames
        return origin

    def _subagent_frame(self, frame: dict[str, Any], agent_id: str | None) -> None:
        extra = {"agent_id": agent_id} if agent_id else {}
        self._print({**frame, **extra, "session_id": self.session.session_id, "uuid": str(uuid.uuid4())})

    def _print(self, line: dict[str, Any], early: bool = False) -> None:
        result = getattr(self._result_of, "value", None)
        if result is not None and line.get("type") == "user":  # the frame of an Agent call's result
            line = {**line, "tool_use_result": result}
        super()._print(line, early)

    def new_turn(self, session, agent) -> None:
        """A turn starts: its `init` line (Claude Code sends one per turn) and no calls open."""
        with self._calls_lock:
            self._open_calls = {}
        self.start(session, agent)

    def api_error(self, text: str) -> None:
        """A provider error ended the turn: Claude Code's synthetic assistant message saying so."""
        self._print({"type": "assistant", "message": {"role": "assistant", "model": "<synthetic>",
                                                      "content": [{"type": "text", "text": text}]},
                     "parent_tool_use_id": None, "session_id": self.session.session_id,
                     "is_api_error_message": True, "uuid": str(uuid.uuid4())})

    def interrupted(self) -> None:
        """An interrupt stopped the turn: each call it left open gets Claude Code's refusal as its
        result, then the user's interruption is said, as Claude Code's stream shows them."""
        with self._calls_lock:
            calls, self._open_calls = list(self._open_calls), {}
        self.tasks.stopped()
        origin = {"parent_tool_use_id": None, "session_id": self.session.session_id}
        if calls:
            results = [{"type": "tool_result", "tool_use_id": call, "content": INTERRUPTED_CALL, "is_error": True}
                       for call in calls]
            self._print({"type": "user", "message": {"role": "user", "content": results}, **origin,
                         "uuid": str(uuid.uuid4())})
        text = INTERRUPTED_TURN if calls else INTERRUPTED_REPLY
        self._print({"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": text}]},
                     **origin, "uuid": str(uuid.uuid4())})


def _only_results_of(message: dict[str, Any], calls: set[str]) -> dict[str, Any] | None:
    """`message` with only the tool results of `calls` (None when it has none of them)."""
    content = message.get("content")
    kept = [block for block in content if isinstance(block, dict) and block.get("tool_use_id") in calls] \
        if isinstance(content, list) else []
    return {**message, "content": kept} if kept else None

"""The Agent SDK's control requests, answered as Claude Code answers them: `initialize` (what the
session offers), `interrupt` (the running turn stops as with Ctrl-C; the session goes on),
`set_model` and `set_permission_mode` (from the next request and the next tool call on),
`mcp_status`, `get_context_usage` and `stop_task` (a background agent stopped as TaskStop stops
one; refused while recording or replaying, where the app's timing, not the model's, would decide
what the model is told). Any other subtype gets Claude Code's error, which the SDK raises to its
caller. A request is untrusted input: a bad value is an error answer, never a crash."""

from __future__ import annotations

import dataclasses
import json
import logging
import os
from typing import Any

from agent.cli.output import CLAUDE_CODE_VERSION
from agent.permissions.policy import MODES

log = logging.getLogger("agent")


class ControlError(Exception):
    """A control request that cannot be done, with the error the SDK is sent."""


class Control:
    """Answers the SDK's control requests during a session (`__call__` is the channel's
    `on_request`). `conversation` is the main conversation, once it exists."""

    def __init__(self, channel, session, stream, interrupt, recorded: bool = False) -> None:
        self.channel = channel
        self.session = session
        self.stream = stream
        self.conversation = None
        self.recorded = recorded  # the session records or replays a cassette
        self._interrupt = interrupt  # stops the running turn (the driver's)

    def __call__(self, request_id: str, request: dict[str, Any]) -> None:
        subtype = request.get("subtype")
        handler = _HANDLERS.get(subtype) if isinstance(subtype, str) else None
        if handler is None:
            shown = subtype if isinstance(subtype, str) else json.dumps(subtype)
            self.channel.refuse(request_id, f"Unsupported control request subtype: {str(shown)[:100]}",
                                "unsupported_request")
            return
        try:
            answer = handler(self, request)
        except ControlError as error:
            self.channel.refuse(request_id, str(error))
            return
        self.channel.respond(request_id, answer)

    def interrupt(self, request: dict[str, Any]) -> dict[str, Any]:
        self._interrupt()
        return {"still_queued": []}

    def set_model(self, request: dict[str, Any]) -> dict[str, Any]:
        from agent.model.providers import resolve_model

        wanted = request.get("model")
        if wanted is not None and (not isinstance(wanted, str) or len(wanted) > 200):
            raise ControlError("set_model: model must be a model name or alias")
        session = self.session
        model = resolve_model([wanted or "default"], session.model_aliases, session.model)
        session.model = model
        if self.conversation is not None:
            self.conversation.agent.model = model
        log.info("model set to %s by the Agent SDK", model)
        return {"model": model}

    def set_permission_mode(self, request: dict[str, Any]) -> dict[str, Any]:
        mode = request.get("mode")
        if mode not in MODES:
            raise ControlError(f"set_permission_mode: mode must be one of {', '.join(MODES)}")
        session = self.session
        if session.policy is not None:
            session.policy = dataclasses.replace(session.policy, mode=mode)
            if self.conversation is not None:
                self.conversation.agent.policy = session.policy
        log.info("permission mode set to %s by the Agent SDK", mode)
        return {"mode": mode}

    def stop_task(self, request: dict[str, Any]) -> dict[str, Any]:
        """A background agent is stopped as TaskStop stops one: its notification says it was
        killed, without its report, and a `task_updated` line says so at once."""
        from agent.tools.base import ToolError

        task_id = request.get("task_id")
        if not isinstance(task_id, str) or not task_id.strip() or len(task_id) > 200:
            raise ControlError("stop_task: task_id must be the id of a task (from its task_started line)")
        if self.recorded:
            raise ControlError(STOP_NOT_RECORDED)
        try:
            self.session.background.stop(task_id)
        except ToolError as error:  # no such task, or reported on already (or stopped)
            raise ControlError(str(error)) from None
        log.info("task %s stopped by the Agent SDK", task_id)
        return {}

    def mcp_status(self, request: dict[str, Any]) -> dict[str, Any]:
        return {"mcpServers": mcp_servers_status(self.session)}

    def get_context_usage(self, request: dict[str, Any]) -> dict[str, Any]:
        from agent.model.limits import context_window

        session = self.session
        messages = self.conversation.messages if self.conversation is not None else []
        system = self.conversation.agent.system if self.conversation is not None else ""
        tools = [t.schema() for t in self.conversation.agent.tools.values()] if self.conversation is not None else []
        # about four characters a token: what Claude Code's /context estimates for text it has not sent
        counts = {"System prompt": len(system) // 4, "System tools": len(json.dumps(tools)) // 4,
                  "Messages": len(json.dumps(messages, ensure_ascii=False)) // 4}
        total = sum(counts.values())
        window = context_window(session.model) or 0
        return {"categories": [{"name": name, "tokens": tokens} for name, tokens in counts.items()],
                "totalTokens": total, "maxTokens": window, "rawMaxTokens": window,
                "percentage": round(100 * total / window, 1) if window else 0, "model": session.model}


_HANDLERS = {
    "interrupt": Control.interrupt,
    "set_model": Control.set_model,
    "set_permission_mode": Control.set_permission_mode,
    "mcp_status": Control.mcp_status,
    "get_context_usage": Control.get_context_usage,
    "stop_task": Control.stop_task,
}
STOP_NOT_RECORDED = ("stop_task is not available while recording or replaying: a replay could not stop the task "
                     "at the point the application did")


def mcp_servers_status(session) -> list[dict[str, Any]]:
    """Each MCP server of the session: its name, status and tools, as `mcp_status` lists them."""
    if session.mcp is None:
        return []
    tools: dict[str, list[dict[str, str]]] = {}
    for tool in session.mcp_tools():
        server = tool.name.split("__")[1] if tool.name.count("__") >= 2 else ""
        tools.setdefault(server, []).append({"name": tool.name})
    return [{**entry, "tools": tools.get(entry["name"], [])} for entry in session.mcp.status()]


def initialize_answer(session, agent) -> dict[str, Any]:
    """What `initialize` is answered with: the commands (user-invocable skills), agent types,
    models and permission mode of the session, and who answers (Claude Code's keys)."""
    commands = [{"name": name, "description": skill.description, "argumentHint": getattr(skill, "argument_hint", "") or ""}
                for name, skill in session.skills.items() if skill.user_invocable]
    agents = [{"name": name, "description": definition.description, **({"model": definition.model}
                                                                        if definition.model else {})}
              for name, definition in session.agents.items()]
    models = [{"value": alias, "displayName": alias, "description": model}
              for alias, model in sorted(session.model_aliases.items())]
    return {"commands": commands, "agents": agents, "output_style": "default", "available_output_styles": ["default"],
            "models": models, "account": {}, "pid": os.getpid(), "claude_code_version": CLAUDE_CODE_VERSION,
            "current_permission_mode": getattr(agent.policy, "mode", "default"),
            "hook_on_failure_supported": False, "session_state": "idle", "capabilities": {}}

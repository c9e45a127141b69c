"""TaskStop: stop a background task by its id, as Claude Code 2.1.332 does: here the background
tasks are the main conversation's background agents (`session.background`, reached through the
tool context), named by the agentId their launch returned. The result is Claude Code's JSON
text; an unknown id and a missing one are its errors. (`shell_id` is Claude Code's deprecated
name for `task_id`.)"""

from __future__ import annotations

import json
from typing import Any

from agent.tools.base import Tool, ToolError
from agent.tools.todo.texts import TASK_STOP as TASK_STOP_TEXT


def _stop(arguments: dict[str, Any], context: Any) -> str:
    try:
        stopped = _stopped(arguments, context)
    except ToolError as error:  # Claude Code's stream-json line shows the error as its tool_use_result
        context.session.todo.note_result(context.call_id, f"Error: {error}")
        raise
    task_id = stopped.agent_id
    result = {"message": f"Successfully stopped task: {task_id} ({stopped.description})", "task_id": task_id,
              "task_type": "local_agent", "command": stopped.description}
    context.session.todo.note_result(context.call_id, result)
    return json.dumps(result, ensure_ascii=False, separators=(",", ":"))


def _stopped(arguments: dict[str, Any], context: Any) -> Any:
    """The background agent the call stopped (ToolError when it names none that runs)."""
    task_id = arguments.get("task_id") or arguments.get("shell_id")
    if not task_id:
        raise ToolError("Missing required parameter: task_id")
    background = getattr(context.session, "background", None)
    if background is None:
        raise ToolError(f"No task found with ID: {task_id}")
    return background.stop(task_id)


TASK_STOP = Tool(
    name="TaskStop",
    description=TASK_STOP_TEXT,
    parameters={"type": "object", "properties": {
        "task_id": {"description": "The ID of the background task to stop. Agent-team teammates and named background "
                                   "agents are also accepted by agent ID or name.", "type": "string"},
        "shell_id": {"description": "Deprecated: use task_id instead", "type": "string"},
    }, "additionalProperties": False},
    run=_stop,
    read_only=True,  # it ends work this session started; Claude Code asks nobody
    in_session=True,
)

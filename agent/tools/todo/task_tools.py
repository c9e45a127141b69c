"""TaskCreate, TaskGet, TaskList and TaskUpdate: Claude Code 2.1.332's task-list tools, their
schemas and result texts as it has them, on the session's `TaskList` (agent.tools.todo.store),
reached through the tool context. Each run keeps Claude Code's structured result for the call's
stream-json line (`tool_use_result`)."""

from __future__ import annotations

from typing import Any

from agent.tools.base import Tool, ToolError, object_schema
from agent.tools.todo.texts import (TASK_CREATE as TASK_CREATE_TEXT, TASK_GET as TASK_GET_TEXT,
                                     TASK_LIST as TASK_LIST_TEXT, TASK_UPDATE as TASK_UPDATE_TEXT)
from agent.tools.todo.store import DELETED, STATUSES, TaskList

NOT_FOUND = "Task not found"
_ACTIVE_FORM = {"description": "Present continuous form shown in spinner when in_progress (e.g., \"Running tests\")",
                "type": "string"}


def _metadata(description: str) -> dict[str, Any]:
    return {"description": description, "type": "object", "propertyNames": {"type": "string"},
            "additionalProperties": {}}


def _ids(description: str) -> dict[str, Any]:
    return {"description": description, "type": "array", "items": {"type": "string"}}


def task_list(context: Any) -> TaskList:
    """The task list of the session `context` belongs to."""
    return context.session.todo.tasks


def _note(context: Any, result: Any) -> None:
    context.session.todo.note_result(context.call_id, result)


def _create(arguments: dict[str, Any], context: Any) -> str:
    task = task_list(context).create(arguments["subject"], arguments["description"], arguments.get("activeForm"),
                                     arguments.get("metadata"))
    _note(context, {"task": {key: task[key] for key in ("id", "subject", "description")}})
    return f"Task #{task['id']} created successfully: {task['subject']}"


def _get(arguments: dict[str, Any], context: Any) -> str:
    tasks = task_list(context)
    task = tasks.get(arguments["taskId"])
    if task is None:
        _note(context, {"task": None})
        return NOT_FOUND
    blockers = tasks.open_blockers(task)
    _note(context, {"task": {**{key: task[key] for key in ("id", "subject", "description", "status",
                                                                               "blocks")}, "blockedBy": blockers}})
    lines = [f"Task #{task['id']}: {task['subject']}", f"Status: {task['status']}", f"Description: {task['description']}"]
    if blockers:
        lines.append("Blocked by: " + _numbers(blockers))
    if task["blocks"]:
        lines.append("Blocks: " + _numbers(task["blocks"]))
    return "\n".join(lines)


def _list(arguments: dict[str, Any], context: Any) -> str:
    tasks = task_list(context)
    shown, lines = [], []
    for task in tasks.all():
        blockers = tasks.open_blockers(task)
        entry = {"id": task["id"], "subject": task["subject"], "status": task["status"]}
        if "owner" in task:
            entry["owner"] = task["owner"]
        shown.append({**entry, "blockedBy": blockers})
        line = f"#{task['id']} [{task['status']}] {task['subject']}"
        if task.get("owner"):
            line += f" ({task['owner']})"
        if blockers:
            line += f" [blocked by {_numbers(blockers)}]"
        lines.append(line)
    _note(context, {"tasks": shown})
    return "\n".join(lines) if lines else "No tasks found"


def _update(arguments: dict[str, Any], context: Any) -> str:
    status = arguments.get("status")
    if "status" in arguments and status not in (*STATUSES, DELETED):
        raise ToolError(f"TaskUpdate: argument 'status' must be one of {', '.join(STATUSES)} or {DELETED}, "
                        f"got {status!r}")
    for key in ("addBlocks", "addBlockedBy"):
        if not all(isinstance(item, str) for item in arguments.get(key, [])):
            raise ToolError(f"TaskUpdate: argument {key!r} must be a list of task ids (strings)")
    tasks, task_id = task_list(context), arguments["taskId"]
    changes = {key: value for key, value in arguments.items() if key != "taskId"}
    updated = tasks.update(task_id, changes)
    if updated is None:
        _note(context, {"success": False, "taskId": task_id, "updatedFields": [],
                                            "error": NOT_FOUND})
        return NOT_FOUND
    fields, moved = updated
    result: dict[str, Any] = {"success": True, "taskId": task_id, "updatedFields": fields}
    if moved is not None:
        result["statusChange"] = moved
    _note(context, result)
    return f"Updated task #{task_id} {', '.join(fields)}"


def _numbers(ids: list[str]) -> str:
    return ", ".join(f"#{task_id}" for task_id in ids)


# read_only: they change nothing outside the session's list, so they need no approval (plan mode included);
# in_session: under --replay-tools they still run on the (in-memory) list, so it is as it was recorded
TASK_CREATE = Tool(
    name="TaskCreate",
    description=TASK_CREATE_TEXT,
    parameters=object_schema({
        "subject": {"description": "A brief title for the task", "type": "string"},
        "description": {"description": "What needs to be done", "type": "string"},
        "activeForm": _ACTIVE_FORM,
        "metadata": _metadata("Arbitrary metadata to attach to the task"),
    }, ["subject", "description"]),
    run=_create,
    read_only=True,
    in_session=True,
)

TASK_GET = Tool(
    name="TaskGet",
    description=TASK_GET_TEXT,
    parameters=object_schema({"taskId": {"description": "The ID of the task to retrieve", "type": "string"}}, ["taskId"]),
    run=_get,
    read_only=True,
    in_session=True,
)

TASK_LIST = Tool(
    name="TaskList",
    description=TASK_LIST_TEXT,
    parameters={"type": "object", "properties": {}, "additionalProperties": False},
    run=_list,
    read_only=True,
    in_session=True,
)

TASK_UPDATE = Tool(
    name="TaskUpdate",
    description=TASK_UPDATE_TEXT,
    parameters=object_schema({
        "taskId": {"description": "The ID of the task to update", "type": "string"},
        "subject": {"description": "New subject for the task", "type": "string"},
        "description": {"description": "New description for the task", "type": "string"},
        "activeForm": _ACTIVE_FORM,
        "status": {"description": "New status for the task",
                   "anyOf": [{"type": "string", "enum": list(STATUSES)}, {"type": "string", "const": DELETED}]},
        "addBlocks": _ids("Task IDs that this task blocks"),
        "addBlockedBy": _ids("Task IDs that block this task"),
        "owner": {"description": "New owner for the task", "type": "string"},
        "metadata": _metadata("Metadata keys to merge into the task. Set a key to null to delete it."),
    }, ["taskId"]),
    run=_update,
    read_only=True,
    in_session=True,
)

"""TodoWrite (CLAUDE_CODE_ENABLE_TASKS=0): the model writes its whole todo list each time. As in
Claude Code 2.1.332 the list is the agent's own (a subagent's is not its caller's), lives only in
memory and in the conversation, and a list whose items are all completed is cleared. An agent's
list is, before it writes one in this run, the last one its conversation holds (a --continue or
--resume picks it up from the history, as Claude Code does)."""

from __future__ import annotations

from typing import Any

from agent.tools.base import Tool, ToolError
from agent.tools.todo.texts import TODO_WRITE as TODO_WRITE_TEXT, TODO_WRITTEN
from agent.tools.todo.store import STATUSES
from agent.tools.todo.state import TODO_WRITE as NAME

_FIELDS = ("content", "status", "activeForm")


def agent_key(agent: Any) -> str:
    """Whose list a call writes: the main conversation's, or a subagent's (by its id)."""
    if getattr(agent, "depth", 0) == 0:
        return "main"
    agent_id = getattr(getattr(agent, "transcript", None), "agent_id", None)
    return agent_id or str(getattr(agent, "parent_tool_use_id", None) or getattr(agent, "name", ""))


def todos_problems(todos: list[Any]) -> list[str]:
    """Why `todos` is not a todo list: each item's problems, in order ([] when it is one)."""
    problems = []
    for index, item in enumerate(todos):
        where = f"todos[{index}]"
        if not isinstance(item, dict):
            problems.append(f"The parameter `{where}` must be an object with content, status and activeForm")
            continue
        for key in _FIELDS:
            if key not in item:
                problems.append(f"The required parameter `{where}.{key}` is missing")
            elif not isinstance(item[key], str):
                problems.append(f"The parameter `{where}.{key}` type is expected as `string`")
            elif key == "status" and item[key] not in STATUSES:
                problems.append(f"The parameter `{where}.status` must be one of {', '.join(STATUSES)}, not {item[key]!r}")
            elif key != "status" and not item[key]:
                problems.append(f"The parameter `{where}.{key}` cannot be empty")
    return problems


def last_written(messages: Any) -> list[dict[str, Any]]:
    """The list of the last TodoWrite call in `messages` that did not fail ([] when none)."""
    failed = {block.get("tool_use_id") for message in messages or () if message.get("role") == "user"
              for block in _blocks(message) if block.get("type") == "tool_result" and block.get("is_error")}
    answered = {block.get("tool_use_id") for message in messages or () if message.get("role") == "user"
                for block in _blocks(message) if block.get("type") == "tool_result"}
    for message in reversed(list(messages or ())):
        if message.get("role") != "assistant":
            continue
        for block in reversed(_blocks(message)):
            if (block.get("type") == "tool_use" and block.get("name") == NAME and block.get("id") in answered
                    and block.get("id") not in failed):
                todos = block.get("input", {}).get("todos") if isinstance(block.get("input"), dict) else None
                if isinstance(todos, list) and not todos_problems(todos):
                    return _kept([_only_fields(item) for item in todos])
    return []


def _write(arguments: dict[str, Any], context: Any) -> str:
    todos = arguments["todos"]
    if problems := todos_problems(todos):
        which = "issue" if len(problems) == 1 else "issues"
        raise ToolError(f"InputValidationError: TodoWrite failed due to the following {which}:\n" + "\n".join(problems))
    state, key = context.session.todo, agent_key(context.agent)
    before = state.todos(key)
    if before is None:
        before = last_written(context.messages)
    written = [_only_fields(item) for item in todos]
    state.write_todos(key, _kept(written))
    state.note_result(context.call_id, {"oldTodos": before, "newTodos": written})
    return TODO_WRITTEN


def _only_fields(item: dict[str, Any]) -> dict[str, Any]:
    """An item with its three fields only (Claude Code drops any other key)."""
    return {key: item[key] for key in _FIELDS}


def _kept(todos: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What stays of a written list: nothing once every item is completed."""
    return [] if todos and all(item["status"] == "completed" for item in todos) else todos


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    return [block for block in content if isinstance(block, dict)] if isinstance(content, list) else []


TODO_WRITE = Tool(
    name=NAME,
    description=TODO_WRITE_TEXT,
    parameters={
        "type": "object",
        "properties": {"todos": {"description": "The updated todo list", "type": "array", "items": {
            "type": "object",
            "properties": {"content": {"type": "string", "minLength": 1},
                           "status": {"type": "string", "enum": list(STATUSES)},
                           "activeForm": {"type": "string", "minLength": 1}},
            "required": list(_FIELDS),
            "additionalProperties": False}}},
        "required": ["todos"],
        "additionalProperties": False,
    },
    run=_write,
    read_only=True,  # changes nothing but the agent's own list: no approval, plan mode included
    in_session=True,
)

"""Whether a tool call's arguments fit the tool's JSON schema (the model's, a PreToolUse hook's
replacement, an approver's updated input): the required ones present, each of its declared type."""

from __future__ import annotations

from typing import Any

_JSON_TYPES = {
    "string": str,
    "integer": int,
    "number": (int, float),
    "boolean": bool,
    "object": dict,
    "array": list,
}


def argument_problem(arguments: dict[str, Any], schema: dict[str, Any]) -> str | None:
    """Why `arguments` do not fit the tool's schema, or None when they do."""
    properties = schema.get("properties", {})
    missing = [name for name in schema.get("required", []) if name not in arguments]
    if missing:
        return f"missing required argument(s): {', '.join(missing)}"
    for name, value in arguments.items():
        if name not in properties:
            if schema.get("additionalProperties") is False:
                return f"unknown argument {name!r}; expected: {', '.join(properties)}"
            continue
        # an MCP server's schema may type a property as a list of types, or not be an object at all
        expected = properties[name].get("type") if isinstance(properties[name], dict) else None
        python_type = _JSON_TYPES.get(expected) if isinstance(expected, str) else None
        # bool is an int in Python, but not in JSON
        wrong_bool = expected in ("integer", "number") and isinstance(value, bool)
        if python_type and (not isinstance(value, python_type) or wrong_bool):
            return f"argument {name!r} must be of type {expected}, got {type(value).__name__}"
    return None

"""The content preset of the match rules (`preset: content`, `--match content`): what the user
owns of a request body, on either wire.

The conversation's messages, tool names and input schemas (their descriptions left out, but the
agent-type entries the Agent tool lists), the skill and agent catalog entries of the system prompt
(`- name: description` lines) and a subagent's own prompt are compared; our instructions, tool
descriptions, generation parameters, the environment note and cache markers are not, so an
upgrade of the agent does not turn a team's cassettes red.
"""

from __future__ import annotations

import re
from typing import Any

# a catalog entry of the skill or agent listings (agent.skills.catalog): `- name: description`
_CATALOG_LINE = re.compile(r"^- [a-z0-9][a-z0-9._:-]*(?:: .*)?$")
# what the content preset keeps of a request's top level; the rest are our generation parameters
_CONTENT_FIELDS = ("model", "system", "messages", "tools")


def content_view(body: Any, agent: str | None = None) -> Any:
    """What the user owns of a request body, on either wire: the model, the conversation's
    messages (cache markers left out), tools by name and input schema (their descriptions left
    out, but the agent-type entries the Agent tool lists), and of the system prompt only what the
    user wrote: the main conversation's catalog entries, or a subagent's own prompt."""
    if not isinstance(body, dict):
        return body
    view: dict[str, Any] = {key: body[key] for key in _CONTENT_FIELDS if key in body}
    main = agent in (None, "main")
    if "system" in view:
        view["system"] = _own_system(view["system"], main)
    if isinstance(view.get("messages"), list):
        view["messages"] = [_own_message(message, main) for message in view["messages"]]
    if isinstance(view.get("tools"), list):
        view["tools"] = [_own_tool(tool) for tool in view["tools"]]
    return _without_keys(view, "cache_control")


def _own_system(system: Any, main: bool) -> Any:
    if isinstance(system, str):
        return catalog_lines(system) if main else _without_environment(system)
    if isinstance(system, list):
        return [{**block, "text": _own_system(block["text"], main)} if isinstance(block, dict) and isinstance(block.get("text"), str)
                else block for block in system]
    return system


def _own_message(message: Any, main: bool) -> Any:
    if isinstance(message, dict) and message.get("role") == "system":  # the chat wire's system prompt
        return {**message, "content": _own_system(message.get("content"), main)}
    return message


def _own_tool(tool: Any) -> Any:
    if not isinstance(tool, dict):
        return tool
    if isinstance(tool.get("function"), dict):  # the chat wire: {"type": "function", "function": {...}}
        return {**tool, "function": _own_tool(tool["function"])}
    own = dict(tool)
    if isinstance(own.get("description"), str):
        own["description"] = catalog_lines(own["description"])
    for schema in ("parameters", "input_schema"):
        if schema in own:
            own[schema] = _without_keys(own[schema], "description")
    return own


def catalog_lines(text: str) -> str:
    """The catalog entries (`- name: description`) of one of our instruction texts, the only part
    of it a user wrote: skill and agent names with their descriptions."""
    return "\n".join(line for line in text.splitlines() if _CATALOG_LINE.match(line))


def _without_environment(text: str) -> str:
    """A subagent's system prompt less the environment note we add (its last paragraph)."""
    head, found, _ = text.rpartition("\n\nEnvironment:\n")
    return head if found else text


def _without_keys(value: Any, name: str) -> Any:
    if isinstance(value, dict):
        return {key: _without_keys(item, name) for key, item in value.items() if key != name}
    if isinstance(value, list):
        return [_without_keys(item, name) for item in value]
    return value

"""One recorded request and its reply, for a person (`cassette show FILE --request N`).

What the model was sent, read from the body on either wire: the agent that sent it, the model,
the system prompt, the names of the tools offered, each message (its role, text, tool calls and
tool results, whole), then the reply (its text, tool calls, stop reason and tokens). The body is
someone else's file: every field is checked for its type before it is read, and a part of an
unknown kind is named, not skipped.
"""

from __future__ import annotations

import json
from typing import Any

from agent.record.bodies import content_text, request_body
from agent.record.cassette_file import CassetteFile
from agent.record.show import Wire, agent_name, input_line, read_reply, tokens
from agent.workspace import load_json


def request_text(cassette: CassetteFile, index: int, wire: Wire) -> str:
    """Request `index` (0-based) of `cassette` and its reply, as lines a person reads."""
    interaction = cassette.interactions[index]
    body = request_body(cassette, index)
    body = body if isinstance(body, dict) else {}
    model = body.get("model") if isinstance(body.get("model"), str) else "?"
    lines = [f"request {index + 1} of {len(cassette.interactions)} · {agent_name(interaction.agent)} · model {model}"]
    messages = [m for m in _list(body.get("messages")) if isinstance(m, dict)]
    system = content_text(body["system"], name_others=True) if "system" in body else "\n\n".join(
        content_text(m.get("content"), name_others=True) for m in messages if m.get("role") == "system")
    lines += ["", "system", *_indented(system or "(none)", 2)]
    names = [_tool_name(tool) for tool in _list(body.get("tools"))]
    lines += ["", f"tools     {', '.join(names) if names else '(none)'}"]
    conversation = [m for m in messages if m.get("role") != "system"]
    called = _call_names(conversation)
    for number, message in enumerate(conversation, 1):
        lines += ["", f"message {number} · {message.get('role') if isinstance(message.get('role'), str) else '?'}"]
        lines += _message_lines(message, called)
    lines += ["", *_reply_lines(interaction, wire)]
    return "\n".join(lines)


def _message_lines(message: dict, called: dict[str, str]) -> list[str]:
    """A message's parts: chat's `content`, `tool_calls` and a `tool` role's result, or the
    Messages API's content blocks."""
    lines: list[str] = []
    if message.get("role") == "tool":  # chat: one tool result
        return _result_lines(message.get("tool_call_id"), message.get("content"), None, called)
    content = message.get("content")
    for block in content if isinstance(content, list) else [content]:
        lines += _block_lines(block, called)
    for call in _list(message.get("tool_calls")):
        function = call.get("function") if isinstance(call, dict) and isinstance(call.get("function"), dict) else {}
        lines.append(_call_line(function.get("name"), call.get("id") if isinstance(call, dict) else None,
                                _arguments(function.get("arguments"))))
    return lines


def _block_lines(block: Any, called: dict[str, str]) -> list[str]:
    if block is None:
        return []
    if isinstance(block, str):
        return _indented(block, 2)
    if not isinstance(block, dict):
        return [f"  ({json.dumps(block, ensure_ascii=False)})"]
    kind = block.get("type")
    if kind == "text" and isinstance(block.get("text"), str):
        return _indented(block["text"], 2)
    if kind == "tool_use":
        return [_call_line(block.get("name"), block.get("id"), block.get("input"))]
    if kind == "tool_result":
        return _result_lines(block.get("tool_use_id"), block.get("content"), block.get("is_error"), called)
    if kind == "thinking" and isinstance(block.get("thinking"), str):
        return ["  (thinking)", *_indented(block["thinking"], 4)]
    return [f"  ({kind if isinstance(kind, str) else 'a part of no known kind'})"]


def _result_lines(call_id: Any, content: Any, is_error: Any, called: dict[str, str]) -> list[str]:
    text = content_text(content, name_others=True)
    if is_error is None:  # chat marks an error in the text
        is_error = text.startswith("Error: ")
    name = called.get(call_id, "?") if isinstance(call_id, str) else "?"
    head = f"  ← {name} result{' (an error)' if is_error is True else ''}{f' [{call_id}]' if isinstance(call_id, str) else ''}"
    return [head, *_indented(text, 4)]


def _call_line(name: Any, call_id: Any, arguments: Any) -> str:
    shown = name if isinstance(name, str) else "?"
    return f"  → {shown}({input_line(arguments)}){f' [{call_id}]' if isinstance(call_id, str) else ''}"


def _reply_lines(interaction, wire: Wire) -> list[str]:
    reply = read_reply(interaction, wire)
    if "error" in reply:
        return [f"reply · {reply['error']}"]
    lines = [f"reply · HTTP {interaction.status} · stop {reply['stop_reason']} · {tokens(reply['usage'])}"]
    if reply["text"]:
        lines += _indented(reply["text"], 2)
    lines += [_call_line(call["name"], call["id"], call["input"]) for call in reply["tool_calls"]]
    return lines


def _call_names(messages: list[dict]) -> dict[str, str]:
    """Each tool call's name by its id, from the assistant turns (results name only the id)."""
    names: dict[str, str] = {}
    for message in messages:
        content = message.get("content")
        for block in _list(content):
            if isinstance(block, dict) and block.get("type") == "tool_use" and isinstance(block.get("id"), str):
                names[block["id"]] = block.get("name") if isinstance(block.get("name"), str) else "?"
        for call in _list(message.get("tool_calls")):
            if isinstance(call, dict) and isinstance(call.get("id"), str) and isinstance(call.get("function"), dict):
                name = call["function"].get("name")
                names[call["id"]] = name if isinstance(name, str) else "?"
    return names


def _tool_name(tool: Any) -> str:
    """A tool's name on either wire: chat's `{"function": {"name"}}` or the Messages API's `{"name"}`."""
    if isinstance(tool, dict):
        named = tool.get("function") if isinstance(tool.get("function"), dict) else tool
        if isinstance(named.get("name"), str):
            return named["name"]
    return "?"


def _arguments(raw: Any) -> Any:
    """Chat's tool arguments, a JSON text, as the value it holds (the text itself when it is not JSON)."""
    if not isinstance(raw, str):
        return raw
    try:
        return load_json(raw, "tool arguments")
    except ValueError:
        return raw


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


def _indented(text: str, width: int) -> list[str]:
    return [(" " * width + line).rstrip() for line in text.splitlines()] or [" " * width + "(empty)"]

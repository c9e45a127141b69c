"""OpenAI-compatible chat completions (OpenRouter)."""

from __future__ import annotations

import json
from typing import Any

from agent.conversation import Reply, ToolCall, Usage
from agent.errors import ProviderError

PATH = "chat/completions"
EPHEMERAL = {"type": "ephemeral"}


def encode(system: str, messages: list[dict], tools: list[dict], model: str, max_tokens: int) -> dict:
    """The chat-completions request body for the internal conversation.

    Stable parts come first and the growing conversation last, so each request's bytes are a
    prefix of the next one's. For Anthropic models (through OpenRouter) the system prompt carries a
    cache breakpoint and a top-level one lets the provider mark the latest message, so every turn
    reuses the cached prefix without changing the shape of the messages."""
    cached = model.startswith("anthropic/")
    body: dict[str, Any] = {"model": model, "max_tokens": max_tokens}
    if cached:
        body["cache_control"] = EPHEMERAL
    if tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {"name": t["name"], "description": t["description"], "parameters": t["parameters"]},
            }
            for t in tools
        ]
    wire_messages: list[dict[str, Any]] = []
    if system:
        content: Any = [{"type": "text", "text": system, "cache_control": EPHEMERAL}] if cached else system
        wire_messages.append({"role": "system", "content": content})
    for message in messages:
        wire_messages.extend(_encode_message(message))
    body["messages"] = wire_messages
    return body


def _encode_message(message: dict) -> list[dict[str, Any]]:
    content = message["content"]
    if isinstance(content, str):
        return [{"role": message["role"], "content": content}]
    if message["role"] == "assistant":
        text = "".join(b["text"] for b in content if b["type"] == "text")
        calls = [
            {
                "id": b["id"],
                "type": "function",
                "function": {"name": b["name"], "arguments": json.dumps(b["input"], ensure_ascii=False)},
            }
            for b in content
            if b["type"] == "tool_use"
        ]
        encoded: dict[str, Any] = {"role": "assistant", "content": text or None}
        if calls:
            encoded["tool_calls"] = calls
        return [encoded]
    # A user turn of blocks: one `tool` message per result (chat has no error flag, so errors are
    # marked in the text), then any text as a user message after them.
    out: list[dict[str, Any]] = []
    texts = []
    for block in content:
        if block["type"] == "tool_result":
            text = block["content"]
            if block.get("is_error"):
                text = f"Error: {text}"
            out.append({"role": "tool", "tool_call_id": block["tool_use_id"], "content": text})
        elif block["type"] == "text":
            texts.append(block["text"])
    if texts:
        out.append({"role": "user", "content": "\n\n".join(texts)})
    return out


def decode(body: Any) -> Reply:
    """The reply in a chat-completions response body; a body that carries an error raises ProviderError."""
    if not isinstance(body, dict):
        raise ProviderError("the provider's reply is not a JSON object")
    if body.get("error"):
        raise ProviderError(f"the provider reported an error: {error_text(body)}")
    choices = body.get("choices")
    if not choices or not isinstance(choices, list) or not isinstance(choices[0], dict):
        raise ProviderError("the provider's reply has no choices")
    choice = choices[0]
    if choice.get("finish_reason") == "error":
        raise ProviderError(f"the provider ended the reply with an error: {error_text(choice)}")
    message = choice.get("message")
    if not isinstance(message, dict):
        raise ProviderError("the provider's reply has no message")
    raw_calls = message.get("tool_calls") or []
    if not isinstance(raw_calls, list) or not all(isinstance(raw, dict) for raw in raw_calls):
        raise ProviderError("the provider's reply has malformed tool_calls")
    calls = [_decode_call(raw, index) for index, raw in enumerate(raw_calls)]
    return Reply(
        text=_text_of(message.get("content")),
        tool_calls=calls,
        usage=_usage(body.get("usage")),
        stop_reason=choice.get("finish_reason"),
    )


def _usage(raw: Any) -> Usage:
    # prompt_tokens counts the whole prompt; OpenRouter says in prompt_tokens_details how much of it
    # was read from or written to the cache
    raw = raw if isinstance(raw, dict) else {}
    details = raw.get("prompt_tokens_details") if isinstance(raw.get("prompt_tokens_details"), dict) else {}
    read, written = _count(details.get("cached_tokens")), _count(details.get("cache_write_tokens"))
    return Usage(
        input_tokens=max(0, _count(raw.get("prompt_tokens")) - read - written),
        output_tokens=_count(raw.get("completion_tokens")),
        requests=1,
        cache_read_tokens=read,
        cache_write_tokens=written,
    )


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part["text"] for part in content if isinstance(part, dict) and isinstance(part.get("text"), str)
        )
    return ""


def _decode_call(raw: dict, index: int) -> ToolCall:
    function = raw.get("function") if isinstance(raw.get("function"), dict) else {}
    call = ToolCall(id=str(raw.get("id") or f"call_{index}"), name=str(function.get("name") or ""), arguments={})
    text = function.get("arguments")
    if text in (None, ""):
        return call
    if isinstance(text, dict):
        call.arguments = text
        return call
    try:
        decoded = json.loads(text)
    except (TypeError, ValueError, RecursionError) as exc:
        call.arguments_error = f"the arguments are not valid JSON ({exc}); send a JSON object"
        return call
    if isinstance(decoded, dict):
        call.arguments = decoded
    else:
        call.arguments_error = "the arguments must be a JSON object"
    return call


def error_text(body: Any) -> str:
    """The provider's own error message from an error body."""
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
        if isinstance(error, str):
            return error
    return json.dumps(body)[:300]

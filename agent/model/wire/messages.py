"""The Anthropic Messages API."""

from __future__ import annotations

import json
from typing import Any

from agent.conversation import Reply, ToolCall, Usage
from agent.errors import ProviderError

PATH = "v1/messages"
EPHEMERAL = {"type": "ephemeral"}


def encode(system: str, messages: list[dict], tools: list[dict], model: str, max_tokens: int) -> dict:
    """The Messages API request body; the internal conversation is already in this shape.

    Prompt caching: breakpoints on the last tool and on the system prompt, and a top-level one that
    the API places on the latest message, so a multi-turn run (and every subagent sharing tools)
    reuses the cache. Stable parts come first and the conversation last, so each request's bytes
    are a prefix of the next one's."""
    body: dict[str, Any] = {"model": model, "max_tokens": max_tokens, "cache_control": EPHEMERAL}
    if tools:
        body["tools"] = [
            {"name": t["name"], "description": t["description"], "input_schema": t["parameters"]} for t in tools
        ]
        body["tools"][-1]["cache_control"] = EPHEMERAL
    if system:
        body["system"] = [{"type": "text", "text": system, "cache_control": EPHEMERAL}]
    body["messages"] = messages
    return body


def decode(body: Any) -> Reply:
    """The reply in a Messages API response body; a body that carries an error raises ProviderError."""
    if not isinstance(body, dict):
        raise ProviderError("the provider's reply is not a JSON object")
    if body.get("type") == "error" or body.get("error"):
        raise ProviderError(f"the provider reported an error: {error_text(body)}")
    content = body.get("content")
    if not isinstance(content, list):
        raise ProviderError("the provider's reply has no content blocks")
    texts, calls = [], []
    for index, block in enumerate(content):
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            texts.append(str(block.get("text") or ""))
        elif block.get("type") == "tool_use":
            arguments = block.get("input")
            call = ToolCall(
                id=str(block.get("id") or f"toolu_{index}"),
                name=str(block.get("name") or ""),
                arguments=arguments if isinstance(arguments, dict) else {},
            )
            if not isinstance(arguments, dict):
                call.arguments_error = "the input must be a JSON object"
            calls.append(call)
    usage = body.get("usage") if isinstance(body.get("usage"), dict) else {}
    return Reply(
        text="".join(texts),
        tool_calls=calls,
        usage=Usage(
            input_tokens=_count(usage.get("input_tokens")),
            output_tokens=_count(usage.get("output_tokens")),
            requests=1,
            cache_read_tokens=_count(usage.get("cache_read_input_tokens")),
            cache_write_tokens=_count(usage.get("cache_creation_input_tokens")),
        ),
        stop_reason=body.get("stop_reason"),
    )


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def error_text(body: Any) -> str:
    """The provider's own error message from an error body."""
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
    return json.dumps(body)[:300]

"""The Messages API's stream, put back together into the body a non-streaming request returns, so
one decoder reads both. Text is handed on as it arrives."""

from __future__ import annotations

from typing import Any, Callable, Iterable

from agent.model.wire import provider_json


class BrokenStream(Exception):
    """The stream ended before the reply did (a retryable failure)."""


def assemble(events: Iterable[tuple[str, str]], on_text: Callable[[str], None]) -> dict[str, Any]:
    """The message the events describe (an error body when the stream carried an error); raises
    BrokenStream when it stops before `message_stop`."""
    message: dict[str, Any] | None = None
    blocks: dict[int, dict[str, Any]] = {}
    partial_json: dict[int, str] = {}
    for _, data in events:
        try:
            event = provider_json.load(data, "an event of the provider's stream")
        except ValueError:
            continue
        kind = event.get("type") if isinstance(event, dict) else None
        if kind == "error":
            return event
        if kind == "message_start":
            message = dict(event.get("message") or {})
        elif kind == "content_block_start":
            blocks[event.get("index", len(blocks))] = dict(event.get("content_block") or {})
        elif kind == "content_block_delta":
            _apply(blocks.setdefault(event.get("index", 0), {}), event.get("delta") or {}, event.get("index", 0),
                   partial_json, on_text)
        elif kind == "content_block_stop":
            index = event.get("index", 0)
            if index in partial_json and index in blocks:
                text = partial_json.pop(index)
                try:
                    blocks[index]["input"] = provider_json.load(text or "{}", "a tool input in the provider's stream")
                except ValueError:
                    blocks[index]["input"] = text  # decoded as a call with arguments that are not JSON
        elif kind == "message_delta" and message is not None:
            message.update({k: v for k, v in (event.get("delta") or {}).items() if v is not None})
            message["usage"] = {**(message.get("usage") or {}), **(event.get("usage") or {})}
        elif kind == "message_stop" and message is not None:
            message["content"] = [blocks[index] for index in sorted(blocks)]
            return message
    raise BrokenStream("the stream ended before the reply did")


def _apply(block: dict, delta: dict, index: int, partial_json: dict[int, str], on_text: Callable[[str], None]) -> None:
    kind = delta.get("type")
    if kind == "text_delta":
        block["text"] = block.get("text", "") + (delta.get("text") or "")
        if delta.get("text"):
            on_text(delta["text"])
    elif kind == "input_json_delta":
        partial_json[index] = partial_json.get(index, "") + (delta.get("partial_json") or "")
    elif kind == "thinking_delta":
        block["thinking"] = block.get("thinking", "") + (delta.get("thinking") or "")
    elif kind == "signature_delta":
        block["signature"] = block.get("signature", "") + (delta.get("signature") or "")
    elif kind == "citations_delta" and isinstance(delta.get("citation"), dict):  # a web search's sources
        block.setdefault("citations", []).append(delta["citation"])

"""The Messages API's stream, put back together into the body a non-streaming request returns, so
one decoder reads both. Text is handed on as it arrives."""

from __future__ import annotations

from typing import Any, Callable, Iterable

from agent.model.wire import provider_json


class BrokenStream(Exception):
    """The stream ended before the reply did (a retryable failure)."""


MAX_BLOCKS = 10_000  # content blocks of one reply: an index past it is read as the stream's default


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
            message = dict(_mapping(event.get("message")))
        elif kind == "content_block_start":
            blocks[stream_index(event.get("index"), len(blocks))] = dict(_mapping(event.get("content_block")))
        elif kind == "content_block_delta":
            index = stream_index(event.get("index"), 0)
            _apply(blocks.setdefault(index, {}), _mapping(event.get("delta")), index, partial_json, on_text)
        elif kind == "content_block_stop":
            index = stream_index(event.get("index"), 0)
            if index in partial_json and index in blocks:
                text = partial_json.pop(index)
                try:
                    blocks[index]["input"] = provider_json.load(text or "{}", "a tool input in the provider's stream")
                except ValueError:
                    blocks[index]["input"] = text  # decoded as a call with arguments that are not JSON
        elif kind == "message_delta" and message is not None:
            message.update({k: v for k, v in _mapping(event.get("delta")).items() if v is not None})
            message["usage"] = {**_mapping(message.get("usage")), **_mapping(event.get("usage"))}
        elif kind == "message_stop" and message is not None:
            message["content"] = [blocks[index] for index in sorted(blocks)]
            return message
    raise BrokenStream("the stream ended before the reply did")


def stream_index(value: Any, default: int) -> int:
    """A stream event's block index as a small whole number; `default` for anything else (a
    provider or proxy that sends a list, a text or a huge number never breaks the assembly)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < MAX_BLOCKS else default


def text_of(value: Any) -> str:
    """A piece of streamed text: `value` when it is one, else nothing."""
    return value if isinstance(value, str) else ""


def _mapping(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _apply(block: dict, delta: dict, index: int, partial_json: dict[int, str], on_text: Callable[[str], None]) -> None:
    kind = delta.get("type")
    if kind == "text_delta":
        block["text"] = text_of(block.get("text")) + text_of(delta.get("text"))
        if text_of(delta.get("text")):
            on_text(delta["text"])
    elif kind == "input_json_delta":
        partial_json[index] = partial_json.get(index, "") + text_of(delta.get("partial_json"))
    elif kind == "thinking_delta":
        block["thinking"] = text_of(block.get("thinking")) + text_of(delta.get("thinking"))
    elif kind == "signature_delta":
        block["signature"] = text_of(block.get("signature")) + text_of(delta.get("signature"))
    elif kind == "citations_delta" and isinstance(delta.get("citation"), dict):  # a web search's sources
        block.setdefault("citations", []).append(delta["citation"])

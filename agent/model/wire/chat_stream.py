"""The chat-completions stream, put back together into the body a non-streaming request returns,
so one decoder reads both. Text is handed on as it arrives."""

from __future__ import annotations

from typing import Any, Callable, Iterable

from agent.model.wire import provider_json
from agent.model.wire.messages_stream import BrokenStream, stream_index, text_of


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


def assemble(events: Iterable[tuple[str, str]], on_text: Callable[[str], None]) -> dict[str, Any]:
    """The completion the chunks describe (an error body when a chunk carries an error); raises
    BrokenStream when the stream stops before a choice has finished."""
    body: dict[str, Any] = {"object": "chat.completion"}
    message: dict[str, Any] = {"role": "assistant", "content": None}
    calls: dict[int, dict[str, Any]] = {}
    details: dict[Any, dict[str, Any]] = {}
    finished = None
    for _, data in events:
        if data.strip() == "[DONE]":
            break
        try:
            chunk = provider_json.load(data, "a chunk of the provider's stream")
        except ValueError:
            continue
        if not isinstance(chunk, dict):
            continue
        if chunk.get("error"):
            return chunk
        for key in ("id", "model", "created", "provider"):
            if key in chunk:
                body[key] = chunk[key]
        if isinstance(chunk.get("usage"), dict):
            body["usage"] = chunk["usage"]
        choices = chunk.get("choices") if isinstance(chunk.get("choices"), list) else []
        choice = choices[0] if choices and isinstance(choices[0], dict) else {}
        delta = choice.get("delta")
        _apply(message, calls, details, delta if isinstance(delta, dict) else {}, on_text)
        if choice.get("finish_reason"):
            finished = {k: choice[k] for k in ("finish_reason", "native_finish_reason", "error") if choice.get(k)}
    if finished is None:
        raise BrokenStream("the stream ended before the reply did")
    if calls:
        message["tool_calls"] = [calls[index] for index in sorted(calls)]
    if details:
        message["reasoning_details"] = list(details.values())
    body["choices"] = [{"index": 0, **finished, "message": message}]
    return body


def _apply(message: dict, calls: dict[int, dict], details: dict, delta: dict, on_text: Callable[[str], None]) -> None:
    if isinstance(delta.get("content"), str) and delta["content"]:
        message["content"] = (message["content"] or "") + delta["content"]
        on_text(delta["content"])
    for key in ("reasoning", "refusal"):
        if isinstance(delta.get(key), str) and delta[key]:
            message[key] = (message.get(key) or "") + delta[key]
    if isinstance(delta.get("annotations"), list):  # a web search's url citations, in one chunk or several
        message.setdefault("annotations", []).extend(delta["annotations"])
    for part in _list(delta.get("tool_calls")):
        if not isinstance(part, dict):
            continue
        call = calls.setdefault(stream_index(part.get("index"), len(calls)),
                                {"id": "", "type": "function", "function": {"name": "", "arguments": ""}})
        call["id"] = text_of(part.get("id")) or call["id"]
        function = part.get("function") if isinstance(part.get("function"), dict) else {}
        call["function"]["name"] += text_of(function.get("name"))
        call["function"]["arguments"] += text_of(function.get("arguments"))
    for detail in _list(delta.get("reasoning_details")):
        if not isinstance(detail, dict):
            continue
        merged = details.setdefault(stream_index(detail.get("index"), len(details)), {})
        for key, value in detail.items():  # pieces of one detail arrive in order: text grows
            if key in ("text", "summary", "data") and isinstance(value, str):
                merged[key] = merged.get(key, "") + value
            elif value is not None:
                merged[key] = value

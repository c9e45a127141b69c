"""OpenAI-compatible chat completions (OpenRouter)."""

from __future__ import annotations

import json
from typing import Any

from agent.conversation import Reply, Stop, ToolCall, Usage, settle_stop, token_count
from agent.errors import ProviderError
from agent.model.wire import chat_stream
from agent.model.wire.messages import web_searches
from agent.model.wire.options import NO_OPTIONS, RequestOptions, WebSearch
from agent.model.wire.provider_json import NOT_FINITE, has_non_finite
from agent.workspace import InputLimitError, load_json

assemble = chat_stream.assemble  # this format's stream, put back together for decode
PATH = "chat/completions"
EPHEMERAL = {"type": "ephemeral"}
REASONING = "reasoning_details"  # the internal block that carries OpenRouter's reasoning_details
CITATIONS = "url_citations"  # the internal block that carries a reply's url_citation annotations

FINISH_REASONS = {
    "stop": Stop.END,
    "tool_calls": Stop.TOOL_USE,
    "function_call": Stop.TOOL_USE,
    "length": Stop.MAX_TOKENS,
    "content_filter": Stop.REFUSAL,
}
# OpenRouter folds these Anthropic reasons into `stop` or `length`; its native_finish_reason keeps them.
NATIVE_FINISH_REASONS = {
    "refusal": Stop.REFUSAL,
    "pause_turn": Stop.PAUSE,
    "model_context_window_exceeded": Stop.CONTEXT_EXCEEDED,
}


def encode(system: str, messages: list[dict], tools: list[dict], model: str, max_tokens: int,
           options: RequestOptions = NO_OPTIONS, stream: bool = False) -> dict:
    """The chat-completions request body for the internal conversation. `options` may turn
    reasoning on and set its effort (OpenRouter's `reasoning` parameter, see `_reasoning`); `stream`
    asks for chunks, usage included.

    Stable parts come first and the growing conversation last, so each request's bytes are a
    prefix of the next one's. For Anthropic models (through OpenRouter) the system prompt carries a
    cache breakpoint and a top-level one lets the provider mark the latest message, so every turn
    reuses the cached prefix without changing the shape of the messages."""
    cached = model.startswith("anthropic/") and options.cached
    body: dict[str, Any] = {"model": model, "max_tokens": max_tokens}
    if reasoning := _reasoning(options):
        body["reasoning"] = reasoning
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if options.web_search:
        body["plugins"] = [web_plugin(options.web_search)]
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
    if stream:
        body["stream"] = True
        body["stream_options"] = {"include_usage": True}
    return body


def web_plugin(search: WebSearch) -> dict[str, Any]:
    """OpenRouter's web plugin, which searches once for the request (what Claude Code's WebSearch
    asks of its own request), with the domain lists only when given."""
    plugin: dict[str, Any] = {"id": "web"}
    if search.allowed_domains:
        plugin["include_domains"] = list(search.allowed_domains)
    if search.blocked_domains:
        plugin["exclude_domains"] = list(search.blocked_domains)
    return plugin


def _reasoning(options: RequestOptions) -> dict[str, Any]:
    """OpenRouter's `reasoning` for `options`: a budget as `max_tokens` (OpenRouter takes a budget
    or an effort, not both: the budget wins), adaptive thinking as `enabled` (OpenRouter then lets
    the model decide, at the effort given), an effort alone as `effort` ({} for none of these)."""
    if options.thinking == "enabled":
        return {"max_tokens": options.budget}
    effort = {"effort": options.requested_effort} if options.requested_effort else {}
    return {"enabled": True, **effort} if options.thinking == "adaptive" else effort


def request_headers(headers: dict[str, str], payload: dict, betas: tuple[str, ...] = ()) -> dict[str, str]:
    """The headers of a request: the provider's (OpenRouter has no beta headers)."""
    return headers


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
        for block in content:  # sent back unchanged: some models refuse a turn without its reasoning
            if block["type"] == REASONING:
                encoded["reasoning_details"] = block["reasoning_details"]
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
    if choice.get("finish_reason") == "error" or isinstance(choice.get("error"), dict):
        raise ProviderError(f"the provider ended the reply with an error: {error_text(choice)}")
    message = choice.get("message")
    if not isinstance(message, dict):
        raise ProviderError("the provider's reply has no message")
    raw_calls = message.get("tool_calls") or []
    if not isinstance(raw_calls, list) or not all(isinstance(raw, dict) for raw in raw_calls):
        raise ProviderError("the provider's reply has malformed tool_calls")
    calls = [_decode_call(raw, index) for index, raw in enumerate(raw_calls)]
    text = _text_of(message.get("content"))
    refusal = message.get("refusal")
    finish, native = (value if isinstance(value, str) else None for value in (choice.get("finish_reason"), choice.get("native_finish_reason")))
    stop = NATIVE_FINISH_REASONS.get(native) or FINISH_REASONS.get(finish)
    if isinstance(refusal, str) and refusal:  # OpenAI says `stop` for a refusal it explains here
        stop, text = Stop.REFUSAL, text or refusal
    details = message.get("reasoning_details")
    reply = Reply(
        text=text,
        tool_calls=calls,
        usage=_usage(body.get("usage")),
        stop_reason=settle_stop(stop, bool(calls)),
        thinking=_reasoning_text(message, details),
        provider_stop_reason=finish,
    )
    if isinstance(details, list) and details:
        reply.blocks.insert(0, {"type": REASONING, "reasoning_details": details})
    if citations := url_citations(message.get("annotations")):  # a web search's sources (never sent back)
        reply.blocks.append({"type": CITATIONS, "citations": citations})
    return reply


def url_citations(annotations: Any) -> list[dict[str, str]]:
    """The title and url of each `url_citation` annotation of a reply (OpenRouter's web search
    results), each url once, in order."""
    found: dict[str, dict[str, str]] = {}
    for annotation in annotations if isinstance(annotations, list) else []:
        cited = annotation.get("url_citation") if isinstance(annotation, dict) else None
        if isinstance(cited, dict) and annotation.get("type") == "url_citation" and isinstance(cited.get("url"), str):
            title = cited.get("title")
            found.setdefault(cited["url"], {"title": title if isinstance(title, str) else "", "url": cited["url"]})
    return list(found.values())


def _reasoning_text(message: dict, details: Any) -> str:
    """The readable reasoning: OpenRouter's `reasoning` (or llama.cpp's and DeepSeek's
    `reasoning_content`), else the text and summaries in `reasoning_details`."""
    for key in ("reasoning", "reasoning_content"):
        if isinstance(message.get(key), str) and message[key]:
            return message[key]
    parts = []
    for detail in details if isinstance(details, list) else []:
        if isinstance(detail, dict):
            part = detail.get("text") or detail.get("summary")
            parts.append(part if isinstance(part, str) else "[encrypted reasoning]")
    return "\n\n".join(parts)


def _usage(raw: Any) -> Usage:
    # prompt_tokens counts the whole prompt; OpenRouter says in prompt_tokens_details how much of it
    # was read from or written to the cache
    raw = raw if isinstance(raw, dict) else {}
    details = raw.get("prompt_tokens_details") if isinstance(raw.get("prompt_tokens_details"), dict) else {}
    read, written = token_count(details.get("cached_tokens")), token_count(details.get("cache_write_tokens"))
    completion = raw.get("completion_tokens_details") if isinstance(raw.get("completion_tokens_details"), dict) else {}
    return Usage(
        input_tokens=max(0, token_count(raw.get("prompt_tokens")) - read - written),
        output_tokens=token_count(raw.get("completion_tokens")),
        requests=1,
        cache_read_tokens=read,
        cache_write_tokens=written,
        reasoning_tokens=token_count(completion.get("reasoning_tokens")),
        web_search_requests=web_searches(raw),
    )


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
    if isinstance(text, dict):  # some providers send the object itself (already depth-limited with the body)
        decoded = text
    else:
        try:
            decoded = load_json(text, "the tool input")
        except InputLimitError as exc:
            call.arguments_error = f"{exc}; send a flatter JSON object"
            return call
        except (TypeError, ValueError) as exc:
            call.arguments_error = f"the arguments are not valid JSON ({exc}); send a JSON object"
            return call
    if not isinstance(decoded, dict):
        call.arguments_error = "the arguments must be a JSON object"
    elif has_non_finite(decoded):  # refused before anything runs; `{}` goes back in its place
        call.arguments_error = NOT_FINITE
    else:
        call.arguments = decoded
    return call


def error_text(body: Any) -> str:
    """The provider's own error message from an error body (or from an error OpenRouter put in
    the first choice)."""
    if isinstance(body, dict):
        choices = body.get("choices")
        if not body.get("error") and isinstance(choices, list) and choices and isinstance(choices[0], dict):
            body = choices[0]
        error = body.get("error")
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
        if isinstance(error, str):
            return error
    return json.dumps(body)[:300]

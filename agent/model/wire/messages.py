"""The Anthropic Messages API."""

from __future__ import annotations

import json
from typing import Any

from agent.conversation import Reply, Stop, ToolCall, Usage, settle_stop, token_count, text_block, tool_use_block
from agent.errors import ProviderError
from agent.model.wire import messages_stream
from agent.model.wire.options import NO_OPTIONS, RequestOptions, WebSearch
from agent.model.wire.provider_json import NOT_FINITE, has_non_finite

assemble = messages_stream.assemble  # this format's stream, put back together for decode
PATH = "v1/messages"
EPHEMERAL = {"type": "ephemeral"}
EFFORT_BETA = "effort-2025-11-24"  # what the API needs to read output_config.effort
TASK_BUDGET_BETA = "task-budgets-2026-03-13"  # and output_config.task_budget
WEB_SEARCH_TYPE = "web_search_20250305"  # the server tool's version Claude Code 2.1.332 declares
WEB_SEARCH_NAME = "web_search"

STOP_REASONS = {
    "end_turn": Stop.END,
    "stop_sequence": Stop.END,
    "tool_use": Stop.TOOL_USE,
    "max_tokens": Stop.MAX_TOKENS,
    "refusal": Stop.REFUSAL,
    "pause_turn": Stop.PAUSE,
    "model_context_window_exceeded": Stop.CONTEXT_EXCEEDED,
}


def encode(system: str, messages: list[dict], tools: list[dict], model: str, max_tokens: int,
           options: RequestOptions = NO_OPTIONS, stream: bool = False) -> dict:
    """The Messages API request body; the internal conversation is already in this shape, thinking
    blocks included. `options` may turn thinking on (a budget, or adaptive) and set the effort and
    the task budget (`output_config`); `stream` asks for events.

    Prompt caching: breakpoints on the last tool and on the system prompt, and a top-level one that
    the API places on the latest message, so a multi-turn run (and every subagent sharing tools)
    reuses the cache. Stable parts come first and the conversation last, so each request's bytes
    are a prefix of the next one's."""
    body: dict[str, Any] = {"model": model, "max_tokens": max_tokens}
    if options.cached:
        body["cache_control"] = EPHEMERAL
    if options.thinking:
        thinking: dict[str, Any] = {"type": options.thinking}
        if options.thinking == "enabled":
            thinking["budget_tokens"] = options.budget
        if options.display:
            thinking["display"] = options.display
        body["thinking"] = thinking
    output_config: dict[str, Any] = {}
    if options.effort:
        output_config["effort"] = options.effort
    if options.task_budget:
        output_config["task_budget"] = {"type": "tokens", "total": options.task_budget}
    if output_config:
        body["output_config"] = output_config
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if tools:
        body["tools"] = [
            {"name": t["name"], "description": t["description"], "input_schema": t["parameters"]} for t in tools
        ]
        if options.cached:
            body["tools"][-1]["cache_control"] = EPHEMERAL
    if options.web_search:  # the server tool, and the search forced, as Claude Code's WebSearch asks
        body["tools"] = [*body.get("tools", []), web_search_tool(options.web_search)]
        body["tool_choice"] = {"type": "tool", "name": WEB_SEARCH_NAME}
    if system:
        body["system"] = [{"type": "text", "text": system, **({"cache_control": EPHEMERAL} if options.cached else {})}]
    body["messages"] = messages
    if stream:
        body["stream"] = True
    return body


def web_search_tool(search: WebSearch) -> dict[str, Any]:
    """Anthropic's web search server tool as Claude Code 2.1.332 declares it: its domain lists only
    when given (the API takes one or the other), then max_uses."""
    tool: dict[str, Any] = {"type": WEB_SEARCH_TYPE, "name": WEB_SEARCH_NAME}
    if search.allowed_domains:
        tool["allowed_domains"] = list(search.allowed_domains)
    if search.blocked_domains:
        tool["blocked_domains"] = list(search.blocked_domains)
    tool["max_uses"] = search.max_uses
    return tool


def request_headers(headers: dict[str, str], payload: dict, betas: tuple[str, ...] = ()) -> dict[str, str]:
    """The headers of a request with `payload`: the provider's, plus an `anthropic-beta` header
    naming `betas` and the betas the payload's output_config needs (the headers unchanged when
    there are none)."""
    config = payload.get("output_config") or {}
    needed = [*betas, *([EFFORT_BETA] if "effort" in config else []),
              *([TASK_BUDGET_BETA] if "task_budget" in config else [])]
    return {**headers, "anthropic-beta": ",".join(dict.fromkeys(needed))} if needed else headers


def decode(body: Any) -> Reply:
    """The reply in a Messages API response body; a body that carries an error raises ProviderError."""
    if not isinstance(body, dict):
        raise ProviderError("the provider's reply is not a JSON object")
    if body.get("type") == "error" or body.get("error"):
        raise ProviderError(f"the provider reported an error: {error_text(body)}")
    content = body.get("content")
    if not isinstance(content, list):
        raise ProviderError("the provider's reply has no content blocks")
    texts: list[str] = []
    calls: list[ToolCall] = []
    blocks: list[dict[str, Any]] = []
    thinking: list[str] = []
    for index, block in enumerate(content):
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            text = str(block.get("text") or "")
            texts.append(text)
            if text:  # the API rejects an empty text block sent back
                blocks.append(text_block(text))
        elif kind == "tool_use":
            call = _decode_call(block, index)
            calls.append(call)
            blocks.append(tool_use_block(call))
        else:
            # thinking and redacted_thinking go back exactly as they came (their signature covers
            # them), and so does anything newer: a paused turn must be sent back as it is
            blocks.append(block)
            if kind == "thinking":
                thinking.append(str(block.get("thinking") or ""))
            elif kind == "redacted_thinking":
                thinking.append("[redacted thinking]")
    raw_stop = body.get("stop_reason") if isinstance(body.get("stop_reason"), str) else None
    stop = settle_stop(STOP_REASONS.get(raw_stop), bool(calls))
    text = "".join(texts)
    if stop == Stop.REFUSAL and not text:
        text = _refusal_explanation(body)
    usage = body.get("usage") if isinstance(body.get("usage"), dict) else {}
    return Reply(
        text=text,
        tool_calls=calls,
        usage=Usage(
            input_tokens=token_count(usage.get("input_tokens")),
            output_tokens=token_count(usage.get("output_tokens")),
            requests=1,
            cache_read_tokens=token_count(usage.get("cache_read_input_tokens")),
            cache_write_tokens=token_count(usage.get("cache_creation_input_tokens")),
            web_search_requests=web_searches(usage),
        ),
        stop_reason=stop,
        blocks=blocks,
        thinking="\n\n".join(part for part in thinking if part),
        provider_stop_reason=raw_stop,
    )


def web_searches(usage: dict) -> int:
    """How many searches the provider's web search ran for a reply (`usage.server_tool_use`)."""
    server = usage.get("server_tool_use")
    return token_count(server.get("web_search_requests")) if isinstance(server, dict) else 0


def _decode_call(block: dict, index: int) -> ToolCall:
    arguments = block.get("input")
    call = ToolCall(
        id=str(block.get("id") or f"toolu_{index}"),
        name=str(block.get("name") or ""),
        arguments=arguments if isinstance(arguments, dict) else {},
    )
    if not isinstance(arguments, dict):
        call.arguments_error = "the input must be a JSON object"
    elif has_non_finite(arguments):  # refused before anything runs; `{}` goes back in its place
        call.arguments, call.arguments_error = {}, NOT_FINITE
    return call


def _refusal_explanation(body: dict) -> str:
    """The API's own explanation of a refusal that came without text (`stop_details`)."""
    details = body.get("stop_details")
    explanation = details.get("explanation") if isinstance(details, dict) else None
    return explanation if isinstance(explanation, str) else ""


def error_text(body: Any) -> str:
    """The provider's own error message from an error body."""
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
    return json.dumps(body)[:300]

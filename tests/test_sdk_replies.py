"""Reply decoding on bodies built with the official SDKs' own response models (`anthropic.types.Message`,
`openai.types.chat.ChatCompletion`): text, tool use, thinking, every stop reason either SDK names,
usage with cache fields, an OpenAI refusal and OpenRouter's reasoning_details. Each body is tried
as the SDK dumps it in full (nulls included) and with only the fields set, since providers differ.
Where a reply goes back to the provider, the request is checked against the SDK's request type."""

from __future__ import annotations

import typing

import pytest
from anthropic import types as anthropic_types
from openai.types import completion_usage
from openai.types.chat import ChatCompletion, ChatCompletionMessage, chat_completion
from openai.types.chat.chat_completion_message_function_tool_call import ChatCompletionMessageFunctionToolCall, Function

from agent.conversation import Stop, tool_result, user_message
from agent.model.wire import chat, messages
from agent.model.wire.options import RequestOptions
from sdk_types import problems

DUMPS = {"full": {}, "set fields only": {"exclude_unset": True}}

THINKING = anthropic_types.ThinkingBlock(type="thinking", thinking="Read it first.", signature="EqQBCkgIARABGAIiQL")
REDACTED = anthropic_types.RedactedThinkingBlock(type="redacted_thinking", data="EmwKAhgBEgy3va3pzix")
TEXT = anthropic_types.TextBlock(type="text", text="Let me look.")
TOOL_USE = anthropic_types.ToolUseBlock(type="tool_use", id="toolu_01A", name="Read", input={"file_path": "a.txt"})


def message_body(content: list, stop_reason: str | None, dump: str, **fields) -> dict:
    usage = fields.pop("usage", anthropic_types.Usage(input_tokens=20, output_tokens=7))
    message = anthropic_types.Message(
        id="msg_01", type="message", role="assistant", model="claude-haiku-4-5", content=content,
        stop_reason=stop_reason, stop_sequence=None, usage=usage, **fields,
    )
    return message.model_dump(mode="json", **DUMPS[dump])


def completion_body(message: ChatCompletionMessage, finish_reason: str, dump: str, usage=None, **choice_fields) -> dict:
    choice = chat_completion.Choice(index=0, finish_reason=finish_reason, message=message, **choice_fields)
    completion = ChatCompletion(
        id="gen-1", object="chat.completion", created=1_700_000_000, model="anthropic/claude-haiku-4.5",
        choices=[choice], usage=usage or completion_usage.CompletionUsage(prompt_tokens=20, completion_tokens=7, total_tokens=27),
    )
    return completion.model_dump(mode="json", **DUMPS[dump])


def sent_back(wire, reply) -> dict:
    """The next request after `reply`, its tool calls answered."""
    results = [tool_result(call.id, "contents") for call in reply.tool_calls]
    conversation = [user_message("go"), reply.as_message()] + ([{"role": "user", "content": results}] if results else [])
    return wire.encode("sys", conversation, [], "claude-haiku-4-5", 4096, RequestOptions(thinking="enabled", budget=2048))


dumps = pytest.mark.parametrize("dump", DUMPS)


# --- Anthropic Messages ---------------------------------------------------------------------------

def test_every_anthropic_stop_reason_is_mapped():
    assert set(typing.get_args(anthropic_types.StopReason)) == set(messages.STOP_REASONS)


@dumps
@pytest.mark.parametrize("stop_reason, expected", [
    ("end_turn", Stop.END), ("stop_sequence", Stop.END), ("max_tokens", Stop.MAX_TOKENS), ("refusal", Stop.REFUSAL),
    ("pause_turn", Stop.PAUSE), ("model_context_window_exceeded", Stop.CONTEXT_EXCEEDED), (None, Stop.END),
])
def test_anthropic_text_reply_with_each_stop_reason(dump, stop_reason, expected):
    reply = messages.decode(message_body([TEXT], stop_reason, dump))
    assert (reply.text, reply.stop_reason, reply.tool_calls) == ("Let me look.", expected, [])


@dumps
def test_anthropic_tool_use_reply(dump):
    reply = messages.decode(message_body([TEXT, TOOL_USE], "tool_use", dump))
    assert reply.stop_reason == Stop.TOOL_USE
    assert [(c.id, c.name, c.arguments) for c in reply.tool_calls] == [("toolu_01A", "Read", {"file_path": "a.txt"})]
    assert problems(sent_back(messages, reply), "messages") == []


@dumps
def test_anthropic_thinking_goes_back_exactly_in_its_place(dump):
    body = message_body([THINKING, REDACTED, TEXT, TOOL_USE], "tool_use", dump)
    reply = messages.decode(body)
    assert reply.text == "Let me look." and reply.thinking == "Read it first.\n\n[redacted thinking]"
    request = sent_back(messages, reply)
    assert request["messages"][1]["content"][:2] == body["content"][:2]  # signature and data intact
    assert [b["type"] for b in request["messages"][1]["content"]] == ["thinking", "redacted_thinking", "text", "tool_use"]
    assert problems(request, "messages") == []


@dumps
def test_anthropic_interleaved_thinking_keeps_its_order(dump):
    second = anthropic_types.ThinkingBlock(type="thinking", thinking="Now the call.", signature="Eq2")
    reply = messages.decode(message_body([THINKING, TEXT, second, TOOL_USE], "tool_use", dump))
    assert [b.get("thinking") or b["type"] for b in reply.blocks] == ["Read it first.", "text", "Now the call.", "tool_use"]


@dumps
def test_anthropic_usage_with_cache_fields(dump):
    usage = anthropic_types.Usage(
        input_tokens=50, output_tokens=9, cache_creation_input_tokens=150, cache_read_input_tokens=800,
        cache_creation=anthropic_types.CacheCreation(ephemeral_5m_input_tokens=150, ephemeral_1h_input_tokens=0),
    )
    reply = messages.decode(message_body([TEXT], "end_turn", dump, usage=usage))
    assert reply.usage.as_dict() == {
        "input_tokens": 50, "output_tokens": 9, "cache_creation_input_tokens": 150, "cache_read_input_tokens": 800,
    }


@dumps
def test_anthropic_refusal_without_text_shows_the_explanation(dump):
    details = anthropic_types.RefusalStopDetails(type="refusal", category="cyber", explanation="This could enable malware.")
    reply = messages.decode(message_body([], "refusal", dump, stop_details=details))
    assert (reply.stop_reason, reply.text) == (Stop.REFUSAL, "This could enable malware.")


# --- OpenAI chat completions (OpenRouter) ----------------------------------------------------------

def test_every_openai_finish_reason_is_mapped():
    finish_reasons = typing.get_args(chat_completion.Choice.model_fields["finish_reason"].annotation)
    assert set(finish_reasons) == set(chat.FINISH_REASONS)


@dumps
@pytest.mark.parametrize("finish_reason, expected", [
    ("stop", Stop.END), ("length", Stop.MAX_TOKENS), ("content_filter", Stop.REFUSAL),
])
def test_openai_text_reply_with_each_finish_reason(dump, finish_reason, expected):
    message = ChatCompletionMessage(role="assistant", content="Let me look.")
    reply = chat.decode(completion_body(message, finish_reason, dump))
    assert (reply.text, reply.stop_reason) == ("Let me look.", expected)


@dumps
@pytest.mark.parametrize("finish_reason", ["tool_calls", "function_call", "stop"])
def test_openai_tool_calls_reply(dump, finish_reason):
    call = ChatCompletionMessageFunctionToolCall(id="call_1", type="function", function=Function(name="Read", arguments='{"file_path": "a.txt"}'))
    message = ChatCompletionMessage(role="assistant", content=None, tool_calls=[call])
    reply = chat.decode(completion_body(message, finish_reason, dump))
    assert reply.stop_reason == Stop.TOOL_USE  # a server that says "stop" beside calls still wants them run
    assert [(c.id, c.name, c.arguments) for c in reply.tool_calls] == [("call_1", "Read", {"file_path": "a.txt"})]
    assert problems(sent_back(chat, reply), "chat") == []


@dumps
def test_openai_refusal_is_shown_whatever_the_finish_reason(dump):
    message = ChatCompletionMessage(role="assistant", content=None, refusal="I can't help with that.")
    reply = chat.decode(completion_body(message, "stop", dump))
    assert (reply.stop_reason, reply.text) == (Stop.REFUSAL, "I can't help with that.")


@dumps
def test_openrouter_native_finish_reason_keeps_what_finish_reason_folds(dump):
    message = ChatCompletionMessage(role="assistant", content="Searching")
    reply = chat.decode(completion_body(message, "stop", dump, native_finish_reason="pause_turn"))
    assert reply.stop_reason == Stop.PAUSE
    reply = chat.decode(completion_body(message, "length", dump, native_finish_reason="model_context_window_exceeded"))
    assert reply.stop_reason == Stop.CONTEXT_EXCEEDED


@dumps
def test_openrouter_reasoning_details_go_back_unchanged(dump):
    details = [
        {"type": "reasoning.text", "text": "Read it first.", "signature": "EqQB", "format": "anthropic-claude-v1", "index": 0},
        {"type": "reasoning.encrypted", "data": "gAAAAB", "id": "rs_1", "format": "openai-responses-v1", "index": 1},
    ]
    call = ChatCompletionMessageFunctionToolCall(id="call_1", type="function", function=Function(name="Read", arguments="{}"))
    message = ChatCompletionMessage(role="assistant", content=None, tool_calls=[call], reasoning="Read it first.", reasoning_details=details)
    reply = chat.decode(completion_body(message, "tool_calls", dump))
    assert reply.thinking == "Read it first."
    request = sent_back(chat, reply)
    assert request["messages"][2]["reasoning_details"] == details
    assert request["reasoning"] == {"max_tokens": 2048}
    assert problems(request, "chat") == []


@dumps
def test_openai_usage_with_cache_and_reasoning_tokens(dump):
    usage = completion_usage.CompletionUsage(
        prompt_tokens=1000, completion_tokens=70, total_tokens=1070,
        prompt_tokens_details=completion_usage.PromptTokensDetails(cached_tokens=800, cache_write_tokens=150),
        completion_tokens_details=completion_usage.CompletionTokensDetails(reasoning_tokens=60),
    )
    reply = chat.decode(completion_body(ChatCompletionMessage(role="assistant", content="4"), "stop", dump, usage=usage))
    assert (reply.usage.input_tokens, reply.usage.cache_read_tokens, reply.usage.cache_write_tokens) == (50, 800, 150)
    assert (reply.usage.output_tokens, reply.usage.reasoning_tokens) == (70, 60)

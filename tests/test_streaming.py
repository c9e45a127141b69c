"""Streamed replies: both providers' event streams, built with the official SDKs' own event models,
put back together and decoded exactly as the same reply sent whole; a stream that breaks off is
retried; and, end to end on both wires, `--include-partial-messages` prints each piece of text."""

from __future__ import annotations

import json

import pytest
from anthropic import types as anthropic_types
from openai.types import completion_usage
from openai.types.chat import ChatCompletion, ChatCompletionChunk, ChatCompletionMessage, chat_completion
from openai.types.chat import chat_completion_chunk as chunk_types

from agent.model import sse
from agent.model.wire import chat, messages
from agent.model.wire.messages_stream import BrokenStream
from scripted_model import broken, call, text


def sse_text(events: list[tuple[str | None, dict | str]]) -> list[str]:
    """The lines of a stream carrying `events`, with a keep-alive comment, as providers send them."""
    lines = [": keep-alive", ""]
    for name, data in events:
        if name:
            lines.append(f"event: {name}")
        lines += [f"data: {data if isinstance(data, str) else json.dumps(data)}", ""]
    return lines


def dump(model) -> dict:
    return model.model_dump(mode="json", exclude_unset=True)


MESSAGE = anthropic_types.Message(
    id="msg_9", type="message", role="assistant", model="claude-haiku-4-5", stop_reason="tool_use", stop_sequence=None,
    usage=anthropic_types.Usage(input_tokens=30, output_tokens=12, cache_read_input_tokens=5),
    content=[
        anthropic_types.ThinkingBlock(type="thinking", thinking="Look first.", signature="sig-1"),
        anthropic_types.TextBlock(type="text", text="Reading the file now."),
        anthropic_types.ToolUseBlock(type="tool_use", id="toolu_9", name="Read", input={"file_path": "a.txt"}),
    ],
)


def anthropic_events(message: anthropic_types.Message) -> list[tuple[str, dict]]:
    start = message.model_copy(update={"content": [], "stop_reason": None,
                                       "usage": anthropic_types.Usage(input_tokens=30, output_tokens=1, cache_read_input_tokens=5)})
    events = [anthropic_types.RawMessageStartEvent(type="message_start", message=start)]
    for index, block in enumerate(message.content):
        if block.type == "text":
            first = anthropic_types.TextBlock(type="text", text="")
            deltas = [anthropic_types.TextDelta(type="text_delta", text=block.text[:7]),
                      anthropic_types.TextDelta(type="text_delta", text=block.text[7:])]
        elif block.type == "thinking":
            first = anthropic_types.ThinkingBlock(type="thinking", thinking="", signature="")
            deltas = [anthropic_types.ThinkingDelta(type="thinking_delta", thinking=block.thinking),
                      anthropic_types.SignatureDelta(type="signature_delta", signature=block.signature)]
        else:
            first = block.model_copy(update={"input": {}})
            raw = json.dumps(block.input)
            deltas = [anthropic_types.InputJSONDelta(type="input_json_delta", partial_json=raw[:5]),
                      anthropic_types.InputJSONDelta(type="input_json_delta", partial_json=raw[5:])]
        events.append(anthropic_types.RawContentBlockStartEvent(type="content_block_start", index=index, content_block=first))
        events += [anthropic_types.RawContentBlockDeltaEvent(type="content_block_delta", index=index, delta=d) for d in deltas]
        events.append(anthropic_types.RawContentBlockStopEvent(type="content_block_stop", index=index))
    events.append(anthropic_types.RawMessageDeltaEvent(
        type="message_delta", delta={"stop_reason": message.stop_reason, "stop_sequence": None},
        usage=anthropic_types.MessageDeltaUsage(output_tokens=12)))
    events.append(anthropic_types.RawMessageStopEvent(type="message_stop"))
    return [(event.type, dump(event)) for event in events]


def test_an_anthropic_stream_decodes_as_the_whole_reply_would():
    pieces: list[str] = []
    body = messages.assemble(sse.events(sse_text(anthropic_events(MESSAGE))), pieces.append)
    streamed, whole = messages.decode(body), messages.decode(dump(MESSAGE))
    assert streamed.as_message() == whole.as_message()
    assert (streamed.stop_reason, streamed.usage) == (whole.stop_reason, whole.usage)
    assert pieces == ["Reading", " the file now."]


def test_an_anthropic_stream_that_stops_early_is_broken_and_an_error_event_is_an_error_body():
    events = anthropic_events(MESSAGE)
    with pytest.raises(BrokenStream):
        messages.assemble(sse.events(sse_text(events[:-2])), lambda _: None)
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    assert messages.assemble(sse.events(sse_text(events[:3] + [("error", error)])), lambda _: None) == error


COMPLETION = ChatCompletion(
    id="gen-9", object="chat.completion", created=1_700_000_000, model="anthropic/claude-haiku-4.5",
    usage=completion_usage.CompletionUsage(prompt_tokens=30, completion_tokens=12, total_tokens=42),
    choices=[chat_completion.Choice(index=0, finish_reason="tool_calls", message=ChatCompletionMessage(
        role="assistant", content="Reading the file now.", tool_calls=[
            {"id": "call_9", "type": "function", "function": {"name": "Read", "arguments": '{"file_path": "a.txt"}'}}]))],
)


def chat_chunks(completion: ChatCompletion) -> list[tuple[None, dict | str]]:
    def chunk(delta: dict, finish=None, usage=None) -> ChatCompletionChunk:
        choices = [] if usage else [chunk_types.Choice(index=0, delta=chunk_types.ChoiceDelta(**delta), finish_reason=finish)]
        return ChatCompletionChunk(id="gen-9", object="chat.completion.chunk", created=1_700_000_000,
                                   model=completion.model, choices=choices, usage=usage)

    call = completion.choices[0].message.tool_calls[0]
    chunks = [
        chunk({"role": "assistant", "content": ""}),
        chunk({"content": "Reading"}), chunk({"content": " the file now."}),
        chunk({"tool_calls": [{"index": 0, "id": call.id, "type": "function", "function": {"name": "Read", "arguments": ""}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": call.function.arguments[:6]}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": call.function.arguments[6:]}}]}),
        chunk({}, finish="tool_calls"),
        chunk({}, usage=completion.usage),
    ]
    return [(None, dump(c)) for c in chunks] + [(None, "[DONE]")]


def test_a_chat_stream_decodes_as_the_whole_reply_would():
    pieces: list[str] = []
    body = chat.assemble(sse.events(sse_text(chat_chunks(COMPLETION))), pieces.append)
    streamed, whole = chat.decode(body), chat.decode(dump(COMPLETION))
    assert streamed.as_message() == whole.as_message()
    assert (streamed.stop_reason, streamed.usage) == (whole.stop_reason, whole.usage)
    assert pieces == ["Reading", " the file now."]


def test_a_chat_stream_without_a_finish_is_broken_and_an_error_chunk_is_an_error_body():
    chunks = chat_chunks(COMPLETION)
    with pytest.raises(BrokenStream):
        chat.assemble(sse.events(sse_text(chunks[:4])), lambda _: None)
    error = {"error": {"code": 502, "message": "Upstream dropped"}}
    assert chat.assemble(sse.events(sse_text(chunks[:2] + [(None, error)])), lambda _: None) == error


def test_streaming_asks_for_it_in_each_wire():
    conversation = [{"role": "user", "content": "hi"}]
    assert messages.encode("", conversation, [], "m", 10, stream=True)["stream"] is True
    body = chat.encode("", conversation, [], "m", 10, stream=True)
    assert (body["stream"], body["stream_options"]) == (True, {"include_usage": True})
    assert "stream" not in chat.encode("", conversation, [], "m", 10)


# --- end to end ------------------------------------------------------------------------------------

def test_partial_messages_print_each_piece_of_text_as_it_streams(agent):
    agent.write("note.txt", "kumquat")
    agent.script(call("Read", "Let me read it.", file_path="note.txt"), text("It says kumquat, the small citrus fruit."))
    run = agent.run("Read note.txt.", "--output-format", "stream-json", "--verbose", "--include-partial-messages")
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    deltas = [line["event"]["delta"]["text"] for line in lines if line["type"] == "stream_event"]
    assert len(deltas) > 2 and "".join(deltas) == "Let me read it.It says kumquat, the small citrus fruit."
    kinds = [line["type"] for line in lines]
    assert kinds[0] == "system" and kinds[-1] == "result" and kinds.count("assistant") == 2
    assert kinds.index("stream_event") < kinds.index("assistant")  # the text streams before its message
    assert lines[-1]["result"] == "It says kumquat, the small citrus fruit."
    assert all(payload["stream"] is True for payload in run.payloads)
    for flags in (["--output-format", "stream-json", "--verbose"], []):  # the cassette's option applies
        replayed = agent.replay(*flags)
        assert replayed.exit_code == 0, replayed.stderr
        assert replayed.stdout.count('"stream_event"') == (len(deltas) if flags else 0)


def test_a_stream_that_breaks_off_is_retried(agent, monkeypatch):
    monkeypatch.setattr("agent.model.retry.sleep", lambda seconds: None)
    agent.script(broken(text("This answer will be cut off half way through.")), text("Second time lucky."))
    run = agent.run("Say something.", "--output-format", "stream-json", "--verbose", "--include-partial-messages")
    assert run.exit_code == 0
    assert json.loads(run.stdout.splitlines()[-1])["result"] == "Second time lucky."
    assert "retrying in" in run.stderr and "a broken stream" in run.stderr
    assert len(run.bodies) == 2

"""Unit tests for the two wire formats: the request bodies a provider receives and the replies the
agent loop sees, for OpenAI-compatible chat completions (OpenRouter) and the Anthropic Messages API."""

from __future__ import annotations

import json

import pytest

from agent.conversation import Reply, tool_result, user_message
from agent.errors import ProviderError
from agent.tools.execute import execute
from agent.tools.base import Tool, object_schema
from agent.model.wire import chat, messages

READ_SCHEMA = object_schema({"file_path": {"type": "string"}}, ["file_path"])
TOOLS = [
    {"name": "Read", "description": "Read a file.", "parameters": READ_SCHEMA},
    {"name": "Bash", "description": "Run a command.", "parameters": object_schema({"command": {"type": "string"}}, ["command"])},
]

ASSISTANT_WITH_CALLS = {
    "role": "assistant",
    "content": [
        {"type": "text", "text": "Let me look."},
        {"type": "tool_use", "id": "call_1", "name": "Read", "input": {"file_path": "a.txt"}},
        {"type": "tool_use", "id": "call_2", "name": "Bash", "input": {"command": "echo é"}},
    ],
}


def chat_body(message: dict, finish_reason: str = "stop", usage: dict | None = None) -> dict:
    body = {"id": "gen-1", "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}]}
    if usage is not None:
        body["usage"] = usage
    return body


def chat_call(call_id: str, name: str, arguments) -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


# --- chat.encode ------------------------------------------------------------------------------------

def test_chat_encode_system_first_and_plain_user_string():
    body = chat.encode("You are helpful.", [user_message("hi")], [], "openai/gpt-5", 8192)
    assert body["messages"] == [
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": "hi"},
    ]
    assert "cache_control" not in body  # other models cache on their own
    body = chat.encode("You are helpful.", [user_message("hi")], [], "anthropic/claude-haiku-4.5", 8192)
    assert body["messages"] == [
        {"role": "system", "content": [{"type": "text", "text": "You are helpful.", "cache_control": {"type": "ephemeral"}}]},
        {"role": "user", "content": "hi"},
    ]
    assert body["model"] == "anthropic/claude-haiku-4.5"
    assert body["max_tokens"] == 8192
    assert "tools" not in body


def test_chat_encode_no_system_message_when_system_empty():
    body = chat.encode("", [user_message("hi")], [], "m", 100)
    assert body["messages"] == [{"role": "user", "content": "hi"}]
    assert all(m["role"] != "system" for m in body["messages"])


def test_chat_encode_assistant_text_and_two_tool_calls():
    body = chat.encode("", [user_message("go"), ASSISTANT_WITH_CALLS], [], "m", 100)
    assert len(body["messages"]) == 2
    assistant = body["messages"][1]
    assert assistant["role"] == "assistant"
    assert assistant["content"] == "Let me look."
    calls = assistant["tool_calls"]
    assert [c["id"] for c in calls] == ["call_1", "call_2"]
    assert all(c["type"] == "function" for c in calls)
    assert [c["function"]["name"] for c in calls] == ["Read", "Bash"]
    for call in calls:
        assert isinstance(call["function"]["arguments"], str)
    assert json.loads(calls[0]["function"]["arguments"]) == {"file_path": "a.txt"}
    assert json.loads(calls[1]["function"]["arguments"]) == {"command": "echo é"}


def test_chat_encode_assistant_without_text_has_null_content():
    turn = {"role": "assistant", "content": [{"type": "tool_use", "id": "c", "name": "Read", "input": {"file_path": "x"}}]}
    assistant = chat.encode("", [turn], [], "m", 100)["messages"][0]
    assert "content" in assistant and assistant["content"] is None
    assert assistant["tool_calls"][0]["id"] == "c"


def test_chat_encode_assistant_text_only_has_no_tool_calls():
    turn = {"role": "assistant", "content": [{"type": "text", "text": "done"}]}
    assistant = chat.encode("", [turn], [], "m", 100)["messages"][0]
    assert assistant == {"role": "assistant", "content": "done"}


def test_chat_encode_tool_results_become_tool_messages_in_order():
    results = {
        "role": "user",
        "content": [
            tool_result("call_1", "file contents"),
            tool_result("call_2", "command not found", is_error=True),
        ],
    }
    body = chat.encode("", [user_message("go"), ASSISTANT_WITH_CALLS, results], [], "m", 100)
    tool_messages = body["messages"][2:]
    assert tool_messages == [
        {"role": "tool", "tool_call_id": "call_1", "content": "file contents"},
        {"role": "tool", "tool_call_id": "call_2", "content": "Error: command not found"},
    ]


def test_chat_encode_text_after_tool_results_becomes_user_message():
    results = {
        "role": "user",
        "content": [
            tool_result("call_1", "ok"),
            {"type": "text", "text": "Also, hurry."},
        ],
    }
    wire = chat.encode("", [results], [], "m", 100)["messages"]
    assert wire == [
        {"role": "tool", "tool_call_id": "call_1", "content": "ok"},
        {"role": "user", "content": "Also, hurry."},
    ]


def test_chat_encode_tools_as_functions():
    body = chat.encode("", [user_message("hi")], TOOLS, "m", 100)
    assert body["tools"] == [
        {"type": "function", "function": {"name": "Read", "description": "Read a file.", "parameters": READ_SCHEMA}},
        {
            "type": "function",
            "function": {"name": "Bash", "description": "Run a command.", "parameters": TOOLS[1]["parameters"]},
        },
    ]


def test_chat_encode_body_is_json_serialisable():
    body = chat.encode("sys", [user_message("hi"), ASSISTANT_WITH_CALLS], TOOLS, "m", 100)
    assert json.loads(json.dumps(body)) == body


# --- chat.decode ------------------------------------------------------------------------------------

def test_chat_decode_text_reply():
    reply = chat.decode(chat_body({"role": "assistant", "content": "Hello!"}))
    assert isinstance(reply, Reply)
    assert reply.text == "Hello!"
    assert reply.tool_calls == []
    assert reply.stop_reason == "end_turn"  # the internal vocabulary


def test_chat_decode_tool_calls_with_valid_json():
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            chat_call("call_a", "Read", '{"file_path": "a.txt"}'),
            chat_call("call_b", "Bash", '{"command": "ls -la"}'),
        ],
    }
    reply = chat.decode(chat_body(message, finish_reason="tool_calls"))
    assert reply.text == ""
    assert [(c.id, c.name, c.arguments) for c in reply.tool_calls] == [
        ("call_a", "Read", {"file_path": "a.txt"}),
        ("call_b", "Bash", {"command": "ls -la"}),
    ]
    assert all(c.arguments_error is None for c in reply.tool_calls)
    assert reply.stop_reason == "tool_use"


@pytest.mark.parametrize("arguments", ["", None])
def test_chat_decode_empty_arguments_are_empty_object(arguments):
    reply = chat.decode(chat_body({"content": "", "tool_calls": [chat_call("c1", "Glob", arguments)]}))
    call = reply.tool_calls[0]
    assert call.arguments == {}
    assert call.arguments_error is None


def test_chat_decode_invalid_json_arguments_sets_arguments_error():
    reply = chat.decode(chat_body({"content": "", "tool_calls": [chat_call("c1", "Read", '{"file_path": "a.txt"')]}))
    call = reply.tool_calls[0]
    assert call.id == "c1" and call.name == "Read"
    assert call.arguments_error
    assert "JSON" in call.arguments_error

    # What the model sees next: an error result for that call that mentions JSON.
    read = Tool("Read", "Read a file.", READ_SCHEMA, lambda args, ctx: "never run")
    result = execute(call, {"Read": read}, None)
    assert result["tool_use_id"] == "c1"
    assert result["is_error"] is True
    assert "JSON" in result["content"]


@pytest.mark.parametrize("arguments", ["[1, 2]", '"a string"', "42", "null"])
def test_chat_decode_non_object_arguments_sets_arguments_error(arguments):
    reply = chat.decode(chat_body({"content": "", "tool_calls": [chat_call("c1", "Read", arguments)]}))
    call = reply.tool_calls[0]
    assert call.arguments_error
    assert call.arguments == {}


def test_chat_decode_content_as_list_of_parts():
    message = {"role": "assistant", "content": [{"type": "text", "text": "Hello, "}, {"type": "text", "text": "world"}]}
    assert chat.decode(chat_body(message)).text == "Hello, world"


def test_chat_decode_usage_mapping():
    reply = chat.decode(chat_body({"content": "x"}, usage={"prompt_tokens": 120, "completion_tokens": 7, "total_tokens": 127}))
    assert reply.usage.input_tokens == 120
    assert reply.usage.output_tokens == 7
    assert reply.usage.requests == 1
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (120, 7)


def test_chat_decode_missing_usage_is_zero():
    reply = chat.decode(chat_body({"content": "x"}))
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (0, 0)


def test_chat_decode_error_body_with_http_200_raises_provider_message():
    body = {"error": {"code": 429, "message": "Rate limit exceeded: free-models-per-day"}}
    with pytest.raises(ProviderError, match="Rate limit exceeded: free-models-per-day"):
        chat.decode(body)


@pytest.mark.parametrize("body", [{"choices": []}, {"id": "gen-1"}, {"choices": None}, {"choices": ["x"]}])
def test_chat_decode_without_choices_raises(body):
    with pytest.raises(ProviderError, match="no choices"):
        chat.decode(body)


def test_chat_decode_finish_reason_error_raises():
    body = {
        "choices": [
            {"message": {"content": ""}, "finish_reason": "error", "error": {"message": "upstream overloaded"}}
        ]
    }
    with pytest.raises(ProviderError, match="upstream overloaded"):
        chat.decode(body)


@pytest.mark.parametrize("body", [None, "oops", [1, 2], 3])
def test_chat_decode_non_dict_body_raises(body):
    with pytest.raises(ProviderError):
        chat.decode(body)


def test_chat_error_text_prefers_provider_message():
    assert chat.error_text({"error": {"message": "x is not supported"}}) == "x is not supported"
    assert chat.error_text({"error": "plain string"}) == "plain string"


# --- messages.encode --------------------------------------------------------------------------------

def test_messages_encode_shape():
    conversation = [
        user_message("go"),
        ASSISTANT_WITH_CALLS,
        {"role": "user", "content": [tool_result("call_1", "ok"), tool_result("call_2", "bad", is_error=True)]},
    ]
    body = messages.encode("You are helpful.", conversation, TOOLS, "claude-haiku-4-5", 8192)
    assert body["system"] == [{"type": "text", "text": "You are helpful.", "cache_control": {"type": "ephemeral"}}]
    assert body["model"] == "claude-haiku-4-5"
    assert body["max_tokens"] == 8192
    assert body["messages"] == conversation
    assert body["tools"] == [
        {"name": "Read", "description": "Read a file.", "input_schema": READ_SCHEMA},
        {"name": "Bash", "description": "Run a command.", "input_schema": TOOLS[1]["parameters"], "cache_control": {"type": "ephemeral"}},
    ]
    # the error flag is sent natively, not folded into the text
    assert body["messages"][2]["content"][1] == {
        "type": "tool_result", "tool_use_id": "call_2", "content": "bad", "is_error": True,
    }


def test_messages_encode_without_system_or_tools():
    body = messages.encode("", [user_message("hi")], [], "claude-haiku-4-5", 100)
    assert "system" not in body
    assert "tools" not in body
    assert body["messages"] == [{"role": "user", "content": "hi"}]


# --- messages.decode --------------------------------------------------------------------------------

def test_messages_decode_text_blocks_joined_and_tool_use():
    body = {
        "type": "message",
        "role": "assistant",
        "content": [
            {"type": "text", "text": "First. "},
            {"type": "text", "text": "Second."},
            {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "a.txt"}},
        ],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 50, "output_tokens": 9},
    }
    reply = messages.decode(body)
    assert reply.text == "First. Second."
    assert [(c.id, c.name, c.arguments, c.arguments_error) for c in reply.tool_calls] == [
        ("toolu_1", "Read", {"file_path": "a.txt"}, None)
    ]
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (50, 9)
    assert reply.usage.requests == 1
    assert reply.stop_reason == "tool_use"


def test_messages_decode_error_body_raises_provider_message():
    body = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    with pytest.raises(ProviderError, match="Overloaded"):
        messages.decode(body)


@pytest.mark.parametrize("body", [{"type": "message"}, {"type": "message", "content": "text"}])
def test_messages_decode_missing_content_raises(body):
    with pytest.raises(ProviderError):
        messages.decode(body)


@pytest.mark.parametrize("body", [None, "oops", []])
def test_messages_decode_non_dict_body_raises(body):
    with pytest.raises(ProviderError):
        messages.decode(body)


@pytest.mark.parametrize("bad_input", ["a.txt", ["a.txt"], None])
def test_messages_decode_non_dict_input_sets_arguments_error(bad_input):
    body = {"content": [{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": bad_input}]}
    call = messages.decode(body).tool_calls[0]
    assert call.arguments_error
    assert call.arguments == {}


# --- round trips ------------------------------------------------------------------------------------

def test_chat_round_trip_gives_back_same_tool_calls():
    response = chat_body(
        {
            "role": "assistant",
            "content": "Checking.",
            "tool_calls": [
                chat_call("call_x", "Read", '{"file_path": "src/ü.py"}'),
                chat_call("call_y", "Bash", '{"command": "ls", "timeout": 5}'),
            ],
        },
        finish_reason="tool_calls",
    )
    reply = chat.decode(response)
    conversation = [
        user_message("go"),
        reply.as_message(),
        {"role": "user", "content": [tool_result("call_x", "one"), tool_result("call_y", "two")]},
    ]
    wire = chat.encode("sys", conversation, TOOLS, "m", 100)["messages"]
    assistant = wire[2]
    assert assistant["content"] == "Checking."
    sent = [(c["id"], c["function"]["name"], json.loads(c["function"]["arguments"])) for c in assistant["tool_calls"]]
    received = [
        (c["id"], c["function"]["name"], json.loads(c["function"]["arguments"]))
        for c in response["choices"][0]["message"]["tool_calls"]
    ]
    assert sent == received
    assert [m["tool_call_id"] for m in wire[3:]] == ["call_x", "call_y"]


def test_messages_round_trip_gives_back_same_tool_calls():
    blocks = [
        {"type": "text", "text": "Checking."},
        {"type": "tool_use", "id": "toolu_x", "name": "Read", "input": {"file_path": "src/ü.py"}},
        {"type": "tool_use", "id": "toolu_y", "name": "Bash", "input": {"command": "ls", "timeout": 5}},
    ]
    reply = messages.decode({"type": "message", "role": "assistant", "content": blocks, "stop_reason": "tool_use"})
    conversation = [
        user_message("go"),
        reply.as_message(),
        {"role": "user", "content": [tool_result("toolu_x", "one"), tool_result("toolu_y", "two")]},
    ]
    wire = json.loads(json.dumps(messages.encode("sys", conversation, TOOLS, "m", 100)))["messages"]
    assistant = wire[1]
    assert assistant["role"] == "assistant"
    assert assistant["content"] == blocks
    assert [b["tool_use_id"] for b in wire[2]["content"]] == ["toolu_x", "toolu_y"]


def test_cache_tokens_are_read_from_both_wires():
    chat_reply = chat.decode({
        "choices": [{"message": {"content": "hi"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1000, "completion_tokens": 5,
                  "prompt_tokens_details": {"cached_tokens": 800, "cache_write_tokens": 150}},
    })
    assert (chat_reply.usage.input_tokens, chat_reply.usage.cache_read_tokens, chat_reply.usage.cache_write_tokens) == (50, 800, 150)
    messages_reply = messages.decode({
        "content": [{"type": "text", "text": "hi"}],
        "usage": {"input_tokens": 50, "output_tokens": 5, "cache_read_input_tokens": 800, "cache_creation_input_tokens": 150},
    })
    assert messages_reply.usage.as_dict() == {
        "input_tokens": 50, "output_tokens": 5, "cache_creation_input_tokens": 150, "cache_read_input_tokens": 800,
    }

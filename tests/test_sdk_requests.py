"""Every request body the agent has sent, in every cassette, is a valid request by the official
SDKs' request types (`anthropic` for the Messages API, `openai` for chat completions), checked
strictly: see `sdk_types.py`. The second half shows the check is real: it fails on bad bodies that
a plain pydantic validation lets through."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

from agent.conversation import tool_result, user_message
from agent.model.wire import chat, messages
from agent.record.cassette_file import read as read_cassette
from sdk_types import adapter, problems

CASSETTES = Path(__file__).resolve().parent.parent / "cassettes"
FILES = sorted(path for path in CASSETTES.rglob("*.yaml") if "workspace" not in path.relative_to(CASSETTES).parts)


@functools.lru_cache(maxsize=None)
def requests_in(path: Path) -> list[tuple[str, dict]]:
    """(wire, body) of each model request recorded in the cassette at `path`."""
    return [("messages" if interaction.uri.endswith("/v1/messages") else "chat", interaction.request)
            for interaction in read_cassette(str(path)).interactions]


@pytest.mark.parametrize("path", FILES, ids=lambda path: str(path.relative_to(CASSETTES)))
def test_every_recorded_request_is_valid_for_the_sdk(path):
    for number, (wire, body) in enumerate(requests_in(path), 1):
        assert problems(body, wire) == [], f"request {number} ({wire})"


def test_the_cassettes_hold_plenty_of_both_wires():
    wires = [wire for path in FILES for wire, _ in requests_in(path)]
    assert wires.count("messages") > 150 and wires.count("chat") > 150


# --- the check catches what it should -----------------------------------------------------------------

GOOD_MESSAGES = messages.encode("sys", [user_message("hi")], [], "claude-haiku-4-5", 1024)
GOOD_CHAT = chat.encode("sys", [user_message("hi")], [], "anthropic/claude-haiku-4.5", 1024)


def with_message(body: dict, message: dict) -> dict:
    return {**body, "messages": [*body["messages"], message]}


def test_good_bodies_pass():
    assert problems(GOOD_MESSAGES, "messages") == []
    assert problems(GOOD_CHAT, "chat") == []


def test_temperature_is_taken_as_claude_code_sends_it_and_checked():
    assert problems({**GOOD_MESSAGES, "temperature": 1}, "messages") == []
    assert problems({**GOOD_MESSAGES, "temperature": 2}, "messages") == ["temperature: 2 is not a number from 0 to 1"]
    assert problems({**GOOD_MESSAGES, "temperature": "1"}, "messages")


def test_a_bad_block_deep_in_a_list_is_caught_though_plain_validation_passes_it():
    bad = with_message(GOOD_MESSAGES, {"role": "assistant", "content": [{"type": "tool_call", "id": "x"}]})
    adapter("messages").validate_python(bad, strict=True)  # lazy: Iterable fields are not looked at
    assert problems(bad, "messages")
    bad_chat = with_message(GOOD_CHAT, {"role": "tool", "content": "result"})  # no tool_call_id
    adapter("chat").validate_python(bad_chat, strict=True)
    assert problems(bad_chat, "chat")


def test_an_unknown_key_is_caught_by_its_path():
    result = {"role": "user", "content": [{**tool_result("toolu_1", "ok"), "error": True}]}
    assert problems(with_message(GOOD_MESSAGES, result), "messages") == [
        "messages[1].content[0].error: not a field of the messages request type"
    ]
    assert problems({**GOOD_CHAT, "thinking": {"type": "enabled"}}, "chat") == [
        "thinking: not a field of the chat request type"
    ]


def test_wrong_types_and_missing_fields_are_caught():
    assert problems({**GOOD_MESSAGES, "max_tokens": "1024"}, "messages")
    assert problems({key: value for key, value in GOOD_MESSAGES.items() if key != "max_tokens"}, "messages")
    assert problems({**GOOD_CHAT, "tools": [{"type": "function", "function": {"description": "no name"}}]}, "chat")


def test_only_documented_openrouter_keys_are_allowed_on_the_chat_wire():
    body = with_message(GOOD_CHAT, {"role": "assistant", "content": "x", "reasoning_details": [{"type": "reasoning.text"}]})
    assert problems({**body, "reasoning": {"max_tokens": 2048}}, "chat") == []
    assert problems(with_message(GOOD_CHAT, {"role": "user", "content": "x", "reasoning_details": []}), "chat")
    assert problems(with_message(GOOD_MESSAGES, {"role": "assistant", "content": "x", "reasoning_details": []}), "messages")


def imported_modules(path: Path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.module


def test_the_agent_itself_never_imports_the_sdks():
    for path in (CASSETTES.parent / "agent").rglob("*.py"):
        roots = {name.split(".")[0] for name in imported_modules(path)}
        assert not roots & {"anthropic", "openai", "pydantic"}, path

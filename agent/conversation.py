"""The internal conversation shape, shared by both wire formats.

Messages are Anthropic-Messages-like dicts: a user turn is `{"role": "user", "content": str}` or a
list of `tool_result` blocks; an assistant turn is a list of `text` and `tool_use` blocks, with the
model's reasoning kept exactly as it came so it can be sent back: Anthropic `thinking` and
`redacted_thinking` blocks in their places, or (chat wire) one `reasoning_details` block holding
OpenRouter's `reasoning_details` list. A plain user text stays a plain string, so a forked skill's
subagent starts from exactly `[{"role": "user", "content": "<body>"}]`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Usage:
    """Token counts, summed over requests. `input_tokens` excludes the cached part of the prompt,
    which is counted as cache writes and cache reads (Anthropic's convention)."""

    input_tokens: int = 0
    output_tokens: int = 0
    requests: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0  # the part of output_tokens spent reasoning, when the provider says

    def add(self, other: "Usage") -> None:
        """Add another usage record to this one."""
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.requests += other.requests
        self.cache_read_tokens += other.cache_read_tokens
        self.cache_write_tokens += other.cache_write_tokens
        self.reasoning_tokens += other.reasoning_tokens

    def as_dict(self) -> dict[str, int]:
        """Claude Code's field names."""
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_creation_input_tokens": self.cache_write_tokens,
            "cache_read_input_tokens": self.cache_read_tokens,
        }


class Stop:
    """Why a reply ended, in one vocabulary for both wires (Anthropic's names, which Claude Code's
    JSON result also uses). The loop acts on each: see `agent.loop.run_loop`."""

    END = "end_turn"  # the model finished its answer
    TOOL_USE = "tool_use"  # it wants its tool calls run
    MAX_TOKENS = "max_tokens"  # cut off at the output limit: the text or calls are incomplete
    REFUSAL = "refusal"  # the model (or the provider's filter) declined
    PAUSE = "pause_turn"  # the provider paused a long turn; sending it back continues it
    CONTEXT_EXCEEDED = "model_context_window_exceeded"  # the conversation filled the context window


def settle_stop(reason: str | None, has_tool_calls: bool) -> str:
    """The stop reason to act on: a reply that ended normally but holds tool calls (some
    OpenAI-compatible servers say `stop` there) or whose reason we could not map is judged by
    its content."""
    if reason is None or (reason == Stop.END and has_tool_calls):
        return Stop.TOOL_USE if has_tool_calls else Stop.END
    return reason


@dataclass
class ToolCall:
    """One tool call of a reply. `arguments_error` is set when the model sent undecodable arguments."""

    id: str
    name: str
    arguments: dict[str, Any]
    arguments_error: str | None = None


@dataclass
class Reply:
    """One model reply, decoded from either wire format.

    `blocks` is the assistant turn as it is sent back, in the order received (reasoning included,
    unchanged); `text` and `tool_calls` are what the loop reads from it; `thinking` is the readable
    part of the reasoning, for --verbose."""

    text: str
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    stop_reason: str = Stop.END
    blocks: list[dict[str, Any]] = field(default_factory=list)
    thinking: str = ""
    provider_stop_reason: str | None = None  # as the provider said it, for --verbose

    def __post_init__(self) -> None:
        if not self.blocks:  # a reply without reasoning: its text, then its calls
            self.blocks = ([text_block(self.text)] if self.text else []) + [tool_use_block(c) for c in self.tool_calls]

    def as_message(self) -> dict[str, Any]:
        """The reply as an assistant message of the internal conversation."""
        return {"role": "assistant", "content": self.blocks}


def text_block(text: str) -> dict[str, Any]:
    """An assistant text block."""
    return {"type": "text", "text": text}


def tool_use_block(call: ToolCall) -> dict[str, Any]:
    """An assistant tool_use block for `call` (undecodable arguments go back as `{}`)."""
    return {"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}


def valid_text(text: str) -> str:
    """`text` as valid Unicode: Python holds bytes that are not UTF-8 (in file names, argv) as lone
    surrogates, which no provider accepts; they become "?"."""
    return text.encode("utf-8", errors="replace").decode("utf-8") if _has_surrogates(text) else text


def _has_surrogates(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def user_message(text: str, context: str | None = None) -> dict[str, Any]:
    """A user turn: plain text, or, with `context` (memory files), a context block and then the
    text, as Claude Code sends the first message of a conversation."""
    if context is None:
        return {"role": "user", "content": valid_text(text)}
    return {"role": "user", "content": [{"type": "text", "text": valid_text(context)},
                                        {"type": "text", "text": valid_text(text)}]}


def with_context(message: dict[str, Any], context: str | None) -> dict[str, Any]:
    """`message` (a plain user turn) with `context` put before its text; unchanged without context."""
    if context is None or not isinstance(message.get("content"), str):
        return message
    return user_message(message["content"], context)


def tool_result(call_id: str, content: str, is_error: bool = False) -> dict[str, Any]:
    """A tool_result block answering the call `call_id`."""
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id, "content": valid_text(content)}
    if is_error:
        block["is_error"] = True
    return block

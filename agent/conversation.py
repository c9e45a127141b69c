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
    web_search_requests: int = 0  # searches the provider's web search ran (WebSearch's requests), priced apart

    def add(self, other: "Usage") -> None:
        """Add another usage record to this one."""
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.requests += other.requests
        self.cache_read_tokens += other.cache_read_tokens
        self.cache_write_tokens += other.cache_write_tokens
        self.reasoning_tokens += other.reasoning_tokens
        self.web_search_requests += other.web_search_requests

    def as_dict(self) -> dict[str, int]:
        """Claude Code's field names."""
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_creation_input_tokens": self.cache_write_tokens,
            "cache_read_input_tokens": self.cache_read_tokens,
        }


def token_count(value: Any) -> int:
    """A token count from a provider's usage object: a positive integer, anything else 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


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


def valid_data(value: Any) -> Any:
    """Decoded JSON (a provider's reply: `"\\ud800"` is valid JSON) with `valid_text` applied to
    every string in it, keys included; the very same object when nothing needed it."""
    if isinstance(value, str):
        return valid_text(value)
    if isinstance(value, list):
        items = [valid_data(item) for item in value]
        return items if any(new is not old for new, old in zip(items, value)) else value
    if isinstance(value, dict):
        pairs = [(valid_data(key), valid_data(item)) for key, item in value.items()]
        changed = any(k is not key or v is not item for (k, v), (key, item) in zip(pairs, value.items()))
        return dict(pairs) if changed else value
    return value


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


def with_blocks(message: dict[str, Any], texts: list[str]) -> dict[str, Any]:
    """`message` (a user turn) with text blocks of `texts` put first, after any tool results (which
    the Messages API wants first: a fork's opening turn answers a call); unchanged without any."""
    if not texts:
        return message
    content = message.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
    results = [block for block in blocks if block.get("type") == "tool_result"]
    rest = [block for block in blocks if block.get("type") != "tool_result"]
    return {**message, "content": [*results, *({"type": "text", "text": valid_text(text)} for text in texts), *rest]}


def tool_result(call_id: str, content: str, is_error: bool = False) -> dict[str, Any]:
    """A tool_result block answering the call `call_id`."""
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id, "content": valid_text(content)}
    if is_error:
        block["is_error"] = True
    return block


# What each block type must hold to be sent again, and nothing else is kept of it.
_BLOCK_FIELDS: dict[str, dict[str, tuple[type, ...]]] = {
    "text": {"text": (str,)},
    "tool_use": {"id": (str,), "name": (str,), "input": (dict,)},
    "tool_result": {"tool_use_id": (str,), "content": (str,)},
    "thinking": {"thinking": (str,), "signature": (str,)},
    "redacted_thinking": {"data": (str,)},
    "reasoning_details": {"reasoning_details": (list,)},
}


def repaired(messages: list[Any]) -> tuple[list[dict[str, Any]], int]:
    """`messages` read back from disk (untrusted) as a conversation both wires can send again,
    and how many messages or blocks had to be dropped. Each message keeps only its role and
    content; a block of an unknown type or missing a field goes; a tool call that got no result
    (a crash, Ctrl-C) gets one saying so, and a result answering no call goes."""
    kept: list[dict[str, Any]] = []
    dropped = 0
    for message in messages:
        content = _content(message)
        if content is None:
            dropped += 1
            continue
        if isinstance(content, list):
            blocks = [_block(block) for block in content]
            dropped += blocks.count(None)
            content = [block for block in blocks if block is not None]
            if not content:
                continue
        kept.append({"role": message["role"], "content": content})
    paired: list[dict[str, Any]] = []
    for index, message in enumerate(kept):
        if not paired and message["role"] == "assistant":  # a conversation starts with the user
            dropped += 1
            continue
        if message["role"] == "user" and isinstance(message["content"], list):
            calls = _calls(paired[-1]) if paired else set()
            content = [b for b in message["content"] if b["type"] != "tool_result" or b["tool_use_id"] in calls]
            dropped += len(message["content"]) - len(content)
            if not content:
                continue
            message = {"role": "user", "content": content}
        paired.append(message)
        answered = _results(kept[index + 1]) if index + 1 < len(kept) else set()
        missing = [call for call in _calls(message) if call not in answered]
        if missing:
            results = [tool_result(call, "not run: the session ended before this call could run", is_error=True)
                       for call in missing]
            following = kept[index + 1] if index + 1 < len(kept) else None
            if following is not None and following["role"] == "user" and isinstance(following["content"], list):
                following["content"] = results + following["content"]
            else:
                paired.append({"role": "user", "content": results})
    return paired, dropped


def _content(message: Any) -> str | list | None:
    if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
        return None
    content = message.get("content")
    return content if isinstance(content, (str, list)) else None


def _block(block: Any) -> dict[str, Any] | None:
    fields = _BLOCK_FIELDS.get(block.get("type")) if isinstance(block, dict) else None
    if fields is None or not all(isinstance(block.get(name), kinds) for name, kinds in fields.items()):
        return None
    kept = {"type": block["type"], **{name: block[name] for name in fields}}
    if block["type"] == "tool_result" and block.get("is_error") is True:
        kept["is_error"] = True
    return kept


def _calls(message: dict[str, Any]) -> set[str]:
    if message["role"] != "assistant" or not isinstance(message["content"], list):
        return set()
    return {block["id"] for block in message["content"] if block["type"] == "tool_use"}


def _results(message: dict[str, Any]) -> set[str]:
    if message["role"] != "user" or not isinstance(message["content"], list):
        return set()
    return {block["tool_use_id"] for block in message["content"] if block["type"] == "tool_result"}

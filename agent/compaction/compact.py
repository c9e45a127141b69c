"""One compaction: the summary request for the older part of a conversation, and the conversation
rebuilt from its summary, as Claude Code rebuilds it (observed on 2.1.332): the continuation
message (after the agent's context blocks), the newest messages kept verbatim, and the files read
in the summarised part attached again."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from agent.compaction.prompt import continuation, read_again, summary_of, summary_prompt
from agent.errors import ProviderError
from agent.hooks.events import pre_compact, session_start
from agent.model.too_long import ContextTooLong

SUMMARISED_SHARE = 0.4  # of the messages: Claude Code summarised 3 of 7, 7 of 17, 11 of 25, keeping the rest
MAX_FILES_AGAIN = 5  # files read before the summary that are attached again, the latest first
MAX_FILE_CHARS = 20_000  # of each (about 5,000 tokens)
MAX_ATTACHED_CHARS = 100_000  # of them all


@dataclass
class Compacted:
    """A compaction's outcome: the rebuilt conversation, how many of its messages were kept
    verbatim, and what each PreCompact hook printed (`command`, `stdout`)."""

    messages: list[dict[str, Any]]
    kept: int
    hook_outputs: list[tuple[str, str]] = field(default_factory=list)


def split_point(messages: list[dict[str, Any]]) -> int:
    """Where the kept part starts: after the older 40% of the messages, moved on to the next
    assistant message so that no tool result is kept without its call (len(messages) when none)."""
    cut = max(1, math.ceil(len(messages) * SUMMARISED_SHARE))
    while cut < len(messages) and messages[cut].get("role") != "assistant":
        cut += 1
    return cut


def compact(agent, messages: list[dict[str, Any]], session, trigger: str, instructions: str = "") -> Compacted:
    """Summarise the older part of `messages` (one request: the agent's model, system prompt and
    tools, the summary prompt appended to the last user message) and rebuild the conversation from
    the summary. PreCompact hooks fire first (`trigger`: manual or auto); what they print is added
    to `instructions` (a `/compact <text>`'s), as Claude Code adds it. The main conversation then
    starts again: its SessionStart hooks (source `compact`) add their context before the summary."""
    hooks = pre_compact(session, agent, trigger, instructions)
    extra = "\n\n".join(text.strip() for text in [instructions, *(out for _, out in hooks)] if text.strip())
    cut = split_point(messages)
    older, kept = messages[:cut], messages[cut:]
    schemas = [tool.schema() for tool in agent.tools.values()]
    asked = older
    while True:  # a summary request itself too long leaves out its oldest exchanges, as Claude Code's does
        try:
            reply = session.client.complete(agent.system, with_prompt(asked, summary_prompt(extra)), schemas,
                                            agent.model, agent.name, effort=agent.effort)
            break
        except ContextTooLong:
            if (asked := without_oldest(asked)) is None:
                raise
    summary = summary_of(reply.text)
    if not summary:
        raise ProviderError("the conversation could not be compacted: the summary request was answered without a summary")
    started = session_start(session, agent, "compact") if agent.depth == 0 else ()
    opening = [*agent.context, *started, continuation(summary, tools_used(older), bool(kept))]
    rebuilt = [{"role": "user", "content": [{"type": "text", "text": text} for text in opening]}, *kept]
    attach(rebuilt, files_read(older, kept))
    return Compacted(rebuilt, len(kept), hooks)


def without_oldest(messages: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """`messages` less their oldest quarter of exchanges after the opening message (so the rest
    still starts with it and each kept call keeps its result); None when nothing more can go."""
    start = max(2, len(messages) // 4)
    while start < len(messages) and messages[start].get("role") != "assistant":
        start += 1
    return [messages[0], *messages[start:]] if start < len(messages) else None


def with_prompt(messages: list[dict[str, Any]], prompt: str) -> list[dict[str, Any]]:
    """`messages` with `prompt` appended as a text block to the last one (a user message; after an
    assistant one it is a user message of its own). The conversation itself is left unchanged."""
    block = {"type": "text", "text": prompt}
    last = messages[-1] if messages else None
    if last is None or last.get("role") != "user":
        return [*messages, {"role": "user", "content": [block]}]
    content = last["content"]
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
    return [*messages[:-1], {**last, "content": [*blocks, block]}]


def tools_used(messages: list[dict[str, Any]]) -> list[str]:
    """The names of the tools called in `messages`, sorted (Claude Code's <tools-used-before-summary>)."""
    return sorted({block["name"] for block in _blocks(messages, "assistant") if block.get("type") == "tool_use"
                   and isinstance(block.get("name"), str)})


def files_read(older: list[dict[str, Any]], kept: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """The files the Read tool read in `older` that `kept` does not read again, the latest first,
    each with its latest result (at most MAX_FILES_AGAIN, each and all within their limits)."""
    paths: dict[str, str] = {}  # call id -> file_path
    for block in _blocks(older, "assistant"):
        if block.get("type") == "tool_use" and block.get("name") == "Read":
            path = (block.get("input") or {}).get("file_path")
            if isinstance(path, str):
                paths[block["id"]] = path
    latest: dict[str, str] = {}
    for block in _blocks(older, "user"):
        path = paths.get(block.get("tool_use_id")) if block.get("type") == "tool_result" else None
        if path is not None and not block.get("is_error") and isinstance(block.get("content"), str):
            latest.pop(path, None)
            latest[path] = block["content"]
    again = {(b.get("input") or {}).get("file_path") for b in _blocks(kept, "assistant") if b.get("name") == "Read"}
    chosen, room = [], MAX_ATTACHED_CHARS
    for path, content in reversed(latest.items()):
        if path in again or len(chosen) == MAX_FILES_AGAIN:
            continue
        content = content[:min(MAX_FILE_CHARS, room)]
        if not content:
            break
        chosen.append((path, content))
        room -= len(content)
    return chosen


def attach(messages: list[dict[str, Any]], files: list[tuple[str, str]]) -> None:
    """Put the files read again after the summary at the end of the rebuilt conversation: inside
    its last tool result, as Claude Code puts them, else as a user message of their own."""
    texts = [text for path, content in files for text in read_again(path, content)]
    if not texts:
        return
    last = messages[-1]
    content = last.get("content")
    if last.get("role") == "user" and isinstance(content, list) and content and content[-1].get("type") == "tool_result" \
            and isinstance(content[-1].get("content"), str):
        result = content[-1]
        messages[-1] = {**last, "content": [*content[:-1], {**result, "content": "\n\n".join([result["content"], *texts])}]}
    elif last.get("role") == "user" and isinstance(content, list) and len(messages) == 1:
        messages[-1] = {**last, "content": [*content, *({"type": "text", "text": text} for text in texts)]}
    else:
        messages.append({"role": "user", "content": [{"type": "text", "text": text} for text in texts]})


def estimate_tokens(messages: list[dict[str, Any]]) -> int:
    """A rough size of `messages` in tokens (four characters each), for the boundary's record."""
    return len(json.dumps(messages, ensure_ascii=False)) // 4


def _blocks(messages: list[dict[str, Any]], role: str):
    for message in messages:
        content = message.get("content")
        if message.get("role") == role and isinstance(content, list):
            yield from (block for block in content if isinstance(block, dict))

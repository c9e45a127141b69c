"""Compaction around the requests of one conversation (the loop's, so the main conversation's and
every subagent's): ahead of a request once the last reply's reported context reached the
threshold, and when the provider refuses a request as too long (a second pass when the rebuilt
conversation is still too long). Each compaction is marked in the agent's transcript and told to
its observer (stream-json's `status` and `compact_boundary` lines)."""

from __future__ import annotations

import time
import uuid
from typing import Any, Callable

from agent.compaction.compact import Compacted, compact, estimate_tokens
from agent.compaction.settings import CompactionSettings
from agent.model.too_long import ContextTooLong, tokens_said

MAX_PASSES = 2  # compactions for one request: the summary, then a summary of the summary
PROMPT_TOO_LONG = "Prompt is too long"  # the result of a run that may not compact (Claude Code's words)


class PromptTooLong(ContextTooLong):
    """A request refused as too long in a run where compaction is off (DISABLE_AUTO_COMPACT)."""


class Compacting:
    """The compaction state of one conversation: the context its last reply reported."""

    def __init__(self, session: Any) -> None:
        self.session = session
        self.settings = getattr(session, "compaction", None) or CompactionSettings()
        self.context = 0

    def replied(self, usage) -> None:
        """A reply came: its reported context (the prompt, cached or not, and the answer)."""
        self.context = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens + usage.output_tokens

    def ask(self, agent, messages: list[dict[str, Any]], send: Callable[[], Any]) -> Any:
        """`send()`'s reply, compacting `messages` (in place) first when the threshold is reached,
        and again each time the provider refuses the request as too long (up to MAX_PASSES)."""
        threshold = self.settings.threshold(getattr(agent, "compact_window", None))
        if threshold is not None and self.context >= threshold:
            self.compact(agent, messages, "auto", self.context + estimate_tokens(messages[-1:]))
        passes = 0
        while True:
            try:
                return send()
            except PromptTooLong:
                raise
            except ContextTooLong as error:
                if self.settings.disabled:
                    raise PromptTooLong(str(error)) from None
                if passes == MAX_PASSES:
                    raise
                passes += 1
                self.compact(agent, messages, "auto", tokens_said(str(error)) or estimate_tokens(messages))

    def compact(self, agent, messages: list[dict[str, Any]], trigger: str, pre_tokens: int,
                instructions: str = "") -> Compacted:
        """Compact `messages` in place, and mark it in the transcript and for the observer."""
        started = time.monotonic()
        notify = getattr(agent.observer, "system", None) if agent.depth == 0 else None
        if notify is not None:
            notify(agent, {"subtype": "status", "status": "compacting", "compact_output_chars": 0})
        done = compact(agent, messages, self.session, trigger, instructions)
        parent = getattr(agent.transcript, "last_uuid", None)
        messages[:] = done.messages
        self.context = 0
        post_tokens = estimate_tokens(messages)
        metadata = {"trigger": trigger, "pre_tokens": pre_tokens, "post_tokens": post_tokens,
                    "duration_ms": int((time.monotonic() - started) * 1000)}
        boundary, summary = str(uuid.uuid4()), str(uuid.uuid4())
        if agent.transcript is not None:
            boundary = agent.transcript.compact_boundary(trigger, pre_tokens, post_tokens, metadata["duration_ms"])
            for index, message in enumerate(messages):
                agent.transcript.append(message, {"isCompactSummary": True} if index == 0 else None)
                summary = agent.transcript.last_uuid if index == 0 else summary
        if notify is not None:
            notify(agent, {"subtype": "status", "status": None, "compact_result": "success"})
            notify(agent, {"subtype": "compact_boundary", "uuid": boundary, "compact_metadata": metadata,
                           "logical_parent_uuid": parent})
            if (show := getattr(agent.observer, "synthetic", None)) is not None:
                show(agent, messages[0], summary)  # the summary message, as Claude Code's stream shows it
        return done

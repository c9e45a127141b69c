"""A request the provider refused because the conversation no longer fits the model's context
window: Anthropic's `400 invalid_request_error "prompt is too long: N tokens > M maximum"`,
OpenRouter's and OpenAI's "maximum context length is N tokens" (`context_length_exceeded`).
The loop compacts the conversation and sends it again (agent.compaction) instead of ending."""

from __future__ import annotations

import re
from typing import Any

from agent.errors import ProviderError

# How each wire words it, lower-cased; the error's code says it too on OpenAI-compatible servers.
_WORDINGS = ("prompt is too long", "maximum context length", "context length exceeded", "context_length_exceeded",
             "exceeds the context window", "input is too long")
# "250000 tokens > 200000 maximum" (Anthropic), "you requested about 250000 tokens" (OpenRouter),
# "your messages resulted in 130000 tokens" (OpenAI)
_TOKENS = re.compile(r"(\d[\d,]*)\s*tokens?\s*>|(?:requested about|resulted in)\s+(\d[\d,]*)\s*tokens")


class ContextTooLong(ProviderError):
    """The provider refused the request as longer than the model's context window."""


def refused_as_too_long(status: int | None, detail: str, body: Any = None) -> bool:
    """Whether an error reply (its status, its message and its JSON body) says the prompt is too long."""
    if status not in (400, 413):
        return False
    code = body.get("error", {}).get("code") if isinstance(body, dict) and isinstance(body.get("error"), dict) else None
    said = f"{detail} {code if isinstance(code, str) else ''}".lower()
    return any(wording in said for wording in _WORDINGS)


def tokens_said(message: str) -> int | None:
    """The prompt's size the provider named ("N tokens > M maximum"), or None."""
    found = _TOKENS.search(message)
    return int((found.group(1) or found.group(2)).replace(",", "")) if found else None

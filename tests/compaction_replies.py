"""Scripted replies for the compaction tests: each wire's refusal of a prompt as too long (the
words Anthropic, OpenRouter and OpenAI use) and a summary reply."""

from __future__ import annotations

from scripted_model import ScriptedReply, raw, text

ANTHROPIC_TOO_LONG = {"type": "error", "error": {"type": "invalid_request_error",
                                                  "message": "prompt is too long: 250123 tokens > 200000 maximum"}}
OPENROUTER_TOO_LONG = {"error": {"code": 400, "message": (
    "This endpoint's maximum context length is 200000 tokens. However, you requested about 250123 tokens "
    "(250000 of text input, 123 of tool input). Please reduce the length of either one, or use the "
    "\"middle-out\" transform to compress your prompt automatically.")}}
OPENAI_TOO_LONG = {"error": {"type": "invalid_request_error", "code": "context_length_exceeded", "param": "messages",
                             "message": "This model's maximum context length is 128000 tokens. However, your "
                                        "messages resulted in 130000 tokens. Please reduce the length of the messages."}}


def too_long(provider: str) -> ScriptedReply:
    """The provider's 400 for a prompt longer than the model's context window."""
    return raw(ANTHROPIC_TOO_LONG if provider == "anthropic" else OPENROUTER_TOO_LONG, status=400)


def summary(words: str) -> ScriptedReply:
    """A summary reply: an <analysis> block, then the <summary> block holding `words`."""
    return text(f"<analysis>\nLooking back over the conversation.\n</analysis>\n\n<summary>\n{words}\n</summary>")


def without_model(tmp_path, monkeypatch) -> None:
    """An in-process CLI run that fails before any request: a dummy key, an empty home and workspace."""
    import os

    for variable in list(os.environ):
        if variable.startswith(("OPENROUTER_", "ANTHROPIC_", "AGENT_", "CLAUDE_")):
            monkeypatch.delenv(variable)
    monkeypatch.setenv("OPENROUTER_API_KEY", "dummy-openrouter-key")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)

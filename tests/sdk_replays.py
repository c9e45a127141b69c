"""Replaying a recorded SDK session through the SDK again, within the test that recorded it: the
same program, its cassette given as `{"replay": path}` (with `"replay-tools": None` to run nothing),
so a test checks each of its replays right after recording, and on every replay run. Also the
prompt as streaming mode takes it (hooks and SDK MCP servers need that mode), and what a run's
tools said."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import ClaudeAgentOptions, UserMessage, query

from conftest import DRIFTED
from sdk_session import CLI, SdkRun

REPLAY_TOOLS = {"replay-tools": None}


def replay_options(agent, cassette: Path, stderr: list[str], extra_args: dict | None = None,
                   **options: Any) -> ClaudeAgentOptions:
    """Options that replay `cassette` (with `extra_args` too) in the test's workspace."""
    options.setdefault("cwd", str(agent.workspace))
    return ClaudeAgentOptions(cli_path=str(CLI), stderr=stderr.append,
                              extra_args={"replay": str(cassette), **(extra_args or {})}, **options)


def replay_query(agent, cassette: Path, prompt: Any, extra_args: dict | None = None, timeout_s: float = 60,
                 drifting: bool = False, **options: Any) -> SdkRun:
    """`query(prompt)` replaying `cassette`; fails the test when the replay drifted from it (unless
    the test expects it to: `drifting`)."""
    stderr: list[str] = []
    built = replay_options(agent, cassette, stderr, extra_args, **options)
    messages: list[Any] = []

    async def run() -> BaseException | None:
        try:
            async for message in query(prompt=prompt, options=built):
                messages.append(message)
        except Exception as error:
            return error
        return None

    error = asyncio.run(asyncio.wait_for(run(), timeout_s))
    said = "\n".join(stderr)
    if not drifting and any(sign in said for sign in DRIFTED):  # while recording too: it replays what it just recorded
        pytest.fail(f"the replay of {cassette.name} drifted from its cassette: {said.strip()[-600:]}")
    return SdkRun(messages, stderr, error, cassette)


def prompt(words: str):
    """The prompt as the SDK's streaming mode takes it (hooks need it): an async iterable of user messages."""
    async def messages():
        yield {"type": "user", "message": {"role": "user", "content": words}, "parent_tool_use_id": None,
               "session_id": ""}
    return messages()


def tool_results(run) -> str:
    """Everything the session's tool results said, as the SDK yielded them."""
    return json.dumps([m.content for m in run.messages if isinstance(m, UserMessage)], default=str)


def sent_to_model(run) -> str:
    """Every request the session sent, as JSON text."""
    return json.dumps(run.payloads, ensure_ascii=False)

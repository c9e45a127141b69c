"""Driving the agent through the official Agent SDK (`claude-agent-sdk`), as a Python developer
does: `ClaudeAgentOptions(cli_path=<repo>/your_program.sh)`, with the test's cassette passed in
`extra_args` (`{"record": path}` while recording against the scripted model, `{"replay": path}`
otherwise), so each SDK session is recorded once and replayed offline like any other run.

`sdk_options(agent, **options)` gives the options and the cassette of the next run;
`sdk_query(agent, prompt, **options)` runs `query()` to its end and returns what the SDK yielded.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from claude_agent_sdk import ClaudeAgentOptions, ResultMessage, query

from agent.record.cassette_file import read as read_cassette

REPO = Path(__file__).resolve().parent.parent
CLI = REPO / "your_program.sh"


@dataclass
class SdkRun:
    """What the SDK yielded (typed messages), what the CLI wrote on stderr, the exception that ended
    the query (None when it ended normally), and the run's cassette."""

    messages: list[Any]
    stderr: list[str]
    error: BaseException | None
    cassette: Path
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def results(self) -> list[ResultMessage]:
        return [m for m in self.messages if isinstance(m, ResultMessage)]

    @property
    def result(self) -> ResultMessage:
        assert self.results, f"no ResultMessage; error: {self.error!r}; stderr: {self.stderr[-10:]}"
        return self.results[-1]

    @property
    def payloads(self) -> list[dict]:
        """Every request the session sent, in order, as the cassette holds them."""
        return payloads_in(self.cassette)


def payloads_in(cassette: Path) -> list[dict]:
    """Every request a session sent, in order, as its cassette holds them."""
    return [json.loads(json.dumps(i.request)) for i in read_cassette(str(cassette)).interactions]


def sdk_options(agent, stderr: list[str] | None = None, extra_args: dict[str, str | None] | None = None,
                **options: Any) -> tuple[ClaudeAgentOptions, Path]:
    """ClaudeAgentOptions starting our CLI in the test's workspace, recording or replaying the
    test's next cassette; `stderr` collects the CLI's stderr lines."""
    cassette, mode = agent.next_cassette()
    lines = stderr if stderr is not None else []
    options.setdefault("cwd", str(agent.workspace))
    return ClaudeAgentOptions(cli_path=str(CLI), stderr=lines.append,
                              extra_args={mode: str(cassette), **(extra_args or {})}, **options), cassette


def sdk_query(agent, prompt: Any, timeout_s: float = 60, **options: Any) -> SdkRun:
    """Run `query(prompt, options)` to its end (or its exception) against the test's cassette."""
    stderr: list[str] = []
    built, cassette = sdk_options(agent, stderr, **options)
    messages: list[Any] = []

    async def run() -> BaseException | None:
        try:
            async for message in query(prompt=prompt, options=built):
                messages.append(message)
        except Exception as error:  # what the SDK raised is part of what the test checks
            return error
        return None

    error = asyncio.run(asyncio.wait_for(run(), timeout_s))
    agent.drifted(cassette, "\n".join(stderr))
    return SdkRun(messages, stderr, error, cassette)

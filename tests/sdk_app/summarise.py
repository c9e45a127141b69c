"""A small Agent SDK application, the one README's "Agent SDK" section shows: it asks the agent to
summarise a file and returns the answer. `extra_args` passes --record or --replay through."""

from __future__ import annotations

from claude_agent_sdk import ClaudeAgentOptions, ResultMessage, query


async def summarise(path: str, cli_path: str, cwd: str, extra_args: dict[str, str | None] | None = None) -> str:
    """The agent's one-paragraph summary of the file at `path` (relative to `cwd`)."""
    options = ClaudeAgentOptions(cli_path=cli_path, cwd=cwd, allowed_tools=["Read"], extra_args=extra_args or {})
    answer = ""
    async for message in query(prompt=f"Summarise {path} in one paragraph", options=options):
        if isinstance(message, ResultMessage):
            answer = message.result or ""
    return answer

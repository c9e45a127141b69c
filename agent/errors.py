"""Exceptions that end a run, each carrying the one-line message the user sees and an exit code."""


class AgentError(Exception):
    """A run-ending failure: the CLI prints `error: <message>` on stderr and exits with `exit_code`.
    `session` is the run's, when it failed after one was built (for the JSON result)."""

    exit_code = 1
    session = None


class UsageError(AgentError):
    """Bad flags, a missing key or a missing file given by the user."""

    exit_code = 2


class ProviderError(AgentError):
    """The model provider failed or answered with something we cannot use. `partial` is the
    conversation's agent.loop.Result so far when the error cut a conversation off mid-run (so a
    subagent's caller can keep what it had written)."""

    partial = None


class ReplayMismatch(AgentError):
    """A replayed run sent a request the cassette does not hold. When a request differed from its
    recorded twin, `drift` holds both for a report: {"request": N (1-based), "agent", "where"
    (the first differing JSON path), "recorded", "sent"} (the bodies as JSON values)."""

    def __init__(self, message: str, drift: dict | None = None):
        super().__init__(message)
        self.drift = drift


class Interrupted(AgentError):
    """The user pressed Ctrl-C: work still running in other threads (parallel subagents) stops at
    its next step with this."""

    exit_code = 130

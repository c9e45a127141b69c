"""How a run ended, prompt by prompt: written into the setup of the cassette it records, and on a
replay compared with the recorded ending and checked against the cassette's `expect` section
(`agent.record.expect` holds the logic, imported only by a run that records or replays; this
module gathers what it needs from a run)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from agent.cli.output import incomplete_because
from agent.cli.report import unwritten
from agent.errors import AgentError, ReplayMismatch

log = logging.getLogger("agent")
FILES_SKIPPED = "file expectations not checked: with --replay-tools no tool runs"


class Ending:
    """One run's ending. `turned` notes each prompt's result, `failed` an error that ended the run;
    `finished` writes them into a recording's setup before the cassette is saved. A replay
    (`expect` first) compares them with the recording (`compare`) and lists the expectations the
    run did not meet (`unmet`)."""

    def __init__(self) -> None:
        self.outcomes: list[dict[str, str]] = []
        self.exit_code: int | None = None
        self.calls: list[tuple[str, Any]] = []  # every agent's tool calls, as (name, arguments)
        self.expectations = None  # an agent.record.expect.Expectations, when replaying
        self.recorded: dict[str, Any] | None = None  # the replayed cassette's setup
        self.path = ""
        self.workspace: Path | None = None  # where the replay's tools ran; None with --replay-tools
        self._result = self._session = None

    def expect(self, cassette, args) -> None:
        """For a replay of `cassette`: its `expect` section, checked now (a malformed one is a
        usage error before anything runs), and what the run is compared with."""
        if cassette is None:
            return
        from agent.record.expect import Expectations

        self.expectations = Expectations.from_section(cassette.expect, args.replay)
        self.recorded = None if cassette.inferred else cassette.setup
        self.path = args.replay
        self.workspace = None if args.replay_tools else Path.cwd()
        if self.expectations.checks_files and self.workspace is None:
            log.warning(f"cassette {self.path}: {FILES_SKIPPED}")

    def watching(self, observer):
        """The session's observer, seeing every agent's tool calls on the way (a replay's only)."""
        return _CallWatch(self, observer) if self.path else observer

    def turned(self, result) -> None:
        """A prompt was answered (or stopped at the turn limit)."""
        self.outcomes.append(outcome_of(result))

    def failed(self, error: AgentError, recording=None) -> None:
        """The run ended in `error`; a `recording` stores that before its cassette is saved, and a
        replay whose recording did not end so has drifted (ReplayMismatch)."""
        from agent.record.expect import FAILED

        self.outcomes.append({"subtype": FAILED, "answer": ""})
        self.exit_code = error.exit_code
        if recording is not None:
            self._store(recording)
        if not isinstance(error, ReplayMismatch):
            self.compare(error)

    def finished(self, result, session, recording=None) -> None:
        """The last prompt was answered; a `recording` stores the outcomes and the exit code the
        run is about to have (a cassette that then cannot be saved is not in it)."""
        self._result, self._session = result, session
        self.exit_code = exit_code(result, session)
        if recording is not None:
            self._store(recording)

    def _store(self, recording) -> None:
        recording.setup["outcomes"] = list(self.outcomes)
        recording.setup["exit_code"] = self.exit_code

    def compare(self, cause: AgentError | None = None) -> None:
        """A replay that ended otherwise than its recording (another subtype or answer) has drifted."""
        from agent.record.expect import outcome_difference

        recorded = (self.recorded or {}).get("outcomes")
        if recorded is not None and (difference := outcome_difference(recorded, self.outcomes, self.path)):
            raise ReplayMismatch(difference) from cause

    def failure(self) -> str | None:
        """Why the run counts as failed ("recorded run ended in error_max_turns"), or None."""
        from agent.record.expect import recorded_failure

        return recorded_failure(self.outcomes, self.exit_code)

    def unmet(self) -> list[str]:
        """The replay's unmet expectations, one line each (the exit code is the one the run has now)."""
        if self.expectations is None or not self.outcomes:
            return []
        code = exit_code(self._result, self._session) if self._result is not None else self.exit_code or 0
        return self.expectations.unmet(self.outcomes[-1]["answer"], code, list(self.calls), self.workspace)


def outcome_of(result) -> dict[str, str]:
    """How a prompt's turn ended (an agent.loop.Result), as a cassette's setup records it."""
    return {"subtype": result.subtype, "answer": result.text.strip()}


def exit_code(result, session) -> int:
    """The exit code of a run that answered: 1 when the answer is incomplete or a file of the run
    could not be written (as the command line exits), else 0."""
    return 1 if incomplete_because(result, session) or unwritten(session) else 0


class _CallWatch:
    """An observer that notes the tool calls in every agent's messages and passes all on."""

    def __init__(self, ending: Ending, inner) -> None:
        self.ending = ending
        self.inner = inner

    @property
    def wants_text(self) -> bool:
        return bool(self.inner is not None and self.inner.wants_text)

    def message(self, agent, message: dict) -> None:
        content = message.get("content")
        if message.get("role") == "assistant" and isinstance(content, list):
            self.ending.calls.extend((block.get("name"), block.get("input")) for block in content
                                     if isinstance(block, dict) and block.get("type") == "tool_use")
        if self.inner is not None:
            self.inner.message(agent, message)

    def text(self, agent, delta: str) -> None:
        if self.inner is not None:
            self.inner.text(agent, delta)

    def system(self, agent, fields: dict) -> None:
        if (inner := getattr(self.inner, "system", None)) is not None:
            inner(agent, fields)

    def synthetic(self, agent, message: dict, entry_uuid: str) -> None:
        if (inner := getattr(self.inner, "synthetic", None)) is not None:
            inner(agent, message, entry_uuid)

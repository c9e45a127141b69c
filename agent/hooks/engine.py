"""Firing one event: the matching hooks of the session's settings and of the running agent (its
frontmatter, an active skill's) found, identical commands run once, all of them in parallel, each
answer read, narrated under --verbose and counted for the JSON result.

A firing goes through the session's `hook_runs` when there is one, as
`hook_runs(agent, event, input, commands, run_all, effects)`: `run_all()` runs the commands and
returns `[(command, entry)]` in configuration order (an entry is a run as a cassette keeps it),
and `effects(runs)` says what those runs' answers change. A recording keeps the firing; a replay
with --replay-tools answers with the recorded firing instead of running anything (its
`answering` is true: the commands are the recording's, whatever the settings say now); a replay
that runs hooks compares the effects of this firing with the recorded one's.

The Agent SDK's hook callbacks (agent.hooks.callbacks) are hooks like the commands, in the same
groups: they fire through `callback`, and go by their names (`SDK callback hook_0`) where a
command hook goes by its command.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable

from agent.hooks.answers import BLOCKING_EXIT, Answer, read_answer
from agent.hooks.callbacks import Call, CallbackHook, is_callback, run_callback
from agent.hooks.config import CommandHook, HookSet
from agent.hooks.matching import matches
from agent.hooks.running import HookRun, run_hook

log = logging.getLogger("agent")

MAX_PARALLEL = 16
# Fields of a hook's input that change every run: a recording leaves them out, so it stays byte-stable.
VOLATILE_FIELDS = ("session_id", "transcript_path", "agent_transcript_path", "prompt_id", "agent_id", "duration_ms")


class Hooks:
    """The hooks of one session and what they have done so far."""

    def __init__(self, configured: HookSet, cwd: Path, session_id: str, transcript_path: str,
                 entrypoint: str = "sdk-cli", hook_runs: Callable | None = None, callback: Call | None = None):
        self.configured = configured
        self.cwd = Path(cwd)
        self.session_id = session_id
        self.transcript_path = transcript_path
        self.entrypoint = entrypoint
        self.hook_runs = hook_runs
        self.callback = callback  # how the Agent SDK's hook callbacks are fired (agent.hooks.callbacks)
        self.listener: Callable[[str, dict[str, Any]], None] | None = None  # stream-json's hook events
        self.counts: Counter = Counter()
        self.stop_reason: str | None = None  # a hook answered continue: false: the run ends
        self.prompt_id = str(uuid.uuid4())
        self._lock = threading.Lock()

    @property
    def halted(self) -> bool:
        """Whether a hook asked for the run to end (`continue: false`)."""
        return self.stop_reason is not None

    def new_prompt(self) -> None:
        """A new user prompt: the moments that follow carry a new `prompt_id`, and a hook's
        `continue: false` ended the turn before it, not this one."""
        self.prompt_id = str(uuid.uuid4())
        self.stop_reason = None

    def fire(self, event: str, subject: str | None, fields: dict[str, Any], agent: str = "main",
             scoped: HookSet | None = None) -> list[Answer]:
        """Run the hooks of `event` whose matcher matches `subject` (the tool name, the source, the
        agent type; None for events without matchers), the settings' and the agent's `scoped` ones,
        with `fields` added to the common input; their answers, in configuration order."""
        answering = getattr(self.hook_runs, "answering", False)
        commands: dict[str, CommandHook | CallbackHook] = {}
        for group in () if answering else self.configured.plus(scoped).of(event):
            if matches(group.matcher, subject):
                for hook in group.hooks:
                    commands.setdefault(hook.command, hook)  # identical commands run once
        if not commands and self.hook_runs is None:
            return []
        hook_input = {"session_id": self.session_id, "transcript_path": self.transcript_path, "cwd": str(self.cwd),
                      "hook_event_name": event, **({} if event == "SessionStart" else {"prompt_id": self.prompt_id}),
                      **fields}
        name = f"{event}:{subject}" if subject else event
        hooks = list(commands.values())
        ids: dict[str, str] = {}  # command -> its hook_id in stream-json, once its start was told

        def run_all() -> list[tuple[str, dict[str, Any]]]:
            if len(hooks) <= 1:
                return [self._run(name, hook, hook_input, ids) for hook in hooks]
            with ThreadPoolExecutor(max_workers=min(len(hooks), MAX_PARALLEL)) as pool:
                return list(pool.map(lambda hook: self._run(name, hook, hook_input, ids), hooks))

        def effects(runs: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
            found = [{"command": command, **read_answer(event, command, HookRun.from_entry(entry)).effect()}
                     for command, entry in runs]
            return [effect for effect in found if len(effect) > 1]

        if self.hook_runs is None:
            runs = run_all()
        else:
            kept = {key: value for key, value in hook_input.items() if key not in VOLATILE_FIELDS}
            runs = self.hook_runs(agent, event, kept, list(commands), run_all, effects)
        answers = [self._answer(name, event, command, entry, agent, answering, ids) for command, entry in runs]
        for answer in answers:
            if answer.system_message:  # for the user: stream-json's informational line, else stderr
                self._notice(event, f"{name} says: {answer.system_message}")
            if answer.stop is not None and self.stop_reason is None:
                self.stop_reason = answer.stop
                log.warning("a %s hook ended the run%s", event, f": {answer.stop}" if answer.stop else "")
        if event == "PreToolUse":
            self._no_verdicts(answers, fields.get("tool_use_id"))
        return answers

    def _run(self, name: str, hook: CommandHook | CallbackHook, hook_input: dict[str, Any],
             ids: dict[str, str]) -> tuple[str, dict[str, Any]]:
        ids[hook.command] = str(uuid.uuid4())
        self._tell("hook_started", {"hook_id": ids[hook.command], "hook_name": name,
                                    "hook_event": hook_input["hook_event_name"]})
        if isinstance(hook, CallbackHook):
            run = run_callback(self.callback, hook, hook_input)
            marked = {"callback": hook.callback_id}  # a replay without the SDK answers it from the cassette
        else:
            environment = {"CLAUDE_PROJECT_DIR": str(self.cwd), "CLAUDECODE": "1",
                           "CLAUDE_CODE_ENTRYPOINT": self.entrypoint, "CLAUDE_CODE_SESSION_ID": self.session_id}
            run, marked = run_hook(hook.command, hook_input, self.cwd, hook.timeout, environment), {}
        if run.timed_out:
            log.warning("hook %s [%s] timed out after %g s; it was stopped and its answer ignored",
                        name, hook.command, hook.timeout)
        return hook.command, {**run.as_entry(), **marked, "duration_ms": run.duration_ms}

    def _answer(self, name: str, event: str, command: str, entry: dict[str, Any], agent: str,
                answering: bool, ids: dict[str, str]) -> Answer:
        run = HookRun.from_entry(entry)
        answer = read_answer(event, command, run)
        recorded = command not in ids  # answered from a cassette, not run now
        if recorded and not answering and not getattr(self.hook_runs, "grants", False):
            answer = _without_grants(answer, name)
        self._narrate(name, command, answer, agent, recorded)
        outcome = "blocked" if answer.block is not None else "error" if answer.error else "success"
        with self._lock:
            self.counts["runs"] += 1
            self.counts[outcome] += 1
        if recorded:  # its start is told now
            ids[command] = str(uuid.uuid4())
            self._tell("hook_started", {"hook_id": ids[command], "hook_name": name, "hook_event": event})
        self._tell("hook_response", {"hook_id": ids[command], "hook_name": name, "hook_event": event,
                                     "output": run.stdout + run.stderr, "stdout": run.stdout, "stderr": run.stderr,
                                     # a hook stopped at its timeout, as Claude Code reports one
                                     "exit_code": 1 if run.timed_out else run.exit_code,
                                     "outcome": "cancelled" if run.timed_out else "success" if run.exit_code == 0 else "error"})
        if recorded and run.timed_out:
            log.warning("hook %s [%s] timed out when it was recorded; its answer is ignored", name, command)
        return answer

    def _notice(self, event: str, content: str) -> None:
        """What a hook's systemMessage shows the user: a line of stream-json, else one on stderr."""
        if self.listener is not None:
            self.listener("informational", {"content": content, "level": "notice", "hook_event": event})
        else:
            log.warning("%s", content)

    def _no_verdicts(self, answers: list[Answer], call_id: Any) -> None:
        """A PreToolUse hook that timed out or failed did not check the call: stream-json says so,
        in Claude Code's words (stderr has the timeout's warning, --verbose the failure)."""
        for answer in answers:
            timed_out = answer.run.timed_out
            if timed_out or answer.run.exit_code not in (0, BLOCKING_EXIT):
                content = ("A hook didn't answer in time, so it didn't check this action." if timed_out
                           else "A hook gave no usable answer, so it didn't check this action.")
                self._tell("informational", {"content": content, "level": "warning", "tag": "hook_no_verdict",
                                             "hook_no_verdict": {"hook_event": "PreToolUse", "tool_use_id": call_id,
                                                                 "timed_out": timed_out},
                                             "hook_event": "PreToolUse"})

    def _narrate(self, name: str, command: str, answer: Answer, agent: str, recorded: bool) -> None:
        run = answer.run
        code = "timed out" if run.timed_out else f"exit {run.exit_code}" if run.exit_code is not None else "could not run"
        if is_callback(command) and not run.timed_out:
            code = "answered" if run.exit_code == 0 else "failed"
        where = "" if agent == "main" else f" ({agent})"
        how = "from the cassette (not run)" if recorded else f"in {run.duration_ms} ms"
        log.info("hook %s%s [%s]: %s %s: %s", name, where, command, code, how, answer.summary())

    def _tell(self, kind: str, fields: dict[str, Any]) -> None:
        if self.listener is not None:
            self.listener(kind, fields)

    def summary(self) -> dict[str, int]:
        """The hooks' counts for the JSON result: runs, and how many blocked or failed."""
        return {"runs": self.counts["runs"], "blocked": self.counts["blocked"], "errors": self.counts["error"]}


def _without_grants(answer: Answer, name: str) -> Answer:
    """A recorded answer given where tools run for real (a replay of an SDK session without the
    SDK): it may block or add context, never allow a call or change its input, which would let
    the cassette's author run more than the replaying user's settings do."""
    if answer.decision != "allow" and answer.updated_input is None:
        return answer
    log.warning("the recorded %s hook callback [%s] allowed the call or changed its input; this replay runs tools "
                "for real, so that is not followed (use --replay-tools, or vouch for the cassette)", name, answer.command)
    return dataclasses.replace(answer, decision=None if answer.decision == "allow" else answer.decision,
                               updated_input=None)

"""The hook firings of a run, kept in the cassette's `tool_runs` between the tool runs around
them, one entry per firing of an event:

    - agent: main
      hook: PreToolUse
      input: {tool_name: Bash, tool_input: {command: rm -rf build}, ...}
      runs:
      - command: .claude/hooks/guard.sh
        exit_code: 2
        stderr: "no deleting\\n"

The session's `hook_runs(agent, event, input, commands, run_all, effects)` (see agent.hooks.engine):

- recording, it runs the commands and keeps the firing (runs in configuration order, without their
  durations, so a re-recording is byte for byte the same);
- replaying with --replay-tools (`answering`), it runs nothing: it answers with the recorded firing
  of the same agent and event (and tool call), so each hook's effect is reproduced whatever the
  settings say now; a firing the recording does not hold ran no hook;
- replaying with hooks run for real, it runs them and compares what their answers change with what
  the recorded ones changed: a difference is drift, like a request that differs.

A firing of the Agent SDK's hook callbacks is kept the same way, each run marked with its
`callback` id. A replay with no SDK connected (`no_sdk`: a plain --replay of an SDK session) has
no callbacks to fire, so their recorded answers stand in for them (what they may still change is
the hooks engine's call: `grants` says whether the cassette's grants are followed).
"""

from __future__ import annotations

import json
import logging
import threading
from collections import defaultdict, deque
from typing import Any, Callable

from agent.errors import ReplayMismatch

log = logging.getLogger("agent")

Runs = list[tuple[str, dict[str, Any]]]
# What an answer changes (agent.hooks.answers.Answer.effect), in the order a drift names the first
# difference, with the words it uses.
EFFECT_FIELDS = {"block": "block", "decision": "permission decision", "reason": "reason",
                 "updated_input": "changed input", "context": "added context", "plain": "output given as context",
                 "stop": "stop (continue: false)", "system_message": "systemMessage"}
# The input field that names what a moment is about, as Claude Code's hook names say it.
SUBJECT_FIELDS = ("tool_name", "source", "agent_type", "notification_type", "trigger", "reason")


def is_hook_entry(entry: Any) -> bool:
    """Whether a `tool_runs` entry is a hook firing (not a tool run or an approval)."""
    return isinstance(entry, dict) and isinstance(entry.get("hook"), str) and isinstance(entry.get("runs"), list)


def _key(agent: Any, event: str, hook_input: Any) -> tuple:
    """Which recorded firings a firing is matched with: the same agent, event and tool call, or
    for SessionStart the same source (a compaction's `compact` firing is not the `startup` one)."""
    fields = hook_input if isinstance(hook_input, dict) else {}
    call = fields.get("tool_use_id") if event != "SessionStart" else fields.get("source")
    return agent, event, call if isinstance(call, str) else None


class HookRuns:
    """Recording into `sink` (the run's ToolRuns, so firings and tool runs keep their order), or
    replaying the firings among a cassette's `entries`: `answering` (--replay-tools) or checking.
    `off` (hooks turned off where the replay runs: disableAllHooks) runs nothing, so a recorded
    effect is missed, and said to be."""

    def __init__(self, sink: Any = None, entries: list[Any] | None = None, answering: bool = False, path: str = ""):
        self.sink = sink
        self.answering = answering
        self.path = path
        self.off = False
        self.no_sdk = False  # no Agent SDK is connected: recorded callbacks answer for themselves
        self.grants = False  # the cassette's grants are followed (the replaying user vouched for it)
        self._told = False
        self._lock = threading.Lock()
        self._recorded: dict[tuple, deque] = defaultdict(deque)
        for entry in entries or []:
            if is_hook_entry(entry):
                self._recorded[_key(entry.get("agent"), entry["hook"], entry.get("input"))].append(entry)

    @property
    def holds_firings(self) -> bool:
        """Whether the cassette being replayed holds any hook firing."""
        return any(self._recorded.values())

    def __call__(self, agent: str, event: str, hook_input: dict[str, Any], commands: list[str],
                 run_all: Callable[[], Runs], effects: Callable[[Runs], list[dict[str, Any]]]) -> Runs:
        if self.sink is not None:
            runs = run_all() if commands else []
            if runs:
                self.sink.keep({"agent": agent, "hook": event, "input": hook_input,
                                "runs": [{"command": command, **_kept(entry)} for command, entry in runs]})
            return runs
        with self._lock:
            found = self._recorded.get(_key(agent, event, hook_input))
            recorded = found.popleft() if found else None
        recorded_runs = _runs_of(recorded)
        if self.answering:
            return recorded_runs
        runs = run_all() if commands and not self.off else []
        runs += self._standing_in(recorded_runs, commands)
        # each hook's effect, whatever order the hooks are configured in now (what an order changes
        # reaches the requests, which are compared too)
        now, then = _by_command(effects(runs)), _by_command(effects(recorded_runs))
        if now != then:
            ran = [] if self.off else commands
            raise ReplayMismatch(_drift(moment(event, hook_input), agent, self.path, then, now, ran, self.off))
        return runs


    def _standing_in(self, recorded_runs: Runs, commands: list[str]) -> Runs:
        """The recorded runs of SDK callbacks that cannot fire here (no SDK is connected)."""
        if not self.no_sdk:
            return []
        found = [(command, run) for command, run in recorded_runs
                 if isinstance(run.get("callback"), str) and command not in commands]
        if found and not self._told:
            self._told = True
            log.info("no Agent SDK is connected: its hook callbacks are answered from the cassette %s", self.path)
        return found


def moment(event: str, hook_input: Any) -> str:
    """The event as Claude Code names a hook's moment: `PreToolUse:Bash`, `SessionStart:startup`,
    `SubagentStop:reviewer`, or the event alone."""
    fields = hook_input if isinstance(hook_input, dict) else {}
    for key in SUBJECT_FIELDS:
        if isinstance(fields.get(key), str) and fields[key]:
            return f"{event}:{fields[key]}"
    return event


def _kept(entry: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in entry.items() if key != "duration_ms"}


def _runs_of(entry: Any) -> Runs:
    """A recorded firing's runs (malformed ones left out: a cassette is untrusted)."""
    if entry is None:
        return []
    return [(run["command"], run) for run in entry["runs"] if isinstance(run, dict) and isinstance(run.get("command"), str)]


def _by_command(effects: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {effect["command"]: effect for effect in effects}


def _drift(name: str, agent: str, path: str, recorded: dict[str, dict[str, Any]], current: dict[str, dict[str, Any]],
           ran: list[str], off: bool) -> str:
    """The first hook whose effect differs, named as a request difference is: where, the field,
    recorded and now."""
    who = "" if agent == "main" else f" of {agent}"
    command = next(c for c in [*recorded, *current] if recorded.get(c) != current.get(c))
    old, new = recorded.get(command, {}), current.get(command, {})
    field = next(key for key in [*EFFECT_FIELDS, *sorted({*old, *new})] if old.get(key) != new.get(key))
    words = EFFECT_FIELDS.get(field, field)
    if command not in ran and command in recorded:
        why = "hooks are off here: disableAllHooks" if off else "it is not among the hooks that run here now"
        change = f"it did not run ({why}); its {words} was recorded as {_shown(old.get(field), command)}"
    else:
        change = f"its {words}: recorded {_shown(old.get(field), command)}, now {_shown(new.get(field), command)}"
    return (f"the {name} hook{who} [{command}] differs from the cassette {path}: {change} "
            "(re-record the cassette if the change is intended)")


def _shown(value: Any, command: str) -> str:
    if value is None:
        return "none"
    if isinstance(value, str):
        value = value.removeprefix(f"[{command}]: ")  # a block's reason repeats the command
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 200 else text[:200] + "..."

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
"""

from __future__ import annotations

import json
import threading
from collections import defaultdict, deque
from typing import Any, Callable

from agent.errors import ReplayMismatch

Runs = list[tuple[str, dict[str, Any]]]


def is_hook_entry(entry: Any) -> bool:
    """Whether a `tool_runs` entry is a hook firing (not a tool run or an approval)."""
    return isinstance(entry, dict) and isinstance(entry.get("hook"), str) and isinstance(entry.get("runs"), list)


def _key(agent: Any, event: str, hook_input: Any) -> tuple:
    call = hook_input.get("tool_use_id") if isinstance(hook_input, dict) else None
    return agent, event, call if isinstance(call, str) else None


class HookRuns:
    """Recording into `sink` (the run's ToolRuns, so firings and tool runs keep their order), or
    replaying the firings among a cassette's `entries`: `answering` (--replay-tools) or checking."""

    def __init__(self, sink: Any = None, entries: list[Any] | None = None, answering: bool = False, path: str = ""):
        self.sink = sink
        self.answering = answering
        self.path = path
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
        runs = run_all() if commands else []
        now, then = effects(runs), effects(recorded_runs)
        if now != then:
            raise ReplayMismatch(_drift(event, agent, self.path, then, now))
        return runs


def _kept(entry: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in entry.items() if key != "duration_ms"}


def _runs_of(entry: Any) -> Runs:
    """A recorded firing's runs (malformed ones left out: a cassette is untrusted)."""
    if entry is None:
        return []
    return [(run["command"], run) for run in entry["runs"] if isinstance(run, dict) and isinstance(run.get("command"), str)]


def _drift(event: str, agent: str, path: str, then: list[dict[str, Any]], now: list[dict[str, Any]]) -> str:
    who = "" if agent == "main" else f" of {agent}"
    for index in range(max(len(then), len(now))):
        old = then[index] if index < len(then) else None
        new = now[index] if index < len(now) else None
        if old != new:
            command = (new or old)["command"]
            field = next((key for key in sorted({*(old or {}), *(new or {})}) if (old or {}).get(key) != (new or {}).get(key)), "")
            return (f"the {event} hook{who} [{command}] differs from the cassette {path}: its {field or 'effect'} "
                    f"was {_shown((old or {}).get(field))}, now {_shown((new or {}).get(field))} (re-record the "
                    "cassette if the change is intended)")
    return f"the {event} hook{who} differs from the cassette {path}"


def _shown(value: Any) -> str:
    if value is None:
        return "nothing"
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 200 else text[:200] + "..."

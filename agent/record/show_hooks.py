"""Where `cassette show` (its text, --json and the HTML report) puts each recorded hook firing
among the requests, and the words it says it in.

A cassette keeps the firings in `tool_runs`, in run order with the tool runs, each with its agent,
event and input (`agent.record.hook_runs`), but not the request it came before or after. They are
put back in place from what they are about:

- a tool call's firings (PreToolUse, PostToolUse, PostToolUseFailure: their input names the call)
  go with that call, before its result or after it;
- SessionStart before the first request, UserPromptSubmit before the main request that carries
  its prompt, SubagentStart before the first request of its agent's next conversation;
- Stop (SubagentStop) after the next reply of its agent that called no tool: the moment it ended;
- anything else (Notification, PreCompact) before the next tool call that ran after it, and what
  has none (SessionEnd) at the end.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Callable

from agent.record.hook_runs import is_hook_entry, moment

# (event, command, a recorded run) -> what it decided in a few words; handed in from above, since
# reading a hook's answer is the hooks package's, which this layer may not import
Decided = Callable[[str, str, dict], str]
BEFORE_RESULT = ("PreToolUse", "PermissionRequest", "Notification")  # a call's firings shown before its result
MAIN = (None, "main")
COMMAND_CHARS = 100


def place_hooks(entries: list[Any], turns: list[dict[str, Any]], prompt_text: Callable[[int], str],
                decided: Decided | None = None) -> list[dict[str, Any]]:
    """Put each firing among `entries` (a cassette's `tool_runs`) in place in `turns` (`view`'s
    requests): a call's `hooks`, a turn's `hooks_before` or `hooks_after`; returns those shown at
    the end. `prompt_text(index)` is the user's text that request `index` ends with ("" for none)."""
    calls = {call["id"]: call for turn in turns for call in turn.get("tool_calls") or [] if isinstance(call.get("id"), str)}
    anchors = _Anchors(turns, prompt_text)
    waiting: list[dict[str, Any]] = []  # firings shown before the next tool call that ran
    at_end: list[dict[str, Any]] = []
    for entry in entries:
        if not is_hook_entry(entry):
            if waiting and entry.get("id") in calls:
                calls[entry["id"]].setdefault("hooks", []).extend(waiting)
                waiting = []
            continue
        shown = firing(entry, decided)
        call_id = shown["input"].get("tool_use_id")
        if isinstance(call_id, str) and call_id in calls:
            calls[call_id].setdefault("hooks", []).append(shown)
        elif shown["event"] in ANCHORED:
            place = anchors.place(shown)
            if place is None:
                at_end += [*waiting, shown]
                waiting = []
            else:
                turns[place[0]].setdefault(place[1], []).append(shown)
        elif shown["event"] == "SessionEnd":
            at_end += [*waiting, shown]
            waiting = []
        else:
            waiting.append(shown)
    return at_end + waiting


ANCHORED = ("SessionStart", "UserPromptSubmit", "SubagentStart", "Stop", "SubagentStop")
LOOKAHEAD = 64  # main requests searched for a prompt's own: a hostile cassette's firings cost little each


class _Anchors:
    """The requests the firings not about a tool call go with, taken in order (module docstring)."""

    def __init__(self, turns: list[dict[str, Any]], prompt_text: Callable[[int], str]):
        self.starts, self.ends = defaultdict(list), defaultdict(list)  # agent -> turns starting / ending a conversation
        for index, turn in enumerate(turns):
            agent = "main" if turn["agent"] in MAIN else turn["agent"]
            if "task" in turn:
                self.starts[agent].append(index)
            if "error" not in turn and not turn.get("tool_calls"):
                self.ends[agent].append(index)
        self.mains = [index for index, turn in enumerate(turns) if turn["agent"] in MAIN]
        self.prompt_text = prompt_text
        self.prompted = 0  # main requests before this one have had their prompt's firing
        self.taken: dict[tuple, int] = defaultdict(int)  # (event, agent) -> how many of its anchors were used

    def place(self, shown: dict[str, Any]) -> tuple[int, str] | None:
        """(request index, `hooks_before` or `hooks_after`) for a firing, or None: at the end."""
        event, agent = shown["event"], shown["agent"]
        if event == "SessionStart":
            return (self.mains or [0])[0], "hooks_before"  # a cassette holds a request at least
        if event == "UserPromptSubmit":
            return self._prompted(shown["input"].get("prompt"))
        anchors, side = (self.starts, "hooks_before") if event == "SubagentStart" else (self.ends, "hooks_after")
        used = self.taken[(event, agent)]
        if used >= len(anchors[agent]):
            return None
        self.taken[(event, agent)] = used + 1
        return anchors[agent][used], side

    def _prompted(self, prompt: Any) -> tuple[int, str] | None:
        """The next main request that ends with `prompt` (the next main request, when none does:
        a blocked prompt sent none)."""
        if self.prompted >= len(self.mains):
            return None
        wanted = prompt.strip() if isinstance(prompt, str) else ""
        window = range(self.prompted, min(len(self.mains), self.prompted + LOOKAHEAD))
        found = next((n for n in window if wanted and wanted in self.prompt_text(self.mains[n])), None)
        if found is None:  # not taken: the next prompt's firing may find its request there
            return self.mains[self.prompted], "hooks_before"
        self.prompted = found + 1
        return self.mains[found], "hooks_before"


def firing(entry: dict[str, Any], decided: Decided | None) -> dict[str, Any]:
    """One recorded firing as `cassette show --json` gives it: event, moment (`PreToolUse:Bash`),
    agent, input, and each command run with its exit code, output and what it decided."""
    event, fields = entry["hook"], entry.get("input") if isinstance(entry.get("input"), dict) else {}
    runs = []
    for run in entry["runs"]:
        if not isinstance(run, dict) or not isinstance(run.get("command"), str):
            continue
        code = run.get("exit_code")
        shown: dict[str, Any] = {"command": run["command"], "exit_code": code}
        shown |= {key: run[key] for key in ("stdout", "stderr") if isinstance(run.get(key), str) and run[key]}
        if run.get("timed_out") is True:
            shown["timed_out"] = True
        shown["decided"] = decided(event, run["command"], run) if decided else outcome(shown)
        runs.append(shown)
    agent = entry.get("agent") if isinstance(entry.get("agent"), str) else "main"
    return {"event": event, "moment": moment(event, fields), "agent": agent, "input": fields, "runs": runs}


def outcome(run: dict[str, Any]) -> str:
    """How a run ended: `exit 2`, `timed out`, `could not run`."""
    if run.get("timed_out"):
        return "timed out"
    code = run.get("exit_code")
    return f"exit {code}" if isinstance(code, int) else "could not run"


def hook_lines(shown: dict[str, Any], indent: int) -> list[str]:
    """A firing for a person: one line with its one command, or a line for the firing and one per
    command: `hook PreToolUse:Bash · main · [guard.sh] exit 2 · blocked: no deleting here`."""
    pad = " " * indent
    head = f"{pad}hook {shown['moment']} · {shown['agent']}"
    runs = [run_line(run) for run in shown["runs"]]
    if len(runs) == 1:
        return [f"{head} · {runs[0]}"]
    return [head + ("" if runs else " · no command ran")] + [f"{pad}  {line}" for line in runs]


def run_line(run: dict[str, Any]) -> str:
    """`[command] exit 2 · blocked: …` (a long command shortened)."""
    command = " ".join(run["command"].split())
    command = command if len(command) <= COMMAND_CHARS else command[:COMMAND_CHARS] + " …"
    ended = outcome(run)
    decided = run.get("decided") or ""
    return f"[{command}] {ended}" + (f" · {decided}" if decided and decided != ended else "")

"""What a cassette must look like, checked once when it is read, so that everything past that
point (a replay, `cassette show`, `--replay-tools`) can rely on each field's type.

A cassette may come from someone else: a field of the wrong type (`headers` as a text, a number
as a body, a list where a mapping belongs, a missing `uri`) is one line naming the field, which
the reader turns into a usage error, never a crash further on.
"""

from __future__ import annotations

from typing import Any

from agent.record.approvals import ANSWERS, DECIDERS, MAX_MESSAGE, updates_problem
from agent.record.deltas import DELTA, delta_problem, message_count
from agent.record.git_status import SETUP_KEY as GIT_STATUS, git_status_problem
from agent.record.git_status import WORKTREE_KEY as WORKTREE_GIT_STATUS, worktree_git_status_problem
from agent.record.mcp_servers import SETUP_KEY as MCP_SERVERS, servers_problem
from agent.record.web_fetches import FETCH_KEY, fetch_problem

_SCALARS = (str, int, float, bool, type(None))
# Every rebuilt request lists its messages (shared with its base, a pointer each): a session of
# 1,000 turns has about a million in all; this allows a few thousand turns and bounds the memory.
MAX_REBUILT_MESSAGES = 20_000_000
_TEXT_FIELDS = ("agent_version", "recorded_against", "provider", "wire", "model")
# the setup's turns of an Agent SDK session that an interrupt stopped (left out of the interactions)
INTERRUPTED_TURNS = "interrupted"


def cassette_problem(data: Any) -> str | None:
    """What is wrong with the shape of a parsed cassette, or None. The message names the place:
    `interaction 2: the request's headers must be a mapping of names to texts`."""
    if not isinstance(data, dict) or not isinstance(data.get("interactions"), list) or not data["interactions"]:
        return "has no interactions (it is not a recorded session)"
    if "version" in data and (not isinstance(data["version"], int) or isinstance(data["version"], bool)):
        return "`version` must be a number"
    counts: list[int | None] = []  # each request's number of messages, for the deltas after it
    for number, item in enumerate(data["interactions"], 1):
        problem = _interaction_problem(item) or _delta_problem(item["request"], counts)
        if problem:
            return f"interaction {number} {problem}" if problem.startswith("is ") else f"interaction {number}: {problem}"
        request = item["request"]
        counts.append(message_count(request.get("body"), request.get(DELTA)))
    if sum(count or 0 for count in counts) > MAX_REBUILT_MESSAGES:  # a small file of deltas could ask for gigabytes
        return (f"has requests that repeat more than {MAX_REBUILT_MESSAGES:,} messages in all "
                "(far more than a session of a few thousand turns)")
    for key, kind in (("setup", dict), ("tool_runs", list)):
        if data.get(key) is not None and not isinstance(data[key], kind):
            return f"`{key}` must be a {'mapping' if kind is dict else 'list'}"
    if any(not isinstance(run, dict) for run in data.get("tool_runs") or []):
        return "each of `tool_runs` must be a mapping"
    for number, run in enumerate(data.get("tool_runs") or [], 1):
        if "hook" in run and "tool" in run:  # read as a tool run too, unchecked, were it let through
            return f"tool run {number} is both a hook firing (`hook`) and a tool run (`tool`)"
        if "hook" in run:
            if problem := _hook_firing_problem(run):
                return f"tool run {number} (a hook firing): {problem}"
        elif FETCH_KEY in run and "tool" not in run:
            if problem := fetch_problem(run):
                return f"tool run {number} (a web fetch): {problem}"
        elif problem := _tool_run_problem(run):
            return f"tool run {number}: {problem}"
    problem = _setup_problem(data.get("setup") or {})
    return f"the setup's {problem}" if problem else None


def _interaction_problem(item: Any) -> str | None:
    if not isinstance(item, dict):
        return "is not a request and its response"
    request, response = item.get("request"), item.get("response")
    if not isinstance(request, dict) or not isinstance(response, dict) or not isinstance(response.get("body") or {}, dict):
        return "is not a request and its response"
    if item.get("agent") is not None and not isinstance(item["agent"], str):
        return "`agent` must be text"
    if item.get("broken") is not None and not isinstance(item["broken"], str):
        return "`broken` must be text (why the reply broke off)"
    for key in ("method", "uri"):
        if not isinstance(request.get(key), str):
            return f"the request's `{key}` must be text"
    status = response.get("status")
    if not (isinstance(status, dict) and isinstance(status.get("code"), int) and not isinstance(status["code"], bool)):
        return "the response's `status` must hold a numeric `code`"
    if not isinstance(status.get("message"), str):
        return "the response's status `message` must be text"
    for side, part in (("request", request), ("response", response)):
        if not _headers_fit(part.get("headers")):
            return f"the {side}'s `headers` must be a mapping of names to texts (vcrpy reads them)"
    for side, value in (("request", request.get("body")), ("response", (response.get("body") or {}).get("string"))):
        if not _body_fits(value) or (side == "response" and value is None):  # a replayed response has a body
            return f"the {side}'s body must be text or a JSON structure"
    return None


def _delta_problem(request: dict, counts: list[int | None]) -> str | None:
    """What is wrong with a request stored as a delta (`agent.record.deltas`), or None."""
    if DELTA not in request:
        return None
    if request.get("body") is not None:
        return f"the request has both a body and a {DELTA}"
    found = request[DELTA]
    problem = delta_problem(found, counts)
    if problem is None and not json_like(found):
        problem = f"its {DELTA} must be JSON data"
    return f"the request's body: {problem}" if problem else None


def _headers_fit(headers: Any) -> bool:
    if not isinstance(headers, dict):
        return False
    return all(isinstance(name, str) and (isinstance(value, str) or (  # vcrpy reads a list's first value
        isinstance(value, list) and value and all(isinstance(item, str) for item in value))) for name, value in headers.items())


def _body_fits(value: Any) -> bool:
    return value is None or isinstance(value, str) or (isinstance(value, (dict, list)) and json_like(value))


def _tool_run_problem(run: Any) -> str | None:
    if not isinstance(run.get("tool"), str):
        return "`tool` must be text"
    for key in ("agent", "id"):
        if run.get(key) is not None and not isinstance(run[key], str):
            return f"`{key}` must be text"
    if not json_like(run.get("input")):
        return "`input` must be JSON data"
    output = run.get("output", "")
    if not (isinstance(output, str) or (isinstance(output, list) and json_like(output))):
        return "`output` must be text or a list of content blocks"
    if not isinstance(run.get("is_error", False), bool):
        return "`is_error` must be true or false"
    return _approval_problem(run)


def _hook_firing_problem(entry: dict) -> str | None:
    """What is wrong with a recorded hook firing (`agent.record.hook_runs`), or None."""
    if not isinstance(entry.get("hook"), str):
        return "`hook` must be the event's name"
    if entry.get("agent") is not None and not isinstance(entry["agent"], str):
        return "`agent` must be text"
    if not isinstance(entry.get("input", {}), dict) or not json_like(entry.get("input", {})):
        return "`input` must be a mapping of JSON data"
    runs = entry.get("runs")
    if not isinstance(runs, list) or not all(isinstance(run, dict) for run in runs):
        return "`runs` must be a list of mappings"
    for run in runs:
        if not isinstance(run.get("command"), str):
            return "each run's `command` must be text"
        code = run.get("exit_code")
        if code is not None and (isinstance(code, bool) or not isinstance(code, int)):
            return "each run's `exit_code` must be a number (or null: it did not finish)"
        if not all(isinstance(run.get(key, ""), str) for key in ("stdout", "stderr")):
            return "each run's `stdout` and `stderr` must be text"
        if not isinstance(run.get("timed_out", False), bool):
            return "each run's `timed_out` must be true or false"
        if "callback" in run and not (isinstance(run["callback"], str) and 0 < len(run["callback"]) <= 100):
            return "a run's `callback` must be the Agent SDK's callback id (a short text)"
    return None


def _approval_problem(run: dict) -> str | None:
    """What is wrong with a tool run's approval (`agent.record.approvals`), or None."""
    if "approval" not in run:
        return "`by` needs an `approval`" if "by" in run else None
    if run["approval"] not in ANSWERS:  # YAML reads a bare `no` as false
        return f"`approval` must be {', '.join(ANSWERS[:-1])} or {ANSWERS[-1]!r} (quoted), not {repr(run['approval'])[:40]}"
    if run.get("by", "user") not in DECIDERS:
        return f"`by` must be {', '.join(DECIDERS[:-1])} or {DECIDERS[-1]}"
    if run["approval"] == "no" and ("output" in run or "is_error" in run):
        return "a refused call (`approval: 'no'`) has no `output`: it did not run"
    granted = run["approval"] != "no"
    for key in ("updated_input", "permission_updates") if not granted else ("message", "interrupt"):
        if key in run:
            return f"`{key}` belongs to {'a refusal' if key in ('message', 'interrupt') else 'an approval'}, " \
                   f"not to `approval: {run['approval']!r}`"
    if "updated_input" in run and not (isinstance(run["updated_input"], dict) and json_like(run["updated_input"])):
        return "`updated_input` must be a mapping of JSON data (the input the call ran with)"
    if "permission_updates" in run and (problem := updates_problem(run["permission_updates"])):
        return f"`permission_updates`: {problem}"
    if "message" in run and not (isinstance(run["message"], str) and len(run["message"]) <= MAX_MESSAGE):
        return f"`message` must be a text of at most {MAX_MESSAGE:,} characters"
    if not isinstance(run.get("interrupt", False), bool):
        return "`interrupt` must be true or false"
    return None


def _setup_problem(setup: dict) -> str | None:
    """What is wrong with a recorded setup's shape, or None (a replay reads every field)."""
    for key in _TEXT_FIELDS:
        if key in setup and not isinstance(setup[key], str):
            return f"`{key}` must be text"
    if not (isinstance(setup.get("prompts", []), list) and all(isinstance(p, str) for p in setup.get("prompts", []))):
        return "`prompts` must be a list of texts"
    if not _interrupted_fits(setup.get(INTERRUPTED_TURNS, [])):
        return f"`{INTERRUPTED_TURNS}` must be a list of turns, each {{after: a number of turns, prompt: text}}"
    for key in ("options", "environment"):
        value = setup.get(key, {})
        if not (isinstance(value, dict) and all(isinstance(name, str) for name in value)):
            return f"`{key}` must be a mapping of names"
    if not all(isinstance(value, (str, int, float, bool)) for value in setup.get("environment", {}).values()):
        return "`environment` values must be texts or numbers"
    problem = _outcome_problem(setup)
    if problem:
        return problem
    if MCP_SERVERS in setup and (problem := servers_problem(setup[MCP_SERVERS])):
        return problem
    if GIT_STATUS in setup and (problem := git_status_problem(setup[GIT_STATUS])):
        return problem
    if WORKTREE_GIT_STATUS in setup and (problem := worktree_git_status_problem(setup[WORKTREE_GIT_STATUS])):
        return problem
    if not json_like(setup):
        return "values must be JSON data (texts, numbers, lists, mappings)"
    return None


def _interrupted_fits(turns: Any) -> bool:
    """Whether an Agent SDK session's interrupted turns (agent.cli.sdk.driver) have their shape."""
    return isinstance(turns, list) and all(
        isinstance(turn, dict) and set(turn) == {"after", "prompt"} and isinstance(turn["prompt"], str)
        and isinstance(turn["after"], int) and not isinstance(turn["after"], bool) and turn["after"] >= 0
        for turn in turns)


def _outcome_problem(setup: dict) -> str | None:
    """What is wrong with how a setup says its run ended (`agent.record.expect`), or None."""
    from agent.record.expect import SUBTYPES

    outcomes = setup.get("outcomes", [])
    if not (isinstance(outcomes, list) and all(
            isinstance(each, dict) and each.get("subtype") in SUBTYPES and isinstance(each.get("answer"), str)
            for each in outcomes)):
        return f"`outcomes` must be a list of {{subtype, answer}} mappings (subtype {', '.join(SUBTYPES)})"
    code = setup.get("exit_code", 0)
    if not (isinstance(code, int) and not isinstance(code, bool) and 0 <= code <= 255):
        return "`exit_code` must be a number from 0 to 255"
    return None


def json_like(value: Any) -> bool:
    """Whether `value` is plain JSON data: mappings with text keys, lists, texts, numbers, booleans
    and nulls (not the dates, bytes or sets YAML can also produce). Walked without recursion."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if not all(isinstance(key, str) for key in item):
                return False
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif not isinstance(item, _SCALARS):
            return False
    return True

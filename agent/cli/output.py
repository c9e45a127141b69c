"""What a run prints besides plain text: the JSON result object (Claude Code's fields, plus ours),
and `--output-format stream-json`'s lines as the run goes."""

from __future__ import annotations

import json
import sys
import threading
import time
import uuid
from typing import Any

from agent import __version__
from agent.cli.visible import json_shown
from agent.conversation import Stop, Usage
from agent.model.limits import context_window
from agent.model.pricing import cost_usd, total_cost_usd

# The Claude Code release whose stream-json lines these are: the Agent SDK reads it from the init
# line (and only warns below 2.0.0); our own version follows it in `agent_version`.
CLAUDE_CODE_VERSION = "2.1.332"
BUDGET_SPENT = "error_max_budget_usd"  # the subtype of a run that --max-budget-usd stopped
# Everything written to stdout in stream-json goes through this lock, one whole line at a time:
# subagents run in threads and the Agent SDK's control channel writes its own frames.
STDOUT_LOCK = threading.Lock()
# the names Claude Code's init line and permission_denials still give tools it has renamed (the
# Agent tool was Task; the model is offered Agent)
LISTED_NAMES = {"Agent": "Task"}


def listed_name(tool_name: str) -> str:
    """A tool's name as Claude Code lists it in the init line and the result's permission_denials."""
    return LISTED_NAMES.get(tool_name, tool_name)


def incomplete_because(result, session) -> str | None:
    """Why the answer printed is not a complete one (None when it is): the turn limit, the budget
    (in Claude Code's words), or a last reply that was cut off, refused or out of context. Any of
    these exits 1."""
    if result.subtype == "error_max_turns":
        return f"stopped after reaching the turn limit ({result.turns} turns; raise --max-turns)"
    if result.subtype == BUDGET_SPENT:
        return f"Exceeded USD budget ({session.budget.limit_text})"
    model = session.model
    if result.stop_reason == Stop.MAX_TOKENS:
        limit = session.client.limits.max_tokens(model)
        return (
            f"the answer was cut off at the output limit ({limit} tokens for {model}) and is incomplete; "
            "raise CLAUDE_CODE_MAX_OUTPUT_TOKENS or ask for less"
        )
    if result.terminal_reason == "prompt_too_long":
        return "the conversation no longer fits the model's context window and compaction is off (DISABLE_AUTO_COMPACT)"
    if result.stop_reason == Stop.REFUSAL:
        return "the model refused to answer"
    if result.stop_reason == Stop.CONTEXT_EXCEEDED:
        window = context_window(model)
        size = f"{window:,} tokens" if window else "its limit"
        return f"the conversation filled {model}'s context window ({size}); start again with less in it"
    return None


def result_object(
    subtype: str, text: str, turns: int, started: float, session=None, stop_reason: str | None = None,
    is_error: bool | None = None, terminal_reason: str | None = None, usage: Usage | None = None,
    errors: list[str] | None = None, structured_output: dict[str, Any] | None = None,
    local_command: str | None = None,
) -> dict[str, Any]:
    """The result of a run, as Claude Code's `--output-format json` has it; `session` is None
    when the run failed before one was built. `stop_reason` is the last reply's; `is_error`
    defaults to "not a success", and an incomplete success (`incomplete_because`) is one too.
    `usage` is the run's by default (a turn's, for one turn of an Agent SDK conversation; the cost
    stays the session's so far, as Claude Code reports it); `errors` what went wrong, in words.
    `structured_output` is the object a --json-schema run answered with; a run the budget
    stopped has no `result`."""
    usage = usage if usage is not None else session.client.usage if session else Usage()
    result: dict[str, Any] = {
        "type": "result",
        "subtype": subtype,
        "is_error": subtype != "success" if is_error is None else is_error,
        "result": None if subtype == BUDGET_SPENT else text,
        "stop_reason": stop_reason,
        "num_turns": turns,
        "duration_ms": int((time.monotonic() - started) * 1000),
        "duration_api_ms": session.client.api_ms if session else 0,  # the Agent SDK's parser requires it
        "usage": {**usage.as_dict(), "requests": usage.requests},
        "total_cost_usd": total_cost_usd(session.client.usage_by_model) if session else None,
        # which Claude Code's result lacks: what each subagent run cost, in start order
        "subagents": session.subagent_runs if session else [],
        "permission_denials": [{**denial, "tool_name": listed_name(denial["tool_name"])}
                               for denial in session.permission_denials] if session else [],
        "modelUsage": model_usage(session) if session else {},
        "uuid": str(uuid.uuid4()),
    }
    if errors is None and subtype == "error_max_turns":
        errors = [f"Reached maximum number of turns ({turns})"]
    elif errors is None and subtype == BUDGET_SPENT and session is not None:
        errors = [f"Reached maximum budget (${session.budget.limit_text})"]
    if structured_output is not None:
        result["structured_output"] = structured_output
    if local_command is not None:  # the turn ran a command here (`/compact`): Claude Code's result names it
        result["local_command"] = local_command
    if errors:
        result["errors"] = errors
    if terminal_reason:
        result["terminal_reason"] = terminal_reason
    if session is not None and session.hooks is not None:  # which Claude Code's result lacks: what hooks did
        result["hooks"] = session.hooks.summary()
    if session is not None:
        result["session_id"] = session.session_id
    return result


def model_usage(session) -> dict[str, dict[str, Any]]:
    """What each model of the run used and cost, in Claude Code's `modelUsage` fields."""
    limits = session.client.limits
    return {model: {"inputTokens": used.input_tokens, "outputTokens": used.output_tokens,
                    "cacheReadInputTokens": used.cache_read_tokens, "cacheCreationInputTokens": used.cache_write_tokens,
                    "webSearchRequests": used.web_search_requests, "costUSD": cost_usd(model, used) or 0,
                    "contextWindow": context_window(model) or 0, "maxOutputTokens": limits.max_tokens(model)}
            for model, used in session.client.usage_by_model.items()}


def print_json(subtype: str, text: str, turns: int, started: float, session=None, **ending) -> None:
    """Print the result object on one line (`ending`: `result_object`'s stop_reason and is_error)."""
    line = json.dumps(result_object(subtype, text, turns, started, session, **ending), ensure_ascii=False)
    print(json_shown(line, sys.stdout), flush=True)


class StreamJson:
    """Prints Claude Code's stream-json lines as a run goes: a `system` `init` line before the
    first request, each `assistant` message, each `user` message carrying tool results (a
    subagent's with the `parent_tool_use_id` of the call that started it), with
    `--include-partial-messages` each piece of text as it streams (`stream_event`), the hooks'
    lines, and the `result` last. Subagents run in threads, so each line is written whole."""

    def __init__(self, partial: bool = False, hook_events: bool = False) -> None:
        self.partial = partial
        self.hook_events = hook_events  # --include-hook-events: every hook's lines, not only SessionStart's
        self.session = None
        self._lock = threading.Lock()
        self._init: dict[str, Any] | None = None  # printed before the first line that is not a prompt's hook line
        self._before_results: list[dict[str, Any]] = []  # PreToolUse notices: printed before the tool results
        self._after_results: list[dict[str, Any]] = []  # PostToolUse notices: printed after them

    @property
    def wants_text(self) -> bool:
        """Whether replies should stream (with --include-partial-messages)."""
        return self.partial

    def start(self, session, agent) -> None:
        """The `system` `init` line: the session, the main agent's model and tools, and each MCP
        server's name and status (`connected`, `failed`: the recording's in a replay with
        --replay-tools). As in Claude Code, the first prompt's UserPromptSubmit hook lines come
        before it (SessionStart's do anyway)."""
        self.session = session
        self._init = {"type": "system", "subtype": "init", "cwd": str(session.workspace.cwd),
                      "session_id": session.session_id, "model": agent.model,
                      "tools": [listed_name(name) for name in agent.tools],
                      "mcp_servers": session.mcp.status() if session.mcp is not None else [],
                      "permissionMode": getattr(agent.policy, "mode", "default"),
                      "slash_commands": [name for name, s in session.skills.items() if s.user_invocable],
                      "apiKeySource": "none" if session.client is None else session.client.provider.key_variable,
                      "claude_code_version": CLAUDE_CODE_VERSION, "agent_version": __version__,
                      "output_style": "default", "agents": list(session.agents),
                      "skills": [name for name, s in session.skills.items() if s.model_invocable],
                      "plugins": [], "uuid": str(uuid.uuid4())}

    def watch_hooks(self, session) -> None:
        """Print the session's hook events as Claude Code does (see `hook`)."""
        self.session = session
        if session.hooks is not None:
            session.hooks.listener = self.hook

    def watch_tasks(self, session) -> None:
        """Print the session's background agents' `task_started` and `task_notification` lines."""
        self.session = session
        session.background.listener = self.task

    def task(self, kind: str, fields: dict[str, Any]) -> None:
        """A background agent launched (`task_started`) or reported on (`task_notification`), in
        Claude Code's fields (the Agent SDK's TaskStartedMessage and TaskNotificationMessage)."""
        self._print({"type": "system", "subtype": kind, **fields, "uuid": str(uuid.uuid4()),
                     "session_id": self.session.session_id})

    def hook(self, kind: str, fields: dict[str, Any]) -> None:
        """One hook event: `hook_started` and `hook_response` lines, SessionStart's always and every
        other event's with --include-hook-events (SessionEnd's never: the run's output is over);
        `informational` lines (a hook's systemMessage, a PreToolUse hook that checked nothing)
        always, a tool hook's notice beside the tool results as Claude Code places it."""
        fields = dict(fields)
        event = fields.pop("hook_event") if kind == "informational" else fields.get("hook_event")
        if event in ("SessionEnd", "SessionStart") and kind == "informational":
            return  # Claude Code shows neither's systemMessage in its stream
        if kind != "informational" and (event == "SessionEnd" or not (self.hook_events or event == "SessionStart")):
            return
        line = {"type": "system", "subtype": kind, **fields, "uuid": str(uuid.uuid4()), "session_id": self.session.session_id}
        if kind == "informational" and fields.get("level") == "notice" and event in ("PreToolUse", "PostToolUse",
                                                                                       "PostToolUseFailure"):
            with self._lock:
                (self._before_results if event == "PreToolUse" else self._after_results).append(line)
            return
        self._print(line, early=kind != "informational" and event in ("SessionStart", "UserPromptSubmit"))

    def message(self, agent, message: dict[str, Any]) -> None:
        """Called by the loop with each message of every conversation."""
        content = message.get("content")
        # the line's uuid is its transcript line's, as in Claude Code: --resume-session-at takes it
        entry = {"uuid": entry_uuid} if (entry_uuid := getattr(agent.transcript, "last_uuid", None)) else {}
        if message.get("role") == "assistant":
            self._print({"type": "assistant", "message": {**message, "model": agent.model}, **self._origin(agent),
                         **entry})
        elif isinstance(content, list) and any(b.get("type") == "tool_result" for b in content if isinstance(b, dict)):
            with self._lock:
                before, self._before_results = self._before_results, []
            for line in before:
                self._print(line)
            self._print({"type": "user", "message": message, **self._origin(agent), **entry,
                         **_todo_result(self.session, agent, content)})
            with self._lock:
                after, self._after_results = self._after_results, []
            for line in after:
                self._print(line)

    def system(self, agent, fields: dict[str, Any]) -> None:
        """A `system` line the loop sends about an agent (`model_fallback`: its model gave way;
        `status` and `compact_boundary`: its conversation was compacted, with the boundary's uuid)."""
        self._print({"type": "system", **fields, "uuid": fields.get("uuid") or str(uuid.uuid4()),
                     "session_id": self.session.session_id})

    def synthetic(self, agent, message: dict[str, Any], entry_uuid: str) -> None:
        """A user message the harness wrote (a compacted conversation's summary), marked as Claude
        Code marks it (`isSynthetic`), with its transcript line's uuid."""
        self._print({"type": "user", "message": message, **self._origin(agent), "uuid": entry_uuid, "isSynthetic": True})

    def mirror(self, path, line: str) -> None:
        """A transcript line as written, for the Agent SDK's SessionStore (--session-mirror)."""
        self._print({"type": "transcript_mirror", "filePath": str(path), "entries": [json.loads(line)]})

    def text(self, agent, text: str) -> None:
        """One piece of an answer as it streams (printed with --include-partial-messages only)."""
        if self.partial:
            self._print({"type": "stream_event", "event": {"type": "content_block_delta", "index": 0,
                                                           "delta": {"type": "text_delta", "text": text}},
                         **self._origin(agent)})

    def result(self, subtype: str, text: str, turns: int, started: float, session=None, **ending) -> None:
        """The last line: the run's result object."""
        self._print(result_object(subtype, text, turns, started, session, **ending))

    def _origin(self, agent) -> dict[str, Any]:
        return {"parent_tool_use_id": agent.parent_tool_use_id, "session_id": self.session.session_id,
                "uuid": str(uuid.uuid4())}

    def _print(self, line: dict[str, Any], early: bool = False) -> None:
        """Write `line`, after the pending `init` line unless the line is `early` (a prompt's hook line)."""
        with self._lock:
            lines = [line] if early or self._init is None else [self._init, line]
            if not early:
                self._init = None
            write_lines(lines)


def _todo_result(session, agent, content: list) -> dict[str, Any]:
    """The `tool_use_result` Claude Code puts on a main-conversation line answering one call of
    the todo tools (what the list became), as {"tool_use_result": ...}; {} otherwise (a
    subagent's line never has one, as in Claude Code)."""
    results = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
    todo = getattr(session, "todo", None)
    if agent.depth > 0 or len(results) != 1 or todo is None:
        return {}
    result = todo.take_result(str(results[0].get("tool_use_id")))
    return {} if result is None else {"tool_use_result": result}


def write_lines(lines: list[dict[str, Any]]) -> None:
    """Write each of `lines` as one line of JSON on stdout, together and flushed."""
    with STDOUT_LOCK:
        for each in lines:
            sys.stdout.write(json_shown(json.dumps(each, ensure_ascii=False), sys.stdout) + "\n")
        sys.stdout.flush()

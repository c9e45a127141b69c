"""A recorded session as a person reads it (`cassette show`), and as a machine does (`--json`).

`view` turns a cassette into one JSON-able object: the setup, then each request as a turn of the
agent that sent it (main or a subagent), with the reply's text, its tool calls and their results,
and the tokens, each recorded hook firing in place among them (`show_hooks`); then the answer and
the totals. `text` prints that object for a person. Replies are
read by the wire format's own code (`Wire`: its `decode`, `error_text`, and `assemble` for a reply
recorded as a stream of server-sent events), which the caller hands in: this layer does not import
the model. Tool results are read from the requests that carried them back to the model, so refused
calls and subagents' reports show as the model saw them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable

from agent.errors import AgentError
from agent.record.bodies import content_text, request_body
from agent.record.cassette_file import CassetteFile, Interaction
from agent.record.mcp_servers import SETUP_KEY as MCP_SERVERS, server_line
from agent.record.show_hooks import BEFORE_RESULT, hook_lines, place_hooks

USAGE_KEYS = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
EVENT_STREAM = "text/event-stream"


@dataclass(frozen=True)
class Wire:
    """What reading a recorded reply needs of its wire format (`agent.model.wire.chat` or
    `.messages`), and reading a recorded hook run of the hooks package, handed in by the command
    line."""

    decode: Callable[[Any], Any]  # a reply body -> a conversation.Reply; AgentError when it holds none
    error_text: Callable[[Any], str]  # an error body -> the provider's message
    assemble: Callable[[str], Any]  # a recorded event stream -> the body a whole reply has; AgentError when it broke off
    # (event, command, a recorded hook run) -> what the hook decided ("blocked: …"), from the hooks package
    hook_decided: Callable[[str, str, dict], str] | None = None


def view(cassette: CassetteFile, wire: Wire) -> dict[str, Any]:
    """The session in `cassette` as one object (see the module docstring)."""
    results = _tool_results(cassette)
    totals = dict.fromkeys(USAGE_KEYS, 0)
    turns, answer = [], None
    for number, interaction in enumerate(cassette.interactions, 1):
        body = request_body(cassette, number - 1)
        body = body if isinstance(body, dict) else {}
        agent = interaction.agent
        turn: dict[str, Any] = {"number": number, "agent": agent, "model": body.get("model"), "status": interaction.status}
        task = _conversation_start(body)
        if task is not None and agent not in (None, "main"):
            turn["task"] = task
        turns.append(turn)
        reply = read_reply(interaction, wire)
        if "error" in reply:
            turn["error"] = reply["error"]
            continue
        for key in USAGE_KEYS:
            totals[key] += reply["usage"].get(key, 0)
        reply["tool_calls"] = [{**call, **results.get((agent, call["id"]), {"result": None})} for call in reply["tool_calls"]]
        turn.update(reply)
        if agent in (None, "main") and not reply["tool_calls"]:
            answer = reply["text"]
    at_end = place_hooks(cassette.tool_runs or [], turns, lambda index: _ending_text(cassette, index), wire.hook_decided)
    return {"cassette": cassette.path, "setup": cassette.setup, "setup_inferred": cassette.inferred,
            "requests": turns, **({"hooks_at_end": at_end} if at_end else {}), "answer": answer,
            "usage": {**totals, "requests": len(turns)}}


def read_reply(interaction: Interaction, wire: Wire) -> dict[str, Any]:
    """The recorded reply as `{text, tool_calls, stop_reason, usage}`, or `{error}` when it is an
    HTTP error (an HTML or text body included) or holds no reply. A reply recorded as a stream is
    put back together first."""
    if interaction.status >= 400:
        return {"error": f"HTTP {interaction.status}: {wire.error_text(interaction.response)}"}
    body = interaction.response
    try:
        if isinstance(body, str) and EVENT_STREAM in _content_type(interaction):
            body = wire.assemble(body)
        reply = wire.decode(body)
    except AgentError as exc:
        return {"error": str(exc)}
    return {"text": reply.text, "stop_reason": reply.stop_reason, "usage": reply.usage.as_dict(),
            "tool_calls": [{"id": call.id, "name": call.name, "input": call.arguments} for call in reply.tool_calls]}


def _content_type(interaction: Interaction) -> str:
    """The recorded response's content type (headers as the cassette's shape allows: a text or a
    list of texts per name, any case), lower-cased; "" when none was recorded."""
    for name, value in interaction.headers.items():
        if name.lower() == "content-type":
            return (value if isinstance(value, str) else value[0]).lower()
    return ""


def _conversation_start(body: dict) -> str | None:
    """The user's text when `body` is the first request of a conversation (no assistant turn yet)."""
    messages = []
    for m in body.get("messages") or []:  # a later request has an assistant turn near its start: stop there
        if isinstance(m, dict) and m.get("role") == "assistant":
            return None
        if isinstance(m, dict) and m.get("role") != "system":
            messages.append(m)
    if not messages:
        return None
    return "\n\n".join(m["content"] for m in messages if isinstance(m.get("content"), str))


def _ending_text(cassette: CassetteFile, index: int) -> str:
    """The text of request `index`'s last message when the user sent it (a prompt), else ""."""
    body = request_body(cassette, index)
    messages = body.get("messages") if isinstance(body, dict) else None
    last = messages[-1] if isinstance(messages, list) and messages else None
    if not isinstance(last, dict) or last.get("role") != "user":
        return ""
    return content_text(last.get("content"))


def _tool_results(cassette: CassetteFile) -> dict[tuple[str | None, str], dict[str, Any]]:
    """Every tool result the requests carried, by the agent that sent them and the call id, on
    either wire: chat's `tool` messages (an error is marked `Error: ` in its text) and the
    Messages API's `tool_result` blocks. (A fork's first request answers its caller's call in its
    own words: the caller's result is the one its own requests carry.)"""
    found: dict[tuple[str | None, str], dict[str, Any]] = {}
    previous: dict[str | None, list] = {}  # each agent's latest messages
    for index in range(len(cassette.interactions)):
        body = request_body(cassette, index)
        messages = body.get("messages") if isinstance(body, dict) else None
        messages = messages if isinstance(messages, list) else []
        before = previous.get(cassette.interactions[index].agent) or []
        # a request that extends its agent's previous one carries no result that one did not: read
        # only its new messages, so a long session is read in linear time
        start = len(before) if before and len(before) <= len(messages) and messages[len(before) - 1] is before[-1] else 0
        agent = cassette.interactions[index].agent
        previous[agent] = messages
        for message in messages[start:]:
            if not isinstance(message, dict):
                continue
            if message.get("role") == "tool" and message.get("tool_call_id"):
                content = content_text(message.get("content"), joiner="")
                found[(agent, message["tool_call_id"])] = {"result": content, "is_error": content.startswith("Error: ")}
            elif isinstance(message.get("content"), list):
                for block in message["content"]:
                    if isinstance(block, dict) and block.get("type") == "tool_result" and block.get("tool_use_id"):
                        found[(agent, block["tool_use_id"])] = {"result": content_text(block.get("content"), joiner=""),
                                                                "is_error": bool(block.get("is_error"))}
    return found


# --- for a person -----------------------------------------------------------------------------------

def text(session: dict[str, Any]) -> str:
    """The object `view` returns, as lines a person reads top to bottom."""
    setup = session["setup"]
    lines = [f"cassette  {session['cassette']}", f"setup     {setup_line(setup, session['setup_inferred'])}"]
    for prompt in setup.get("prompts") or []:
        lines.append(_labelled("prompt", prompt))
    extras = [f"{flag} {json.dumps(value, ensure_ascii=False)}" for flag, value in (setup.get("options") or {}).items()]
    extras += [f"{name}={value}" for name, value in (setup.get("environment") or {}).items()]
    if extras:
        lines.append("options   " + "; ".join(extras))
    lines.extend(_labelled("mcp", server_line(server)) for server in setup.get(MCP_SERVERS) or [])
    for turn in session["requests"]:
        lines.append("")
        lines.extend(line for shown in turn.get("hooks_before", []) for line in hook_lines(shown, 0))
        head = [f"request {turn['number']}", agent_name(turn["agent"])]
        if turn.get("error"):
            lines.append(" · ".join(head + [turn["error"]]))
            lines.extend(line for shown in turn.get("hooks_after", []) for line in hook_lines(shown, 0))
            continue
        lines.append(" · ".join(head + [tokens(turn["usage"])]))
        if turn.get("task"):
            lines.append(_labelled("  task", turn["task"], width=0))
        if turn.get("text"):
            lines.extend("  " + line for line in _shortened(turn["text"], 12))
        for call in turn["tool_calls"]:
            lines.append(f"  → {call['name']}({input_line(call['input'])})")
            hooks = call.get("hooks", [])
            lines.extend(line for shown in hooks if shown["event"] in BEFORE_RESULT for line in hook_lines(shown, 4))
            if call["result"] is None:
                lines.append("    ← (no result recorded: the run ended here)")
            else:
                shown = _shortened(call["result"], 3) or [""]
                lines.append(f"    ← {'error: ' if call.get('is_error') else ''}{shown[0]}")
                lines.extend("      " + line for line in shown[1:])
            lines.extend(line for shown in hooks if shown["event"] not in BEFORE_RESULT for line in hook_lines(shown, 4))
        lines.extend(line for shown in turn.get("hooks_after", []) for line in hook_lines(shown, 0))
    lines.append("")
    lines.extend(line for shown in session.get("hooks_at_end", []) for line in hook_lines(shown, 0))
    if session["answer"] is not None:
        lines.append(_labelled("answer", session["answer"]))
    lines.append(f"total     {session['usage']['requests']} requests · {tokens(session['usage'])}")
    return "\n".join(lines)


def setup_line(setup: dict[str, Any], inferred: bool = False) -> str:
    """`openrouter (chat wire), model m, recorded by agent 0.1.0 against the scripted model (...)`."""
    where = f"{setup.get('provider', '?')} ({setup.get('wire', '?')} wire), model {setup.get('model', '?')}"
    if inferred:
        return f"{where}; no setup recorded (a cassette of another tool): read from its first request"
    against = setup.get("recorded_against", "?")
    if against == "scripted model":
        against = "the scripted model (its replies were written by a test, not by a model)"
    else:
        against = f"a {against}"
    return f"{where}, recorded by agent {setup.get('agent_version', '?')} against {against}"


def agent_name(agent: str | None) -> str:
    """`main`, `subagent Explore`, or `agent not recorded` (a cassette of another tool)."""
    if agent is None:
        return "agent not recorded"
    return agent if agent == "main" else f"subagent {agent}"


def tokens(usage: dict[str, int]) -> str:
    """`1,569 in · 12 out · 40 cache read tokens`."""
    parts = [f"{usage['input_tokens']:,} in", f"{usage['output_tokens']:,} out"]
    if usage.get("cache_read_input_tokens"):
        parts.append(f"{usage['cache_read_input_tokens']:,} cache read")
    if usage.get("cache_creation_input_tokens"):
        parts.append(f"{usage['cache_creation_input_tokens']:,} cache written")
    return " · ".join(parts) + " tokens"


def _labelled(label: str, value: str, width: int = 10) -> str:
    shown = _shortened(value, 6)
    first = f"{label:<{width}}" if width else f"{label}: "
    return "\n".join([first + (shown[0] if shown else "")] + [(" " * len(first) + line).rstrip() for line in shown[1:]])


def _shortened(value: str, max_lines: int, max_width: int = 160) -> list[str]:
    lines = value.strip("\n").splitlines()
    shown = [line.rstrip() if len(line) <= max_width else line[:max_width] + " …" for line in lines[:max_lines]]
    if len(lines) > max_lines:
        more = len(lines) - max_lines
        shown.append(f"… ({more} more line{'s' if more > 1 else ''})")
    return shown


def input_line(arguments: Any) -> str:
    """A tool call's input on one line: `file_path="a.txt", limit=5`, long values cut."""
    if not isinstance(arguments, dict):
        return json.dumps(arguments, ensure_ascii=False)
    parts = []
    for key, value in arguments.items():
        shown = json.dumps(value, ensure_ascii=False)
        parts.append(f"{key}={shown if len(shown) <= 80 else shown[:80] + ' …'}")
    return ", ".join(parts)

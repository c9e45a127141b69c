"""A scripted model: a small local HTTP server that speaks both wire formats.

Tests script its replies in a provider-neutral way (`text(...)`, `call(...)`, `fail(...)`,
`raw(...)`, or a function of the request; `stopped(...)` and `thinking(...)` add a stop reason or
reasoning to a reply); the server answers `/chat/completions` in OpenAI chat format (as OpenRouter
says it) and `/v1/messages` in Anthropic format. Like the CodeCrafters proxy, it rejects chat
requests for models other than `anthropic/claude-haiku*`. `make record` records cassettes against
it when no real key is set.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable


class _QuietServer(ThreadingHTTPServer):
    """A server that says nothing when a client went away mid-reply (a run that gave up on a slow
    reply, or was interrupted): socketserver would print a traceback to the stderr of whichever
    test of the worker is running then, and that test reads its stderr."""

    def handle_error(self, request, client_address) -> None:
        import sys

        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


@dataclass
class Call:
    name: str
    arguments: dict[str, Any]
    raw_arguments: str | None = None  # sent verbatim on the chat wire (to script invalid JSON)


@dataclass
class ScriptedReply:
    text: str = ""
    calls: list[Call] = field(default_factory=list)
    delay_s: float = 0.0
    status: int = 200  # an error reply when not 200, with `text` as the provider's message
    headers: dict[str, str] = field(default_factory=dict)  # extra response headers, e.g. retry-after
    body: Any = None  # sent as is instead of a reply built from the fields above (str verbatim, else JSON)
    content_type: str = "application/json"
    stop: str | None = None  # an Anthropic stop reason other than end_turn / tool_use
    thought: str = ""  # reasoning sent with the reply: signed and redacted thinking, or reasoning_details
    broken: bool = False  # when streamed, the stream stops half way (the connection drops)
    usage: tuple[int, int] | None = None  # (input, output) tokens reported instead of the estimate


# How the chat wire (OpenRouter) says each Anthropic stop reason: finish_reason, native_finish_reason.
CHAT_STOPS = {
    "max_tokens": ("length", "max_tokens"),
    "refusal": ("content_filter", "refusal"),
    "pause_turn": ("stop", "pause_turn"),
    "model_context_window_exceeded": ("length", "model_context_window_exceeded"),
}


def stopped(reply: ScriptedReply, stop: str) -> ScriptedReply:
    """`reply` ending for `stop` (a key of CHAT_STOPS): a refusal's text goes in the chat
    message's `refusal` field, as OpenAI sends it."""
    reply.stop = stop
    return reply


def thinking(reply: ScriptedReply, thought: str) -> ScriptedReply:
    """`reply` preceded by reasoning: a signed thinking block and a redacted one (Messages API), or
    `reasoning` and two `reasoning_details` (chat)."""
    reply.thought = thought
    return reply


def costing(reply: ScriptedReply, input_tokens: int, output_tokens: int) -> ScriptedReply:
    """`reply` reporting this usage, so a test can script what a run spends."""
    reply.usage = (input_tokens, output_tokens)
    return reply


def text(value: str, delay_s: float = 0.0) -> ScriptedReply:
    """A reply with only text: the conversation ends."""
    return ScriptedReply(text=value, delay_s=delay_s)


def call(name: str, _text: str = "", **arguments: Any) -> ScriptedReply:
    """A reply with one tool call (and optional text before it)."""
    return ScriptedReply(text=_text, calls=[Call(name, arguments)])


def calls(*tool_calls: Call, text: str = "") -> ScriptedReply:
    """A reply with several tool calls."""
    return ScriptedReply(text=text, calls=list(tool_calls))


def fail(status: int, message: str, headers: dict[str, str] | None = None) -> ScriptedReply:
    """An HTTP error reply carrying the provider's error message (and extra response `headers`)."""
    return ScriptedReply(text=message, status=status, headers=dict(headers or {}))


def raw(body: Any, status: int = 200, content_type: str = "application/json", headers: dict[str, str] | None = None) -> ScriptedReply:
    """A reply whose body is sent as given, whatever the wire: a string verbatim (to script a body
    that is not JSON), anything else as JSON (to script a malformed or error-carrying reply)."""
    return ScriptedReply(status=status, headers=dict(headers or {}), body=body, content_type=content_type)


def raw_call(name: str, raw_arguments: str) -> ScriptedReply:
    """A tool call whose arguments are sent as the given (possibly invalid) JSON text."""
    return ScriptedReply(calls=[Call(name, {}, raw_arguments)])


class Request:
    """A request the scripted model received, with helpers that read either wire format."""

    def __init__(self, path: str, body: dict[str, Any]):
        self.path = path
        self.body = body
        self.raw = json.dumps(body)

    @property
    def wire(self) -> str:
        return "chat" if self.path.endswith("chat/completions") else "messages"

    @property
    def messages(self) -> list[dict[str, Any]]:
        return [m for m in self.body.get("messages", []) if m.get("role") != "system"]

    def tool_results(self) -> list[str]:
        """The texts of the tool results answering the latest assistant turn."""
        if self.wire == "chat":
            results = []
            for message in reversed(self.messages):
                if message["role"] != "tool":
                    break
                results.append(message["content"])
            return list(reversed(results))
        last = self.messages[-1]
        if isinstance(last["content"], list):
            return [b["content"] for b in last["content"] if b.get("type") == "tool_result"]
        return []

    def reports(self) -> list[str]:
        """tool_results() as the subagents wrote them: a result that hands a report back under the
        hand-back header (agent.subagents.results) reads as its notes, then the report's lines without
        their indent (escapes kept), then what follows it (the agentId line, usage); others as they are."""
        return [unframed(result) for result in self.tool_results()]

    def first_user_text(self) -> str:
        content = self.messages[0]["content"]
        return content if isinstance(content, str) else json.dumps(content)


Script = Callable[[Request], ScriptedReply]
HANDBACK = "[Subagent hand-back] "


def unframed(result: str) -> str:
    """A tool result without the hand-back header: the notes above it (blank lines dropped), the
    text before the header on its line, the indented report lines, the lines after them."""
    lines = result.split("\n")
    at = next((i for i, line in enumerate(lines) if HANDBACK in line), None)
    if at is None:
        return result
    end = next((i for i in range(at + 1, len(lines)) if not lines[i].startswith("  ")), len(lines))
    notes = [line.removeprefix("  ") for line in lines[:at] if line.strip()]
    report = [line[2:] for line in lines[at + 1:end]]
    prefix = lines[at][:lines[at].index(HANDBACK)]
    return "\n".join(notes + [prefix + (report[0] if report else "")] + report[1:] + lines[end:])


class ScriptedModel:
    """The server. `script(...)` queues replies, answered in order; `route(key, ...)` queues replies
    for the conversations whose first user message contains `key` (for concurrent subagents)."""

    def __init__(self) -> None:
        self.requests: list[Request] = []
        self.allowed_model_prefix = "anthropic/claude-haiku"  # the tester proxy's rule on the chat path
        self._queue: list[ScriptedReply | Script] = []
        self._routes: dict[str, list[ScriptedReply | Script]] = {}
        self._lock = threading.Lock()
        self._ids = 0
        self._server = _QuietServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def script(self, *replies: ScriptedReply | Script) -> None:
        self._queue.extend(replies)

    def route(self, key: str, *replies: ScriptedReply | Script) -> None:
        self._routes.setdefault(key, []).extend(replies)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _next(self, request: Request) -> ScriptedReply | None:
        with self._lock:
            self.requests.append(request)
            first = request.first_user_text()
            queue = next((q for key, q in self._routes.items() if key in first), self._queue)
            if not queue:
                return None
            reply = queue.pop(0)
        return reply(request) if callable(reply) else reply

    def _new_id(self) -> int:
        with self._lock:
            self._ids += 1
            return self._ids

    def _handler(self):
        model = self

        class Handler(BaseHTTPRequestHandler):
            # how a cassette knows its replies were scripted here, not written by a model
            server_version = "scripted-model"
            sys_version = ""

            def log_message(self, *args):  # keep test output quiet
                pass

            def do_POST(self):
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if self.path.endswith("/chat/completions"):
                    name = str(body.get("model") or "")
                    if not name.startswith(model.allowed_model_prefix):
                        message = f"{name} is not supported. Allowed: anthropic/claude-haiku-4.5"
                        return self._send(400, {"error": {"message": message, "code": 400}})
                elif not self.path.endswith("/v1/messages"):
                    return self._send(404, {"error": {"message": f"Endpoint not found: {self.path}"}})
                request = Request(self.path, body)
                reply = model._next(request)
                if reply is None:
                    number = len(model.requests)
                    return self._send(500, {"error": {"message": f"scripted model: nothing scripted for request {number}"}})
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                if reply.body is not None:
                    return self._send(reply.status, reply.body, reply.headers, reply.content_type)
                if reply.status != 200:
                    error = {"message": reply.text, "code": reply.status}
                    if request.wire == "messages":
                        payload = {"type": "error", "error": {"type": "api_error", "message": reply.text}}
                        return self._send(reply.status, payload, reply.headers)
                    return self._send(reply.status, {"error": error}, reply.headers)
                encode = _chat_reply if request.wire == "chat" else _messages_reply
                reply_body = encode(model, body, reply)
                if body.get("stream"):
                    events = _chat_events(reply_body) if request.wire == "chat" else _messages_events(reply_body)
                    if reply.broken:
                        events = events[:len(events) // 2]
                    return self._send(200, "".join(events), reply.headers, "text/event-stream")
                self._send(200, reply_body, reply.headers)

            def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None, content_type: str = "application/json") -> None:
                data = (payload if isinstance(payload, str) else json.dumps(payload)).encode()
                self.send_response(status)
                self.send_header("content-type", content_type)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler


def _usage(body: dict, reply: ScriptedReply) -> tuple[int, int]:
    if reply.usage is not None:
        return reply.usage
    produced = reply.text + "".join(json.dumps(c.arguments) for c in reply.calls)
    return len(json.dumps(body)) // 4, max(1, len(produced) // 4) + _reasoning_tokens(reply)


def _reasoning_tokens(reply: ScriptedReply) -> int:
    return len(reply.thought) // 4 + 1 if reply.thought else 0


def _chat_reply(model: ScriptedModel, body: dict, reply: ScriptedReply) -> dict:
    number = model._new_id()
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    finish, native = CHAT_STOPS.get(reply.stop or "", ("tool_calls" if reply.calls else "stop", None))
    if reply.stop == "refusal":
        message.update(content=None, refusal=reply.text)
    if reply.thought:
        message["reasoning"] = reply.thought
        message["reasoning_details"] = [
            {"type": "reasoning.text", "text": reply.thought, "signature": f"sig-{number}", "format": "anthropic-claude-v1", "index": 0},
            {"type": "reasoning.encrypted", "data": f"redacted-{number}", "format": "anthropic-claude-v1", "index": 1},
        ]
    if reply.calls:
        message["tool_calls"] = [
            {
                "id": f"call_{number}_{i}",
                "type": "function",
                "function": {"name": c.name, "arguments": c.raw_arguments if c.raw_arguments is not None else json.dumps(c.arguments)},
            }
            for i, c in enumerate(reply.calls)
        ]
    prompt, completion = _usage(body, reply)
    choice: dict[str, Any] = {"index": 0, "finish_reason": finish, "message": message}
    if native:
        choice["native_finish_reason"] = native
    usage: dict[str, Any] = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
    if reply.thought:
        usage["completion_tokens_details"] = {"reasoning_tokens": _reasoning_tokens(reply)}
    return {
        "id": f"gen-{number}",
        "object": "chat.completion",
        "model": body.get("model"),
        "choices": [choice],
        "usage": usage,
    }


def _messages_reply(model: ScriptedModel, body: dict, reply: ScriptedReply) -> dict:
    number = model._new_id()
    content: list[dict[str, Any]] = []
    if reply.thought:
        content.append({"type": "thinking", "thinking": reply.thought, "signature": f"sig-{number}"})
        content.append({"type": "redacted_thinking", "data": f"redacted-{number}"})
    if reply.text:
        content.append({"type": "text", "text": reply.text})
    for i, c in enumerate(reply.calls):
        arguments = c.arguments if c.raw_arguments is None else _lenient(c.raw_arguments)
        content.append({"type": "tool_use", "id": f"toolu_{number}_{i}", "name": c.name, "input": arguments})
    prompt, completion = _usage(body, reply)
    return {
        "id": f"msg_{number}",
        "type": "message",
        "role": "assistant",
        "model": body.get("model"),
        "content": content,
        "stop_reason": reply.stop or ("tool_use" if reply.calls else "end_turn"),
        "usage": {"input_tokens": prompt, "output_tokens": completion},
    }


def _lenient(raw: str) -> Any:
    # The Messages API always carries an object; invalid JSON can only be scripted on the chat wire.
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def broken(reply: ScriptedReply) -> ScriptedReply:
    """`reply`, streamed only half way before the connection drops."""
    reply.broken = True
    return reply


# --- streaming: a reply body taken apart into the events a provider streams ---------------------------

def _pieces(text: str, size: int = 12) -> list[str]:
    return [text[i:i + size] for i in range(0, len(text), size)] or [""]


def _sse(data: Any, event: str | None = None) -> str:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {data if isinstance(data, str) else json.dumps(data)}\n\n"


def _messages_events(body: dict) -> list[str]:
    start = {**body, "content": [], "stop_reason": None, "usage": {"input_tokens": body["usage"]["input_tokens"], "output_tokens": 1}}
    events = [_sse({"type": "message_start", "message": start}, "message_start")]
    for index, block in enumerate(body["content"]):
        empty = {"text": {"type": "text", "text": ""}, "thinking": {"type": "thinking", "thinking": ""},
                 "tool_use": {**block, "input": {}}}.get(block["type"], block)
        events.append(_sse({"type": "content_block_start", "index": index, "content_block": empty}, "content_block_start"))
        if block["type"] == "text":
            deltas = [{"type": "text_delta", "text": piece} for piece in _pieces(block["text"])]
        elif block["type"] == "thinking":
            deltas = [{"type": "thinking_delta", "thinking": piece} for piece in _pieces(block["thinking"])]
            deltas.append({"type": "signature_delta", "signature": block["signature"]})
        elif block["type"] == "tool_use":
            text = json.dumps(block["input"]) if not isinstance(block["input"], str) else block["input"]
            deltas = [{"type": "input_json_delta", "partial_json": piece} for piece in _pieces(text, 7)]
        else:
            deltas = []
        events += [_sse({"type": "content_block_delta", "index": index, "delta": d}, "content_block_delta") for d in deltas]
        events.append(_sse({"type": "content_block_stop", "index": index}, "content_block_stop"))
    events.append(_sse({"type": "message_delta", "delta": {"stop_reason": body["stop_reason"], "stop_sequence": None},
                        "usage": {"output_tokens": body["usage"]["output_tokens"]}}, "message_delta"))
    events.append(_sse({"type": "message_stop"}, "message_stop"))
    return events


def _chat_events(body: dict) -> list[str]:
    choice, message = body["choices"][0], body["choices"][0]["message"]
    head = {key: body[key] for key in ("id", "object", "model")}
    head["object"] = "chat.completion.chunk"

    def chunk(delta: dict, **extra) -> str:
        return _sse({**head, "choices": [{"index": 0, "delta": delta, **extra}]})

    events = [": OPENROUTER PROCESSING\n\n", chunk({"role": "assistant", "content": ""})]
    events += [chunk({"content": piece}) for piece in _pieces(message.get("content") or "") if piece]
    if message.get("reasoning"):
        events += [chunk({"reasoning": piece}) for piece in _pieces(message["reasoning"])]
    for detail in message.get("reasoning_details") or []:
        field = "text" if "text" in detail else "data"
        for n, piece in enumerate(_pieces(detail[field])):
            extra = {k: v for k, v in detail.items() if k != field} if n == 0 else {"index": detail.get("index")}
            events.append(chunk({"reasoning_details": [{**extra, field: piece}]}))
    if message.get("refusal"):
        events.append(chunk({"refusal": message["refusal"]}))
    for index, call in enumerate(message.get("tool_calls") or []):
        events.append(chunk({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                             "function": {"name": call["function"]["name"], "arguments": ""}}]}))
        events += [chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
                   for piece in _pieces(call["function"]["arguments"], 7)]
    finish = {k: choice[k] for k in ("finish_reason", "native_finish_reason") if k in choice}
    events.append(chunk({}, **finish))
    events.append(_sse({**head, "choices": [], "usage": body["usage"]}))
    events.append(_sse("[DONE]"))
    return events

"""A provider built to hurt, on both wire formats: a reply trickled a byte at a time (headers, a
JSON body, an event stream) is given up on at API_TIMEOUT_MS, retried, then named in one line; a
redirect to another port is refused, so no key header reaches it; a 100,000-deep reply is one clear
line; NaN or Infinity in a tool input is a tool error the model sees, and nothing runs.

Every provider here is a loopback server that stops by itself; every test has a hard time bound.
"""

from __future__ import annotations

import io
import json
import signal
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from agent import cli
from agent.model import retry
from scripted_model import call, raw, raw_call, text

PROVIDERS = ["openrouter", "anthropic"]
KEYS = {"openrouter": "OPENROUTER_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
BASES = {"openrouter": "OPENROUTER_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL"}
KEY = "sk-hostile-test-key-0123456789"
STREAMING = ["--output-format", "stream-json", "--verbose", "--include-partial-messages"]


@pytest.fixture(autouse=True)
def time_bound():
    """A regression that hangs fails here after 20 s instead of holding the suite."""
    def expired(signum, frame):
        raise TimeoutError("the test ran past its 20 s bound")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


@pytest.fixture(autouse=True)
def no_waits(monkeypatch):
    monkeypatch.setattr(retry, "sleep", lambda seconds: None)


@pytest.fixture
def user(tmp_path, monkeypatch):
    """A user's environment with no provider configured yet, tools allowed (as the tester runs)."""
    for variable in ("OPENROUTER_API_KEY", "OPENROUTER_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
                     "AGENT_PROVIDER", "AGENT_MODEL", "API_TIMEOUT_MS", "AGENT_MAX_RETRIES", "HTTP_PROXY",
                     "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(variable, raising=False)
    home, workspace = tmp_path / "home", tmp_path / "workspace"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"defaultMode": "bypassPermissions"}}))
    workspace.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(workspace)
    return workspace


def use(monkeypatch, provider: str, base: str) -> None:
    monkeypatch.setenv("AGENT_PROVIDER", provider)
    monkeypatch.setenv(KEYS[provider], KEY)
    monkeypatch.setenv(BASES[provider], base + ("/api/v1/" if provider == "openrouter" else ""))


def run(capsys, *argv: str) -> tuple[int, str, str, float]:
    capsys.readouterr()
    started = time.monotonic()
    code = cli.main(list(argv), stdin=io.BytesIO(b""))
    out, err = capsys.readouterr()
    return code, out, err, time.monotonic() - started


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("error:")]


# --- a reply that trickles ------------------------------------------------------------------------

REPLIES = {
    "openrouter": {"id": "gen-1", "object": "chat.completion", "model": "anthropic/claude-haiku-4.5",
                   "choices": [{"index": 0, "finish_reason": "stop",
                                "message": {"role": "assistant", "content": "This answer arrives far too slowly."}}]},
    "anthropic": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-haiku-4-5",
                  "stop_reason": "end_turn", "content": [{"type": "text", "text": "This answer arrives far too slowly."}]},
}
EVENTS = {
    "openrouter": ('data: {"choices": [{"index": 0, "delta": {"content": "This answer arrives far too slowly."}}]}\n\n'
                   'data: {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}\n\ndata: [DONE]\n\n'),
    "anthropic": ('event: message_start\ndata: {"type": "message_start", "message": {"role": "assistant", "content": []}}\n\n'
                  'event: content_block_start\ndata: {"type": "content_block_start", "index": 0, '
                  '"content_block": {"type": "text", "text": "This answer arrives far too slowly."}}\n\n'
                  'event: message_stop\ndata: {"type": "message_stop"}\n\n'),
}


def response(body: str, content_type: str) -> tuple[bytes, bytes]:
    data = body.encode()
    head = f"HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ncontent-length: {len(data)}\r\n\r\n".encode()
    return head, data


class Trickler:
    """A provider on 127.0.0.1 that reads each request, sends `sent_at_once`, then the rest of its
    response one byte every `pause_s`. It stops by itself after `limit_s`, or when closed; a
    connection the client has given up on ends its loop at the next byte."""

    def __init__(self, sent_at_once: bytes, trickled: bytes, pause_s: float = 0.2, limit_s: float = 15.0):
        self.sent_at_once, self.trickled, self.pause_s = sent_at_once, trickled, pause_s
        self.ends = time.monotonic() + limit_s
        self.connections = 0
        self.closed = threading.Event()
        self._server = socket.create_server(("127.0.0.1", 0))
        self._server.settimeout(0.1)
        threading.Thread(target=self._serve, daemon=True).start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self._server.getsockname()[1]}"

    def close(self) -> None:
        self.closed.set()

    def _running(self) -> bool:
        return not self.closed.is_set() and time.monotonic() < self.ends

    def _serve(self) -> None:
        with self._server:
            while self._running():
                try:
                    connection, _ = self._server.accept()
                except OSError:  # nothing yet: look at the clock again
                    continue
                self.connections += 1
                threading.Thread(target=self._answer, args=(connection,), daemon=True).start()

    def _answer(self, connection: socket.socket) -> None:
        with connection:
            connection.settimeout(2)
            try:
                request = b""
                while b"\r\n\r\n" not in request:
                    request += connection.recv(65536) or b"\r\n\r\n"
                head, _, body = request.partition(b"\r\n\r\n")
                length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), 0)
                while len(body) < length:
                    body += connection.recv(65536) or b" " * length
                connection.sendall(self.sent_at_once)
                for byte in self.trickled:
                    if not self._running():
                        return
                    connection.sendall(bytes([byte]))
                    time.sleep(self.pause_s)
            except OSError:  # the client gave up on this one
                return


@pytest.fixture
def trickling():
    servers: list[Trickler] = []

    def start(sent_at_once: bytes, trickled: bytes) -> Trickler:
        servers.append(Trickler(sent_at_once, trickled))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("what", ["headers", "json body", "event stream"])
def test_a_trickled_reply_is_given_up_on_at_the_deadline_retried_then_named(provider, what, user, trickling,
                                                                             monkeypatch, capsys):
    if what == "event stream":
        head, body = response(EVENTS[provider], "text/event-stream")
    else:
        head, body = response(json.dumps(REPLIES[provider]), "application/json")
    server = trickling(b"", head + body) if what == "headers" else trickling(head, body)
    use(monkeypatch, provider, server.base)
    monkeypatch.setenv("API_TIMEOUT_MS", "600")
    monkeypatch.setenv("AGENT_MAX_RETRIES", "1")
    code, out, err, took = run(capsys, "-p", "hi", *(STREAMING if what == "event stream" else []))
    assert code == 1
    assert error_lines(err) == [f"error: {provider} did not finish answering within API_TIMEOUT_MS (0.6 s) after 1 retry"]
    assert "after a timeout (attempt 1/1)" in err
    assert "Traceback" not in err and "This answer" not in out
    assert server.connections == 2
    assert took < 4.0  # two attempts of 0.6 s each; trickled whole, the reply would take 30 s or more


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_reply_over_64_mb_is_not_read_to_the_end(provider, user, trickling, monkeypatch, capsys):
    size = 64 * 1024 * 1024 + 1
    head = f"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {size}\r\n\r\n".encode()
    server = trickling(head + b" " * size, b"")
    use(monkeypatch, provider, server.base)
    code, out, err, _ = run(capsys, "-p", "hi")
    assert (code, out) == (1, "")
    assert error_lines(err) == [f"error: {provider}'s reply is larger than 64 MB: it was not read to the end"]
    assert server.connections == 1  # the same every time: not retried


# --- a redirect -------------------------------------------------------------------------------------

class HeaderRecorder:
    """A server on 127.0.0.1 that records the headers of every request it receives and answers 404."""

    def __init__(self) -> None:
        self.received: list[dict[str, str]] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                recorder.received.append({k.lower(): v for k, v in self.headers.items()})
                self.send_response(404)
                self.send_header("content-length", "0")
                self.end_headers()

            do_GET = do_POST

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("status", [302, 307, 308])
def test_a_redirect_to_another_port_is_refused_and_no_key_follows_it(provider, status, user, model, monkeypatch,
                                                                     capsys):
    elsewhere = HeaderRecorder()
    try:
        target = elsewhere.base + "/api/v1/chat/completions"
        model.script(raw({"moved": True}, status=status, headers={"location": target}))
        use(monkeypatch, provider, model.base)
        code, out, err, _ = run(capsys, "-p", "hi")
    finally:
        elsewhere.close()
    assert (code, out) == (1, "")
    assert error_lines(err) == [
        f"error: {provider} redirected the request (HTTP {status} to {target}); model requests do not follow "
        "redirects, so the key goes nowhere else: use the final address as the base URL"]
    assert elsewhere.received == []
    assert KEY not in err and len(model.requests) == 1  # not retried: a redirect says the same every time


# --- a reply nested 100,000 deep ------------------------------------------------------------------

DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("streamed", [False, True], ids=["json", "stream"])
def test_a_reply_nested_100000_deep_is_one_clear_line(provider, streamed, user, model, monkeypatch, capsys):
    if streamed:
        model.script(raw(f"data: {DEEP}\n\n", content_type="text/event-stream"))
    else:
        model.script(raw(DEEP))
    use(monkeypatch, provider, model.base)
    code, out, err, _ = run(capsys, "-p", "hi", *(STREAMING if streamed else []))
    what = "an event of the provider's stream" if streamed and provider == "anthropic" else (
        "a chunk of the provider's stream" if streamed else f"{provider}'s reply")
    assert code == 1
    assert error_lines(err) == [f"error: {what} nests deeper than 100 levels"]
    assert "RecursionError" not in err and "internal error" not in err and len(model.requests) == 1


def test_tool_arguments_nested_too_deep_are_a_tool_error_on_the_chat_wire(user, model, monkeypatch, capsys):
    model.script(raw_call("Bash", '{"command": "touch ran.txt", "x": ' + DEEP + "}"), text("Understood."))
    use(monkeypatch, "openrouter", model.base)
    code, out, err, _ = run(capsys, "-p", "hi")
    assert (code, out) == (0, "Understood.\n")
    assert model.requests[1].tool_results() == [
        "Error: Bash: the tool input nests deeper than 100 levels; send a flatter JSON object"]
    assert not (user / "ran.txt").exists()


# --- NaN and Infinity in a tool input ----------------------------------------------------------------

@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("streamed", [False, True], ids=["json", "stream"])
@pytest.mark.parametrize("number", [float("nan"), float("-inf")], ids=["NaN", "-Infinity"])
def test_a_non_finite_number_in_a_tool_input_is_a_tool_error_and_nothing_runs(provider, streamed, number, user, model,
                                                                               monkeypatch, capsys):
    model.script(call("Bash", command="touch ran.txt", timeout=number), text("I will send finite numbers."))
    use(monkeypatch, provider, model.base)
    code, out, err, _ = run(capsys, "-p", "hi", *(STREAMING if streamed else []))
    assert code == 0, err
    assert not (user / "ran.txt").exists()
    error = "the input holds NaN or Infinity, which JSON does not allow; send finite numbers"
    results = model.requests[1].tool_results()
    assert results == [f"Error: Bash: {error}" if provider == "openrouter" else f"Bash: {error}"]
    assert error_lines(err) == []


# --- a stream whose events have the wrong shapes --------------------------------------------------

def _sse(*events) -> str:
    return "".join(f"data: {json.dumps(event)}\n\n" for event in events)


MISSHAPEN = {
    "anthropic": _sse({"type": "message_start", "message": "not an object"},
                      {"type": "content_block_start", "index": [1], "content_block": "not an object"},
                      {"type": "content_block_delta", "index": {"a": 1}, "delta": "not an object"},
                      {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
                      {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": 5}},
                      {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Still read."}},
                      {"type": "content_block_stop", "index": True},
                      {"type": "message_delta", "delta": [1], "usage": "lots"},
                      {"type": "message_stop"}),
    "openrouter": _sse({"id": "x", "choices": "not a list"},
                       {"choices": [{"delta": "not an object"}]},
                       {"choices": [{"delta": {"tool_calls": [{"index": [0], "function": "not an object"}],
                                               "reasoning_details": [{"index": {"a": 1}, "text": "t"}]}}]},
                       {"choices": [{"delta": {"content": "Still read."}}]},
                       {"choices": [{"delta": {}, "finish_reason": "stop"}]}) + "data: [DONE]\n\n",
}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_stream_of_misshapen_events_is_read_for_what_it_holds(provider, user, model, monkeypatch, capsys):
    model.script(raw(MISSHAPEN[provider], content_type="text/event-stream"), text("Done."))
    use(monkeypatch, provider, model.base)
    code, out, err, _ = run(capsys, "-p", "hi", *STREAMING)
    assert code == 0 and "Traceback" not in err and "internal error" not in err, err
    said = [line for line in map(json.loads, out.splitlines()) if line["type"] == "assistant"]
    assert "Still read." in json.dumps(said[0]["message"]["content"])
    if provider == "openrouter":  # its nameless call went back to the model as a tool error, and the run went on
        assert "unknown tool" in json.dumps(model.requests[1].messages[-1])
        assert json.loads(out.splitlines()[-1])["result"] == "Done."

"""The JSON-lines channel with the Agent SDK: stdin read by one thread, stdout written whole
lines at a time, and requests in both directions matched with their answers by `request_id`.

stdin is untrusted input like any other: a line is at most MAX_LINE_BYTES (a longer one is
skipped whole, with one warning), a line that is not a JSON object is skipped with one warning,
and an answer to a request that nobody is waiting for is ignored. The SDK's own requests are
handed to `on_request` as they arrive (an interrupt must be heard while a turn runs); user
messages, and the `initialize` request the session is built from, queue for the driver."""

from __future__ import annotations

import json
import logging
import queue
import threading
import uuid
from concurrent.futures import Future
from typing import IO, Any, Callable

from agent.cli.output import write_lines

log = logging.getLogger("agent")

MAX_LINE_BYTES = 64 * 1024 * 1024  # a prompt with pasted files and images is large; more is not a message
ENDED = None  # what `next_input` returns once stdin has closed
QUEUED = ("user", "initialize")  # inputs the driver takes in order; other requests are answered as they come


class ChannelClosed(Exception):
    """The SDK closed stdin (or never answered) while the CLI waited for its answer."""


class SdkError(Exception):
    """The SDK answered a request of ours with an error (its callback raised, no such callback)."""


class Channel:
    """One SDK connection over `stdin` and stdout. `on_request(request_id, request)` answers the
    SDK's control requests other than `initialize` (set by the driver)."""

    def __init__(self, stdin: IO) -> None:
        self._stdin = getattr(stdin, "buffer", stdin)
        self._inputs: queue.Queue = queue.Queue()
        self._pending: dict[str, Future] = {}
        self._lock = threading.Lock()
        self.closed = threading.Event()
        self.on_request: Callable[[str, dict[str, Any]], None] | None = None
        self._thread = threading.Thread(target=self._read, name="sdk-stdin", daemon=True)

    def start(self) -> None:
        """Start reading stdin."""
        self._thread.start()

    def next_input(self, timeout_s: float | None = None) -> dict[str, Any] | None:
        """The next user message or `initialize` request, in arrival order; ENDED once stdin closed."""
        return self._inputs.get(timeout=timeout_s)

    def send(self, frame: dict[str, Any]) -> None:
        """Write one frame (a whole line)."""
        write_lines([frame])

    def respond(self, request_id: str, response: dict[str, Any]) -> None:
        """Answer the SDK's request `request_id` with success and `response`."""
        self.send({"type": "control_response",
                   "response": {"subtype": "success", "request_id": request_id, "response": response}})

    def refuse(self, request_id: str, error: str, code: str | None = None) -> None:
        """Answer the SDK's request `request_id` with an error (Claude Code's wording in `error`)."""
        answer = {"subtype": "error", "request_id": request_id, "error": error}
        if code:
            answer["error_code"] = code
        self.send({"type": "control_response", "response": answer})

    def request(self, request: dict[str, Any], timeout_s: float | None = None) -> dict[str, Any]:
        """Send a control request of ours (`can_use_tool`, `hook_callback`, `mcp_message`) and wait
        for the SDK's answer; raises SdkError for an error answer, ChannelClosed when stdin closed
        first (or `timeout_s` passed)."""
        request_id = str(uuid.uuid4())
        waiting: Future = Future()
        with self._lock:
            if self.closed.is_set():
                raise ChannelClosed("the Agent SDK closed the connection")
            self._pending[request_id] = waiting
        self.send({"type": "control_request", "request_id": request_id, "request": request})
        try:
            answer = waiting.result(timeout=timeout_s)
        except TimeoutError:
            raise ChannelClosed(f"the Agent SDK did not answer {request.get('subtype')} in {timeout_s:g} s") from None
        finally:
            with self._lock:
                self._pending.pop(request_id, None)
        if answer.get("subtype") == "error":
            raise SdkError(str(answer.get("error") or "the Agent SDK answered with an error")[:2000])
        response = answer.get("response")
        return response if isinstance(response, dict) else {}

    def cancel_waits(self, why: str) -> None:
        """Every request still waiting for an answer fails with `why` (an interrupt, the end)."""
        with self._lock:
            waiting, self._pending = list(self._pending.values()), {}
        for each in waiting:
            if not each.done():
                each.set_exception(ChannelClosed(why))

    def _read(self) -> None:
        try:
            while True:
                line = self._stdin.readline(MAX_LINE_BYTES + 1)
                if not line:
                    break
                if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
                    log.warning("skipped a line of stdin longer than %d MB", MAX_LINE_BYTES // (1024 * 1024))
                    while (rest := self._stdin.readline(MAX_LINE_BYTES)) and not rest.endswith(b"\n"):
                        pass
                    continue
                self._dispatch(line)
        except (OSError, ValueError) as error:  # stdin went away under us
            log.info("stdin: %s", error)
        finally:
            with self._lock:
                self.closed.set()
            self.cancel_waits("the Agent SDK closed the connection")
            self._inputs.put(ENDED)

    def _dispatch(self, line: bytes) -> None:
        text = line.strip()
        if not text:
            return
        try:
            message = json.loads(text)
        except (ValueError, RecursionError):
            log.warning("skipped a line of stdin that is not JSON: %s", text[:80].decode("utf-8", "replace"))
            return
        if not isinstance(message, dict):
            log.warning("skipped a line of stdin that is not a JSON object")
            return
        kind = message.get("type")
        if kind == "control_response":
            self._answered(message.get("response"))
        elif kind == "control_request":
            request, request_id = message.get("request"), message.get("request_id")
            if not isinstance(request, dict) or not isinstance(request_id, str):
                log.warning("skipped a control request without a request and a request_id")
                return
            if request.get("subtype") == "initialize":
                self._inputs.put(message)
            elif self.on_request is not None:
                self.on_request(request_id, request)
            else:
                self.refuse(request_id, "the session is still starting", "not_ready")
        elif kind == "user":
            self._inputs.put(message)
        elif kind not in ("control_cancel_request", "keep_alive", "update_environment_variables"):
            log.info("ignored a stdin message of type %r", str(kind)[:40])

    def _answered(self, answer: Any) -> None:
        if not isinstance(answer, dict) or not isinstance(answer.get("request_id"), str):
            log.warning("skipped a control response without a request_id")
            return
        with self._lock:
            waiting = self._pending.get(answer["request_id"])
        if waiting is None:
            log.info("ignored an answer to no pending request (%s)", answer["request_id"][:60])
        elif not waiting.done():
            waiting.set_result(answer)

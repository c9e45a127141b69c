"""The model client: one `requests.Session`, one place where requests are sent, retried, traced and checked."""

from __future__ import annotations

import json
import logging
import random
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import requests

from agent.model import retry
from agent.conversation import Reply, Usage, valid_data
from agent.errors import AgentError, ProviderError
from agent.model import sse
from agent.model.fallback import OVERLOADED_ATTEMPTS, OVERLOADED_STATUS, ModelUnavailable, trigger_for
from agent.model.deadline import TIMEOUT_VARIABLE, Deadline, DeadlinePassed, DeadlineSession, ResponseTooLarge, read_pieces
from agent.model.limits import Limits
from agent.model.reasoning import SESSION_EFFORT, Shaping
from agent.model.wire import provider_json
from agent.model.wire.options import RequestOptions
from agent.model.wire.messages_stream import BrokenStream
from agent.model.providers import Provider
from agent.model.too_long import ContextTooLong, refused_as_too_long
from agent.secrets import redact
from agent.workspace import append_text

log = logging.getLogger("agent")

CONNECT_TIMEOUT_S = 10.0
DEFAULT_TIMEOUT_S = 600.0
_TRACED_TEXT = 10_000  # characters of a response body that is not JSON kept in a trace
MAX_RESPONSE_BYTES = 64 * 1024 * 1024  # a reply of 64,000 tokens streamed is a few MB
_BODY_PIECE = 64 * 1024
_STREAM_PIECE = 512  # as requests' iter_lines reads, so text is handed on as it arrives


@dataclass
class _Failure:
    """One failed attempt: how a retry line names it, and the error the user sees if it is the last."""

    reason: str  # e.g. "529 overloaded", "connection error"
    head: str  # e.g. "openrouter returned HTTP 529"
    detail: str = ""  # the provider's own message, or the network's
    retryable: bool = True
    retry_after: float | None = None
    status: int | None = None  # the HTTP status (or the one an error body names), when there was one
    too_long: bool = False  # the provider refused the prompt as longer than the context window

    def error(self, retries: int) -> ProviderError:
        """The error the run ends with, unless a fallback model takes over (ModelUnavailable) or the
        conversation is compacted and sent again (ContextTooLong)."""
        after = f" after {retries} {'retry' if retries == 1 else 'retries'}" if retries else ""
        message = self.head + after + (f": {self.detail}" if self.detail else "")
        if self.too_long:
            return ContextTooLong(message)
        trigger = trigger_for(self.status)
        return ModelUnavailable(message, trigger) if trigger else ProviderError(message)


class ModelClient:
    """Sends the conversation to the provider and decodes the reply.

    Every model request of a run (main conversation and subagents) goes through `complete`, so a
    cassette or a trace sees all of them. A request that fails in a retryable way (see
    `agent.model.retry`) is sent again after a wait; each wait is announced as one warning line.
    Several threads may call `complete` at once: retry state lives in the call, not the client.
    """

    def __init__(
        self,
        provider: Provider,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        trace_path: str | None = None,
        *,
        max_retries: int | None = None,
        sleep: Callable[[float], None] | None = None,
        jitter: random.Random | None = None,
        backoff: retry.Backoff = retry.Backoff(),
        limits: Limits = Limits(),
        shaping: Shaping = Shaping(),
    ):
        """`max_retries` defaults to AGENT_MAX_RETRIES (else 6); `sleep` and `jitter` default to
        `agent.model.retry.sleep` and `agent.model.retry.rng`, looked up at each retry so tests can replace them.
        `limits` sets the output limit and thinking budget (`agent.model.limits`), `shaping` what
        the run's flags ask of every request (`agent.model.reasoning`)."""
        self.provider = provider
        self.limits = limits
        self.shaping = shaping
        self.http = DeadlineSession()
        self.timeout_s = timeout_s  # the whole response, headers and body (`agent.model.deadline`)
        self.timeout = (min(CONNECT_TIMEOUT_S, timeout_s), timeout_s)
        self.trace_path = trace_path
        self.unwritten: str | None = None  # what of the trace could not be written, and why: the run ends saying so
        self.max_retries = retry.DEFAULT_MAX_RETRIES if max_retries is None else max_retries
        self.backoff = backoff
        self._sleep = sleep
        self._jitter = jitter
        self._lock = threading.Lock()
        self._count = 0
        self.exchange = threading.local()
        self.usage = Usage()  # every request of the run: main conversation and subagents
        self.usage_by_model: dict[str, Usage] = {}  # the same, per model, for the cost
        self.api_ms = 0  # time spent waiting for the provider (retries included): the result's duration_api_ms

    def complete(self, system: str, messages: list[dict], tools: list[dict], model: str, agent: str = "main",
                 on_text: Callable[[str], None] | None = None, switchable: bool = False,
                 effort: str | None = SESSION_EFFORT, own: RequestOptions | None = None,
                 max_tokens: int | None = None) -> Reply:
        """One request of the conversation of `agent` (`main`, or a subagent's name): the reply to
        `messages` under `system`, offering `tools`. With `on_text` the reply is streamed and each
        piece of its text handed to it as it arrives (a retried attempt starts over). A `switchable`
        request (a fallback model waits) gives an overloaded model OVERLOADED_ATTEMPTS attempts.
        `effort` is the agent's (see `Shaping.options`). A tool's own request (WebSearch's search)
        gives its `own` options and `max_tokens` in place of the run's, as Claude Code's do."""
        # for this request's model: a subagent's may differ
        options = own if own is not None else self.shaping.options(model, self.limits, effort)
        limit = max_tokens if max_tokens is not None else self.limits.max_tokens(model)
        payload = self.provider.wire.encode(system, messages, tools, model, limit, options, stream=on_text is not None)
        with self._lock:
            self._count += 1
            number = self._count
        self.exchange.agent = agent  # read by a cassette as the request goes out (same thread)
        log.info("request %d (%s): %s %s, %d messages, %d tools", number, agent, self.provider.name, model, len(messages), len(tools))
        sent = time.monotonic()
        try:
            body = self._post(payload, number, agent, on_text, switchable)
        finally:
            with self._lock:
                self.api_ms += int((time.monotonic() - sent) * 1000)
        reply = self.provider.wire.decode(valid_data(body))  # a lone surrogate (a JSON escape) becomes "?"
        with self._lock:
            self.usage.add(reply.usage)
            self.usage_by_model.setdefault(model, Usage()).add(reply.usage)
        names = ", ".join(call.name for call in reply.tool_calls) or "none"
        log.info(
            "reply %d: %d chars of text, tool calls: %s, stop: %s", number, len(reply.text), names,
            reply.provider_stop_reason or reply.stop_reason,
        )
        if reply.thinking:
            spent = f" ({reply.usage.reasoning_tokens} reasoning tokens)" if reply.usage.reasoning_tokens else ""
            log.info("thinking %d%s:\n%s", number, spent, reply.thinking)
        return reply

    def usage_so_far(self) -> dict[str, Usage]:
        """A copy of the run's usage per model (what --max-budget-usd is checked against)."""
        with self._lock:
            return {model: Usage(**vars(used)) for model, used in self.usage_by_model.items()}

    def current_agent(self) -> str:
        """The agent whose request this thread is sending."""
        return getattr(self.exchange, "agent", "main")

    def _post(self, payload: dict[str, Any], number: int, agent: str, on_text: Callable[[str], None] | None = None,
              switchable: bool = False) -> Any:
        """The reply body, after as many retries as the policy allows (fewer for an overloaded model
        with a fallback to switch to); every attempt is traced."""
        retries, waited = 0, 0.0
        while True:
            seen: dict[str, Any] = {}
            try:
                body, failure = self._attempt(payload, seen, on_text)
            except AgentError as exc:  # a provider's failure, or a replay's drift: what was sent is traced
                self._trace(number, agent, retries + 1, payload, seen, str(exc))
                raise
            self._trace(number, agent, retries + 1, payload, seen, str(failure.error(0)) if failure else None)
            if failure is None:
                return body
            wait = None
            limit = self.max_retries
            if switchable and failure.status == OVERLOADED_STATUS:
                limit = min(limit, OVERLOADED_ATTEMPTS - 1)
            if failure.retryable and retries < limit:
                wait = self.backoff.wait(retries + 1, waited, failure.retry_after, self._jitter or retry.rng)
            if wait is None:
                raise failure.error(retries)
            retries += 1
            waited += wait
            log.warning("retrying in %.1fs after %s (attempt %d/%d)", wait, failure.reason, retries, limit)
            (self._sleep or retry.sleep)(wait)

    def _attempt(self, payload: dict[str, Any], seen: dict[str, Any],
                 on_text: Callable[[str], None] | None = None) -> tuple[Any, _Failure | None]:
        """One exchange, headers and body within one deadline: the JSON body (a stream put back
        together), or what went wrong. Failures no retry can fix raise at once. `seen` gets the
        status and body of the response, for the trace. A redirect is never followed: the key
        headers would go with the request to wherever it points."""
        with Deadline(self.timeout_s) as deadline:
            try:
                headers = self.provider.wire.request_headers(self.provider.headers, payload, self.shaping.betas)
                response = self.http.post(self.provider.url, json=payload, headers=headers,
                                          timeout=self.timeout, stream=True, allow_redirects=False)
            except requests.RequestException as exc:
                return None, self._unsent(exc, deadline)
            try:
                return self._answer(response, seen, on_text, deadline)
            except (DeadlinePassed, requests.RequestException, BrokenStream) as exc:  # the reply broke off
                seen.setdefault("status", response.status_code)
                seen.setdefault("response", None)
                if deadline.passed:
                    return None, self._timed_out()
                if isinstance(exc, BrokenStream) or on_text is not None:
                    return None, _Failure(retry.STREAM_BROKEN, f"{self.provider.name}'s stream broke off", _cause(exc))
                return None, _Failure(retry.CONNECTION_ERROR, f"{self.provider.name}'s reply broke off", _cause(exc))
            finally:
                response.close()

    def _unsent(self, exc: requests.RequestException, deadline: Deadline) -> _Failure:
        """The failure of a request that got no response (raised when no retry can fix it)."""
        url = self.provider.url
        if deadline.passed or (isinstance(exc, requests.Timeout) and not isinstance(exc, requests.ConnectionError)):
            return self._timed_out()
        if isinstance(exc, requests.exceptions.InvalidJSONError):  # NaN or Infinity that came from outside
            raise ProviderError(f"the request to {url} could not be encoded as JSON: {_one_line(exc)[:300]}") from None
        if isinstance(exc, requests.exceptions.SSLError):  # a certificate problem stays until someone fixes it
            raise ProviderError(f"could not reach {url}: {_cause(exc)}") from None
        if isinstance(exc, requests.ConnectionError):  # also a connect timeout: the request never arrived
            return _Failure(retry.CONNECTION_ERROR, f"could not reach {url}", _cause(exc))
        raise ProviderError(f"could not reach {url}: {_cause(exc)}") from None

    def _timed_out(self) -> _Failure:
        return _Failure(retry.TIMEOUT, f"{self.provider.name} did not finish answering within {TIMEOUT_VARIABLE} "
                                       f"({self.timeout_s:g} s)")

    def _answer(self, response: requests.Response, seen: dict[str, Any], on_text: Callable[[str], None] | None,
                deadline: Deadline) -> tuple[Any, _Failure | None]:
        """The reply in `response`, read within `deadline` and MAX_RESPONSE_BYTES."""
        name, wire = self.provider.name, self.provider.wire
        status = response.status_code
        if 300 <= status < 400:
            seen.update(status=status, response=None)
            where = _one_line(response.headers.get("location") or "nowhere")[:200]
            raise ProviderError(f"{name} redirected the request (HTTP {status} to {where}); model requests do not "
                                "follow redirects, so the key goes nowhere else: use the final address as the base URL")
        streamed = on_text is not None and status < 400 and "event-stream" in response.headers.get("content-type", "")
        try:
            if streamed:
                pieces = read_pieces(response, deadline, MAX_RESPONSE_BYTES, _STREAM_PIECE)
                body = wire.assemble(sse.events(sse.lines(pieces)), on_text)
                seen.update(status=status, response=body)
                return self._checked(body, name, wire)
            data = b"".join(read_pieces(response, deadline, MAX_RESPONSE_BYTES, _BODY_PIECE))
        except ResponseTooLarge as exc:
            seen.update(status=status, response=None)
            raise ProviderError(f"{name}'s reply is larger than {exc}: it was not read to the end") from None
        try:
            body, is_json = provider_json.load(data, f"{name}'s reply"), True
        except ValueError:
            body, is_json = None, False
        text = "" if is_json else data.decode("utf-8", errors="replace")
        seen.update(status=status, response=body if is_json else text[:_TRACED_TEXT])
        if status >= 400:
            detail = _one_line(wire.error_text(body) if is_json else text[:300]) or response.reason or ""
            if status == 401:
                raise ProviderError(
                    f"{name} rejected the API key from {self.provider.key_variable} (HTTP 401: {detail})"
                )
            return None, _Failure(
                retry.reason(status),
                f"{name} returned HTTP {status}",
                detail,
                retryable=status in retry.RETRYABLE,
                retry_after=retry.retry_after(response.headers),
                status=status,
                too_long=refused_as_too_long(status, detail, body),
            )
        if not is_json:
            raise ProviderError(f"{name} answered with a body that is not JSON: {text[:200]!r}")
        return self._checked(body, name, wire)

    @staticmethod
    def _checked(body: Any, name: str, wire) -> tuple[Any, _Failure | None]:
        """A 200 reply's body, or its failure: OpenRouter reports a failure that began after
        generation started as HTTP 200 with an error body (or event); a retryable one is retried
        like its status. Any other error body is left to decode."""
        embedded = retry.embedded_status(body)
        if embedded in retry.RETRYABLE:
            return None, _Failure(retry.reason(embedded), f"{name} reported error {embedded}", _one_line(wire.error_text(body)),
                                  status=embedded)
        return body, None

    def _trace(self, number: int, agent: str, attempt: int, payload: dict, seen: dict[str, Any], error: str | None) -> None:
        """One line for one attempt: which request of which agent, the exact payload, and the
        response (with the error, when it failed)."""
        if not self.trace_path:
            return
        entry: dict[str, Any] = {"request_number": number, "agent": agent, "attempt": attempt, "url": self.provider.url,
                                 "status": seen.get("status"), "request": payload, "response": seen.get("response")}
        if error is not None:
            entry["error"] = error
        line = redact(json.dumps(entry, ensure_ascii=False))  # a provider's error may echo the key
        with self._lock:  # a FIFO put in its place meanwhile is refused, never waited on
            if self.unwritten:
                return
            try:
                append_text(Path(self.trace_path), line + "\n")
            except OSError as exc:  # a full disk: the run goes on, the trace keeps its whole lines
                self.unwritten = f"the trace {self.trace_path} ({exc.strerror or exc})"


def _cause(exc: BaseException) -> str:
    """The operating system's reason inside a requests exception (`[Errno 111] Connection refused`),
    else the exception's text: urllib3's wrapping repeats the URL and object addresses around it."""
    found = re.search(r"\[Errno -?\d+\][^'\")]*", str(exc))
    return found.group(0).strip() if found else _one_line(exc)[:300] or type(exc).__name__


def _one_line(value: object) -> str:
    """`value` as text on one line: the CLI's error is a single line even when a provider's
    message (or an HTML error page) spans several."""
    return " ".join(str(value).split())

"""The model client: one `requests.Session`, one place where requests are sent, traced and checked."""

from __future__ import annotations

import json
import logging
import threading
from typing import Any

import requests

from agent.conversation import Reply, Usage
from agent.errors import ProviderError
from agent.providers import Provider

log = logging.getLogger("agent")

CONNECT_TIMEOUT_S = 10.0
DEFAULT_READ_TIMEOUT_S = 600.0
MAX_TOKENS = 8192


class ModelClient:
    """Sends the conversation to the provider and decodes the reply.

    Every model request of a run (main conversation and subagents) goes through `complete`, so a
    cassette or a trace sees all of them.
    """

    def __init__(self, provider: Provider, read_timeout_s: float = DEFAULT_READ_TIMEOUT_S, trace_path: str | None = None):
        self.provider = provider
        self.http = requests.Session()
        self.timeout = (CONNECT_TIMEOUT_S, read_timeout_s)
        self.trace_path = trace_path
        self._lock = threading.Lock()
        self._count = 0
        self.usage = Usage()  # every request of the run: main conversation and subagents

    def complete(self, system: str, messages: list[dict], tools: list[dict], model: str) -> Reply:
        """One request: the reply to `messages` under `system`, offering `tools`."""
        payload = self.provider.wire.encode(system, messages, tools, model, MAX_TOKENS)
        with self._lock:
            self._count += 1
            number = self._count
        log.info("request %d: %s %s, %d messages, %d tools", number, self.provider.name, model, len(messages), len(tools))
        body = self._post(payload)
        self._trace(payload, body)
        reply = self.provider.wire.decode(body)
        with self._lock:
            self.usage.add(reply.usage)
        names = ", ".join(call.name for call in reply.tool_calls) or "none"
        log.info("reply %d: %d chars of text, tool calls: %s", number, len(reply.text), names)
        return reply

    def _post(self, payload: dict[str, Any]) -> Any:
        try:
            response = self.http.post(self.provider.url, json=payload, headers=self.provider.headers, timeout=self.timeout)
        except requests.Timeout:
            raise ProviderError(f"{self.provider.name} did not answer within {self.timeout[1]:g} s") from None
        except requests.RequestException as exc:
            raise ProviderError(f"could not reach {self.provider.url}: {_first_line(exc)}") from None
        try:
            body = response.json()
        except ValueError:
            body = None
        if response.status_code >= 400:
            detail = self.provider.wire.error_text(body) if body is not None else _first_line(response.text[:300])
            raise ProviderError(f"{self.provider.name} returned HTTP {response.status_code}: {detail}")
        if body is None:
            raise ProviderError(f"{self.provider.name} answered with a body that is not JSON: {response.text[:200]!r}")
        return body

    def _trace(self, payload: dict, body: Any) -> None:
        if not self.trace_path:
            return
        line = json.dumps({"url": self.provider.url, "request": payload, "response": body}, ensure_ascii=False)
        with self._lock, open(self.trace_path, "a", encoding="utf-8") as trace:
            trace.write(line + "\n")


def _first_line(value: object) -> str:
    text = str(value).strip()
    return text.splitlines()[0] if text else type(value).__name__

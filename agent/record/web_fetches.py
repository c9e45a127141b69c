"""The pages WebFetch fetched, kept in the cassette's `tool_runs` among the tool runs, one entry per
fetch that went to the network (the session's 15-minute cache answers the rest):

    - agent: main
      id: toolu_01
      fetch: https://example.com/timetable.html
      response: {url: https://example.com/timetable.html, status: 200, reason: OK,
                 content_type: text/html, body: "<html>..."}

`response` is the page as agent.tools.web.fetching keeps it: the final URL, status, reason and
content type, `location` for a redirect to another origin, the body (at most WebFetch's 10 MB) as
text, or as `body_base64` when it is not UTF-8, or `error` when the fetch failed. A cassette is
untrusted: a field of another type, or longer than a fetch gives, is a shape problem.

The session's `web_fetches(agent, call_id, url, fetch)` hook:
- recording, it fetches (`fetch()` returns the response) and keeps the entry;
- replaying, with --replay-tools or without, it answers with the recorded response and touches no
  network, so the replay of a session that read the web is hermetic: the pages are fixtures like
  the replies, while what the reader was sent of them is compared like any request. A fetch the
  cassette does not hold is drift. `answering_tools` says tools run nothing (--replay-tools): a
  binary body is then not saved to disk.
"""

from __future__ import annotations

import threading
from collections import defaultdict, deque
from typing import Any, Callable

from agent.errors import ReplayMismatch

FETCH_KEY = "fetch"
_RESPONSE_TEXTS = ("url", "reason", "content_type", "location", "body", "body_base64", "error")
MAX_FETCH_URL = 2000 + 8  # WebFetch takes a URL of 2,000 characters, and upgrading http to https lengthens it
MAX_BODY_BYTES = 10 * 1024 * 1024  # WebFetch's cap on a body (agent.tools.web.fetching)
_TEXT_LIMITS = {"url": MAX_FETCH_URL, "location": MAX_FETCH_URL, "reason": 1000, "content_type": 1000,
                "error": 1000, "body": MAX_BODY_BYTES, "body_base64": -(-MAX_BODY_BYTES // 3) * 4}


def is_fetch_entry(entry: Any) -> bool:
    """Whether a `tool_runs` entry is a recorded web fetch."""
    return isinstance(entry, dict) and FETCH_KEY in entry and "tool" not in entry and "hook" not in entry


def fetch_problem(entry: dict[str, Any]) -> str | None:
    """What is wrong with a recorded fetch's shape, or None (agent.record.shape asks)."""
    if not isinstance(entry.get(FETCH_KEY), str) or not 0 < len(entry[FETCH_KEY]) <= MAX_FETCH_URL:
        return f"`{FETCH_KEY}` must be the URL fetched (a text of at most {MAX_FETCH_URL} characters)"
    for key in ("agent", "id"):
        if entry.get(key) is not None and not isinstance(entry[key], str):
            return f"`{key}` must be text"
    response = entry.get("response")
    if not isinstance(response, dict):
        return "`response` must be a mapping"
    unknown = sorted(set(response) - {*_RESPONSE_TEXTS, "status"})
    if unknown:
        return f"`response` has an unknown field `{unknown[0]}`"
    if not isinstance(response.get("url"), str):
        return "the response's `url` must be text"
    if any(key in response and not isinstance(response[key], str) for key in _RESPONSE_TEXTS):
        return f"the response's {', '.join(_RESPONSE_TEXTS[1:])} must be texts"
    status = response.get("status", 0)
    if isinstance(status, bool) or not isinstance(status, int) or not 0 <= status <= 999:
        return "the response's `status` must be an HTTP status (a number)"
    for key, limit in _TEXT_LIMITS.items():
        if len(response.get(key, "")) > limit:
            return f"the response's `{key}` is longer than a fetch gives ({limit:,} characters at most)"
    if "body" in response and "body_base64" in response:
        return "the response has both a `body` and a `body_base64`"
    if "body_base64" in response and not _is_base64(response["body_base64"]):
        return "the response's `body_base64` is not base64"
    return None


def _is_base64(text: str) -> bool:
    import base64
    import binascii

    try:
        base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


class WebFetches:
    """Recording into `sink` (the run's ToolRuns, so fetches keep their place among the tool runs),
    or answering from a cassette's `entries` (`answering_tools` under --replay-tools)."""

    def __init__(self, sink: Any = None, entries: list[Any] | None = None, answering_tools: bool = False,
                 path: str = ""):
        self.sink = sink
        self.answering_tools = answering_tools
        self.path = path
        self._lock = threading.Lock()
        self._recorded: dict[tuple, deque] = defaultdict(deque)
        for entry in entries or []:
            if is_fetch_entry(entry):
                self._recorded[(entry.get("agent"), entry.get("id"), entry[FETCH_KEY])].append(entry["response"])

    def __call__(self, agent: str, call_id: str | None, url: str, fetch: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        if self.sink is not None:
            response = fetch()
            entry = {"agent": agent, "id": call_id, FETCH_KEY: url, "response": response}
            self.sink.keep({key: value for key, value in entry.items() if value is not None})
            return response
        with self._lock:
            found = self._recorded.get((agent, call_id, url))
            response = found.popleft() if found else None
        if response is None:
            raise ReplayMismatch(
                f"a web fetch the cassette {self.path} does not hold: {agent} fetched {url[:200]} (the recording "
                "did not fetch it; re-record the cassette if the change is intended)")
        return response

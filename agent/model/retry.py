"""When a failed model request is worth another attempt, and how long to wait before it.

One table (`RETRYABLE`) decides which HTTP statuses are retried; connection errors, timeouts (no
complete reply within API_TIMEOUT_MS) and broken streams are retried too, and nothing else is: a
400, 401, 403 or 404 fails the same way every time.
Waits back off exponentially with jitter, honour the server's `retry-after(-ms)` up to a cap, and
all waits of one request fit in a fixed budget, so a provider that keeps failing is given up on
within a minute.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any, Mapping


# The statuses worth retrying, each with the words a retry line uses for it.
RETRYABLE = {
    408: "request timeout",
    429: "rate limited",
    500: "server error",
    502: "bad gateway",
    503: "unavailable",
    504: "gateway timeout",
    529: "overloaded",
}
CONNECTION_ERROR = "connection error"
TIMEOUT = "a timeout"  # no complete reply within API_TIMEOUT_MS
STREAM_BROKEN = "a broken stream"

# The Messages API names an error by type; these are the retryable ones, as their HTTP statuses.
ERROR_TYPES = {"rate_limit_error": 429, "api_error": 500, "timeout_error": 504, "overloaded_error": 529}

DEFAULT_MAX_RETRIES = 6

# The jitter's source when a client is given none; tests seed or replace it. Parallel subagents
# share it safely: each draw (Random.random) is a single atomic call.
rng = random.Random()


def sleep(seconds: float) -> None:
    """Wait `seconds` before the next attempt. Looked up on this module at each retry, so tests can
    monkeypatch it to record the waits instead of sleeping."""
    time.sleep(seconds)


def reason(status: int) -> str:
    """How a retry line names a failed status, e.g. `529 overloaded`."""
    return f"{status} {RETRYABLE.get(status, 'error')}"


def retry_after(headers: Mapping[str, str], now: datetime | None = None) -> float | None:
    """The seconds the server asked us to wait: `retry-after-ms`, else `retry-after` (seconds or an
    HTTP date). None when neither is present, readable and in the future."""
    millis = _number(headers.get("retry-after-ms"))
    if millis is not None:
        return millis / 1000 if millis > 0 else None
    value = (headers.get("retry-after") or "").strip()
    if not value:
        return None
    seconds = _number(value)
    if seconds is None:
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:  # HTTP dates are GMT
            when = when.replace(tzinfo=timezone.utc)
        seconds = (when - (now or datetime.now(timezone.utc))).total_seconds()
    return seconds if seconds > 0 else None


def _number(value: Any) -> float | None:
    try:
        number = float(str(value).strip())
    except ValueError:
        return None
    return number if number == number and number not in (float("inf"), float("-inf")) else None


def embedded_status(body: Any) -> int | None:
    """The status of an error carried in a 200 reply: OpenRouter repeats the HTTP code in
    `error.code` when generation had already started, at the top level or in the first choice
    (`finish_reason: "error"`); the Messages API names an error type."""
    error = body.get("error") if isinstance(body, dict) else None
    if error is None and isinstance(body, dict):
        choices = body.get("choices")
        if isinstance(choices, list) and choices and isinstance(choices[0], dict):
            error = choices[0].get("error")
    if not isinstance(error, dict):
        return None
    code = error.get("code")
    if isinstance(code, int) and not isinstance(code, bool):
        return code
    if isinstance(code, str) and code.strip().isascii() and code.strip().isdigit():
        return int(code)
    return ERROR_TYPES.get(str(error.get("type")))


@dataclass(frozen=True)
class Backoff:
    """The waits between attempts: `base_s` doubling per retry up to `max_backoff_s`, times a jitter
    of 0.75–1.0 (so parallel clients do not retry in lockstep); a server's retry-after instead,
    up to `max_retry_after_s`; never more than `budget_s` in all."""

    base_s: float = 1.0
    max_backoff_s: float = 16.0
    # Half the budget, so a server that asks for long waits still gets a second retry.
    max_retry_after_s: float = 30.0
    budget_s: float = 60.0

    def wait(self, retry: int, waited: float, asked: float | None = None, jitter: random.Random | None = None) -> float | None:
        """The seconds to wait before retry number `retry` (1 for the first), given `waited` seconds
        already spent waiting and the server's retry-after `asked`; None once the budget is spent."""
        left = self.budget_s - waited
        if left <= 0:
            return None
        if asked is not None and asked > 0:
            wanted = min(asked, self.max_retry_after_s)
        else:
            backoff = min(self.base_s * 2 ** min(retry - 1, 30), self.max_backoff_s)
            wanted = backoff * (1 - 0.25 * (jitter or rng).random())
        return min(wanted, left)

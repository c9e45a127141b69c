"""Retries and provider failures: which failures are retried, how long the client waits, and the one
line a user sees when it gives up.

Scenario tests run the CLI against cassettes that hold the scripted faults (identical retried
requests replay in recorded order); the backoff policy is tested on its own; connection errors,
timeouts and the retry-after forms are also tested against loopback servers with the client
called directly. The retry sleep is replaced everywhere here by a recorder.
"""

from __future__ import annotations

import logging
import random
import re
import socket
import threading
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import pytest

from agent import cli
from agent.cli.environment import Environment
from agent.model import retry
from agent.model.client import ModelClient
from agent.errors import ProviderError, UsageError
from agent.model.providers import select_provider
from scripted_model import fail, raw, text

KEYS = {"openrouter": "OPENROUTER_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
MODEL = "anthropic/claude-haiku-4.5"
RETRY_LINE = re.compile(r"^\[agent\] retrying in \d+\.\ds after (.+) \(attempt (\d+)/(\d+)\)$")


@pytest.fixture(autouse=True)
def waits(monkeypatch) -> list[float]:
    """The waits the client asked for, in order; nothing actually sleeps."""
    requested: list[float] = []
    monkeypatch.setattr(retry, "sleep", requested.append)
    return requested


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch):
    for variable in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(variable, raising=False)


def retry_lines(stderr: str) -> list[tuple[str, int, int]]:
    """(reason, attempt, limit) of each retry line, checking every such line has the exact shape."""
    found = []
    for line in stderr.splitlines():
        if "retrying" in line:
            match = RETRY_LINE.match(line)
            assert match, f"retry line of the wrong shape: {line!r}"
            found.append((match.group(1), int(match.group(2)), int(match.group(3))))
    return found


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("error:")]


# --- scenarios on both wire formats, replayed from cassettes -----------------------------------------

def test_overloaded_then_success_retries_once(agent, waits):
    agent.script(fail(529, "Overloaded"), text("hello"))
    run = agent.run("Say hello")
    assert (run.exit_code, run.stdout) == (0, "hello\n")
    assert retry_lines(run.stderr) == [("529 overloaded", 1, 6)]
    assert len(waits) == 1 and 0.75 <= waits[0] <= 1.0  # the first backoff: 1 s with jitter
    assert len(run.bodies) == 2 and run.bodies[0] == run.bodies[1]


def test_rate_limited_is_retried_after_the_providers_retry_after(agent, waits):
    # cassettes keep retry-after, so the replayed 429 asks for the same wait as the recorded one
    agent.script(fail(429, "Rate limit exceeded", headers={"retry-after": "2"}), text("done"))
    run = agent.run("Say done")
    assert (run.exit_code, run.stdout) == (0, "done\n")
    assert retry_lines(run.stderr) == [("429 rate limited", 1, 6)]
    assert waits == [2.0]
    assert len(run.bodies) == 2


def test_gives_up_after_max_retries_with_one_line(agent, monkeypatch, waits):
    monkeypatch.setenv("AGENT_MAX_RETRIES", "2")
    agent.script(*[fail(503, "No instances available")] * 3)
    run = agent.run("Say hi")
    assert run.exit_code == 1 and run.stdout == ""
    assert retry_lines(run.stderr) == [("503 unavailable", 1, 2), ("503 unavailable", 2, 2)]
    assert error_lines(run.stderr) == [f"error: {agent.provider} returned HTTP 503 after 2 retries: No instances available"]
    assert len(run.bodies) == 3 and len(waits) == 2
    assert "Traceback" not in run.stderr


def test_bad_request_is_not_retried(agent, waits):
    agent.script(fail(400, "max_tokens: must be at most 64000"))
    run = agent.run("Say hi")
    assert run.exit_code == 1
    assert run.stderr.strip() == f"error: {agent.provider} returned HTTP 400: max_tokens: must be at most 64000"
    assert len(run.bodies) == 1 and waits == []


def test_rejected_key_names_its_variable(agent, waits):
    agent.script(fail(401, "invalid x-api-key"))
    run = agent.run("Say hi")
    assert run.exit_code == 1
    variable = KEYS[agent.provider]
    assert run.stderr.strip() == f"error: {agent.provider} rejected the API key from {variable} (HTTP 401: invalid x-api-key)"
    assert len(run.bodies) == 1 and waits == []


def _embedded_error(request):
    """A failure reported inside an HTTP 200 reply, as each wire carries it."""
    if request.wire == "chat":
        return raw({"error": {"code": 502, "message": "Upstream provider returned an invalid response"}})
    return raw({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})


def test_error_inside_a_200_reply_is_retried(agent, waits):
    agent.script(_embedded_error, text("recovered"))
    run = agent.run("Say recovered")
    assert (run.exit_code, run.stdout) == (0, "recovered\n")
    reason = "502 bad gateway" if agent.provider == "openrouter" else "529 overloaded"
    assert retry_lines(run.stderr) == [(reason, 1, 6)]
    assert len(run.bodies) == 2 and len(waits) == 1


def test_non_retryable_error_inside_a_200_reply_fails_at_once(agent, waits):
    agent.script(lambda request: raw(
        {"error": {"code": 400, "message": "context too long"}} if request.wire == "chat"
        else {"type": "error", "error": {"type": "invalid_request_error", "message": "context too long"}}
    ))
    run = agent.run("Say hi")
    assert run.exit_code == 1
    assert run.stderr.strip() == "error: the provider reported an error: context too long"
    assert len(run.bodies) == 1 and waits == []


def test_body_that_is_not_json_is_one_line(agent, waits):
    agent.script(raw("<html>\n<body>upstream hiccup</body>\n</html>", content_type="text/html"))
    run = agent.run("Say hi")
    assert run.exit_code == 1
    assert run.stderr.strip() == (
        f"error: {agent.provider} answered with a body that is not JSON: '<html>\\n<body>upstream hiccup</body>\\n</html>'"
    )
    assert len(run.bodies) == 1 and waits == []


def test_reply_without_choices_or_content_is_one_line(agent, waits):
    agent.script(lambda request: raw(
        {"id": "gen-1", "object": "chat.completion", "choices": []} if request.wire == "chat"
        else {"id": "msg_1", "type": "message", "role": "assistant", "stop_reason": "end_turn"}
    ))
    run = agent.run("Say hi")
    assert run.exit_code == 1
    missing = "choices" if agent.provider == "openrouter" else "content blocks"
    assert run.stderr.strip() == f"error: the provider's reply has no {missing}"
    assert waits == []


def test_html_error_page_is_retried_and_named_on_one_line(agent, monkeypatch, waits):
    monkeypatch.setenv("AGENT_MAX_RETRIES", "1")
    page = "<html>\n<head><title>502 Bad Gateway</title></head>\n</html>"
    agent.script(*[raw(page, status=502, content_type="text/html")] * 2)
    run = agent.run("Say hi")
    assert run.exit_code == 1
    assert retry_lines(run.stderr) == [("502 bad gateway", 1, 1)]
    assert error_lines(run.stderr) == [
        f"error: {agent.provider} returned HTTP 502 after 1 retry: <html> <head><title>502 Bad Gateway</title></head> </html>"
    ]


# --- the backoff policy ------------------------------------------------------------------------------

class _Fixed(random.Random):
    """A jitter source that always draws `value`."""

    def __init__(self, value: float):
        super().__init__(0)
        self.value = value

    def random(self) -> float:
        return self.value


def _all_waits(policy: retry.Backoff, retries: int, asked: float | None = None, jitter=None) -> list[float]:
    waits, waited = [], 0.0
    for number in range(1, retries + 1):
        wait = policy.wait(number, waited, asked, jitter)
        if wait is None:
            break
        waits.append(wait)
        waited += wait
    return waits


def test_backoff_doubles_from_one_second_up_to_its_cap():
    assert _all_waits(retry.Backoff(), 6, jitter=_Fixed(0.0)) == [1.0, 2.0, 4.0, 8.0, 16.0, 16.0]
    assert _all_waits(retry.Backoff(), 3, jitter=_Fixed(1.0)) == [0.75, 1.5, 3.0]


def test_jitter_stays_within_three_quarters_and_whole():
    jitter = random.Random(1234)
    for number in range(1, 7):
        wait = retry.Backoff().wait(number, 0.0, None, jitter)
        full = min(2 ** (number - 1), 16)
        assert 0.75 * full <= wait <= full


def test_default_settings_give_up_within_sixty_seconds():
    worst = _all_waits(retry.Backoff(), retry.DEFAULT_MAX_RETRIES, jitter=_Fixed(0.0))
    assert sum(worst) <= 60
    # even a server asking for an hour every time, with retries unlimited, is given up on in 60 s
    asked = _all_waits(retry.Backoff(), 1000, asked=3600)
    assert asked == [30.0, 30.0] and sum(asked) == 60
    assert retry.Backoff().wait(3, 60.0) is None


def test_last_wait_is_cut_to_what_is_left_of_the_budget():
    assert retry.Backoff().wait(5, 55.0, None, _Fixed(0.0)) == 5.0
    assert retry.Backoff().wait(1, 59.5, 10.0) == 0.5


def test_huge_retry_after_is_capped():
    assert retry.Backoff().wait(1, 0.0, 3600.0) == 30.0
    assert retry.Backoff().wait(1, 0.0, 2.0) == 2.0


def test_retry_after_in_seconds_and_milliseconds():
    assert retry.retry_after({"retry-after": "2"}) == 2.0
    assert retry.retry_after({"retry-after": " 1.5 "}) == 1.5
    assert retry.retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert retry.retry_after({}) is None
    for unusable in ("0", "-3", "soon", "nan", "inf", ""):
        assert retry.retry_after({"retry-after": unusable}) is None, unusable


def test_retry_after_as_an_http_date():
    now = datetime(2025, 3, 1, 12, 0, 0, tzinfo=timezone.utc)
    assert retry.retry_after({"retry-after": "Sat, 01 Mar 2025 12:00:07 GMT"}, now) == 7.0
    assert retry.retry_after({"retry-after": format_datetime(now + timedelta(seconds=90), usegmt=True)}, now) == 90.0
    assert retry.retry_after({"retry-after": "Sat, 01 Mar 2025 11:59:00 GMT"}, now) is None  # already past
    assert retry.retry_after({"retry-after": "Sat, 99 Foo 2025 25:00:00 GMT"}, now) is None


def test_one_table_decides_what_is_retried():
    assert set(retry.RETRYABLE) == {408, 429, 500, 502, 503, 504, 529}
    assert not {400, 401, 402, 403, 404, 409, 413, 422, 501} & set(retry.RETRYABLE)
    assert [retry.reason(s) for s in (408, 429, 500, 502, 503, 504, 529)] == [
        "408 request timeout", "429 rate limited", "500 server error", "502 bad gateway",
        "503 unavailable", "504 gateway timeout", "529 overloaded",
    ]


def test_status_of_an_error_inside_a_200_reply():
    assert retry.embedded_status({"error": {"code": 502, "message": "x"}}) == 502
    assert retry.embedded_status({"error": {"code": "429", "message": "x"}}) == 429
    assert retry.embedded_status({"type": "error", "error": {"type": "overloaded_error"}}) == 529
    assert retry.embedded_status({"error": {"code": "invalid_api_key"}}) is None
    assert retry.embedded_status({"error": {"code": True}}) is None
    assert retry.embedded_status({"error": "boom"}) is None
    assert retry.embedded_status({"choices": []}) is None
    assert retry.embedded_status(["not", "a", "dict"]) is None


def test_max_retries_comes_from_the_environment():
    assert Environment({})["AGENT_MAX_RETRIES"] == 6
    assert Environment({"AGENT_MAX_RETRIES": "2"})["AGENT_MAX_RETRIES"] == 2
    assert Environment({"AGENT_MAX_RETRIES": "0"})["AGENT_MAX_RETRIES"] == 0
    for bad in ("-1", "two", "1.5", "²"):
        with pytest.raises(UsageError, match="AGENT_MAX_RETRIES"):
            Environment({"AGENT_MAX_RETRIES": bad})


# --- the client against loopback servers, no cassette ------------------------------------------------

@pytest.fixture
def logged(monkeypatch) -> list[str]:
    """The agent logger's lines while the test runs (the CLI's handler would write to a stale stream)."""
    lines: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record):
            lines.append(record.getMessage())

    logger = logging.getLogger("agent")
    monkeypatch.setattr(logger, "handlers", [Collect()])
    monkeypatch.setattr(logger, "propagate", False)
    monkeypatch.setattr(logger, "level", logging.WARNING)
    return lines


def client_for(base: str, **kwargs) -> ModelClient:
    provider = select_provider({"OPENROUTER_API_KEY": "dummy-key", "OPENROUTER_BASE_URL": base + "/api/v1"})
    return ModelClient(provider, **kwargs)


def ask(client: ModelClient, prompt: str = "hi"):
    return client.complete(system="", messages=[{"role": "user", "content": prompt}], tools=[], model=MODEL)


@pytest.mark.parametrize(
    "headers, expected",
    [({"retry-after": "2"}, 2.0), ({"Retry-After": "0.5"}, 0.5), ({"retry-after-ms": "250"}, 0.25), ({"retry-after": "600"}, 30.0)],
)
def test_retry_after_header_sets_the_wait(model, waits, logged, headers, expected):
    model.script(fail(429, "Rate limit exceeded", headers=headers), text("ok"))
    assert ask(client_for(model.base, max_retries=6)).text == "ok"
    assert waits == [expected]
    assert logged == [f"retrying in {expected:.1f}s after 429 rate limited (attempt 1/6)"]


def test_retry_after_http_date_sets_the_wait(model, waits):
    when = datetime.now(timezone.utc) + timedelta(seconds=5)
    model.script(fail(503, "busy", headers={"retry-after": format_datetime(when, usegmt=True)}), text("ok"))
    assert ask(client_for(model.base)).text == "ok"
    (wait,) = waits
    assert 3.0 < wait <= 5.0  # the date has whole seconds, and some time passes before it is read


def test_connection_refused_is_retried_then_named(waits, logged):
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = client_for(f"http://127.0.0.1:{port}", max_retries=2, jitter=_Fixed(0.0))
    with pytest.raises(ProviderError) as info:
        ask(client)
    assert str(info.value) == (
        f"could not reach http://127.0.0.1:{port}/api/v1/chat/completions after 2 retries: [Errno 111] Connection refused"
    )
    assert waits == [1.0, 2.0]
    assert logged == [
        "retrying in 1.0s after connection error (attempt 1/2)",
        "retrying in 2.0s after connection error (attempt 2/2)",
    ]


@pytest.fixture
def silent_port():
    """A loopback port that accepts connections (the kernel completes them) but never answers."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        yield server.getsockname()[1]


def test_a_timeout_is_retried_then_named(silent_port, waits, logged):
    client = client_for(f"http://127.0.0.1:{silent_port}", timeout_s=0.2, max_retries=1)
    with pytest.raises(ProviderError) as info:
        ask(client)
    assert str(info.value) == "openrouter did not finish answering within API_TIMEOUT_MS (0.2 s) after 1 retry"
    assert logged == [f"retrying in {waits[0]:.1f}s after a timeout (attempt 1/1)"]


def test_api_timeout_ms_sets_the_timeout(silent_port, tmp_path, monkeypatch, capsys, waits):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    for variable in ("OPENROUTER_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "AGENT_PROVIDER", "AGENT_MODEL"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("OPENROUTER_API_KEY", "dummy-key")
    monkeypatch.setenv("OPENROUTER_BASE_URL", f"http://127.0.0.1:{silent_port}/api/v1")
    monkeypatch.setenv("API_TIMEOUT_MS", "150")
    monkeypatch.setenv("AGENT_MAX_RETRIES", "0")
    assert cli.main(["-p", "hi"]) == 1
    assert capsys.readouterr().err == "error: openrouter did not finish answering within API_TIMEOUT_MS (0.15 s)\n"
    assert waits == []


def test_the_client_takes_its_retry_limit_from_its_caller_not_the_environment(monkeypatch):
    monkeypatch.setenv("AGENT_MAX_RETRIES", "3")  # read once, by the command line's environment table
    assert client_for("http://127.0.0.1:9").max_retries == 6
    assert client_for("http://127.0.0.1:9", max_retries=0).max_retries == 0


def test_injected_sleep_wins_over_the_module_default(model, waits):
    slept: list[float] = []
    model.script(fail(500, "oops"), text("ok"))
    client = client_for(model.base, sleep=slept.append, jitter=_Fixed(0.0))
    assert ask(client).text == "ok"
    assert (slept, waits) == ([1.0], [])


def test_concurrent_requests_retry_independently(model, waits):
    jobs = [f"job {n}" for n in range(6)]
    for job in jobs:
        model.route(job, fail(503, "busy"), fail(529, "Overloaded"), text(f"done {job}"))
    client = client_for(model.base, max_retries=2)
    results: dict[str, str] = {}
    errors: list[BaseException] = []

    def work(job: str) -> None:
        try:
            results[job] = ask(client, job).text
        except BaseException as exc:  # surfaced by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(job,)) for job in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert errors == []
    assert results == {job: f"done {job}" for job in jobs}
    assert len(model.requests) == 18 and len(waits) == 12
    assert client.usage.requests == 6

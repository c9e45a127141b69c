"""A cassette's recorded web fetches are untrusted input: a response of the wrong type, or with a
body or text longer than any fetch gives, is one line on stderr and exit 2 before any request,
never a traceback and never a page of gigabytes handed to the reader."""

from __future__ import annotations

import base64

import pytest
import yaml

from agent.record.web_fetches import MAX_BODY_BYTES
from agent.tools.web.fetching import MAX_BODY_BYTES as FETCH_CAP
from agent.tools.web.urls import MAX_URL_CHARS, fetchable_url
from scripted_model import call, text

BIG = MAX_BODY_BYTES + 1


BAD_RESPONSES = [
    ({"url": "https://example.com/", "status": 200, "body": "x" * BIG},
     "the response's `body` is longer than a fetch gives (10,485,760 characters at most)"),
    ({"url": "https://example.com/", "status": 200, "body_base64": base64.b64encode(bytes(BIG + 2)).decode()},
     "the response's `body_base64` is longer than a fetch gives"),
    ({"url": "https://example.com/", "status": 302, "location": "https://e.com/" + "a" * 5000},
     "the response's `location` is longer than a fetch gives (2,008 characters at most)"),
    ({"url": "https://example.com/", "error": "e" * 100_000}, "the response's `error` is longer than a fetch gives"),
    ({"url": "https://example.com/", "status": 200, "reason": ["OK"]}, "must be texts"),
    ({"url": "https://example.com/", "status": 200, "body": {"html": "<p>"}}, "must be texts"),
    ({"url": 5, "status": 200}, "the response's `url` must be text"),
    ("a page", "`response` must be a mapping"),
]


def test_a_recorded_fetch_too_big_or_of_the_wrong_type_is_one_line(agent, tmp_path):
    assert MAX_BODY_BYTES == FETCH_CAP  # the cassette's cap is the fetch's
    agent.script(call("WebFetch", url="http://localhost/", prompt="x"), text("done"))
    if agent.recording:
        assert agent.run("Fetch it.").exit_code == 0
    recorded = agent.cassette_path(1).read_text()
    for number, (response, problem) in enumerate(BAD_RESPONSES):
        data = yaml.safe_load(recorded)
        data.setdefault("tool_runs", []).append({"agent": "main", "id": "x", "fetch": "https://example.com/",
                                                 "response": response})
        bad = tmp_path / f"bad{number}.yaml"
        bad.write_text(yaml.safe_dump(data, width=float("inf")))
        replayed = agent.replay(cassette=bad)
        assert replayed.exit_code == 2 and replayed.stdout == "", (problem, replayed.stderr)
        assert problem in replayed.stderr and "(a web fetch)" in replayed.stderr, replayed.stderr
        assert len(replayed.stderr.strip().splitlines()) == 1 and "Traceback" not in replayed.stderr

    longest = fetchable_url("http://127.0.0.1/" + "a" * (MAX_URL_CHARS - 17))  # the longest URL WebFetch takes, upgraded
    assert len(longest) > MAX_URL_CHARS
    data = yaml.safe_load(recorded)
    data.setdefault("tool_runs", []).append({"agent": "main", "id": "x", "fetch": longest,
                                             "response": {"url": longest, "status": 200, "reason": "OK", "body": "hi"}})
    good = tmp_path / "good.yaml"
    good.write_text(yaml.safe_dump(data, width=float("inf")))
    assert agent.replay(cassette=good).exit_code == 0  # what a recording keeps is never a shape problem

"""WebFetch as Claude Code 2.1.332 does it (claude-code-everyday-observed.md §2), on both wires,
against a site on 127.0.0.1 (tests/web_site.py) that answers https with a test CA given through
NODE_EXTRA_CA_CERTS: the page read by a second request through the same client, redirects,
error statuses, binary and long pages, the caps, and replays that need no network."""

from __future__ import annotations

import json
import re

import pytest
import yaml

from scripted_model import call, text
from web_site import PNG, WebSite

READER_ANSWER = "The first ferry leaves at 06:40 from Pier 3."


@pytest.fixture
def site(tmp_path, monkeypatch):
    """The test site, its CA trusted as a Claude Code user trusts theirs."""
    served = WebSite(tmp_path / "site", long_chars=120_000, huge_bytes=11 * 1024 * 1024, slow_s=3)
    monkeypatch.setenv("NODE_EXTRA_CA_CERTS", str(served.ca_file))
    yield served
    served.close()


def seen(run, words: str) -> bool:
    """Whether some request of the run holds `words` (as JSON text holds them)."""
    escaped = json.dumps(words, ensure_ascii=False)[1:-1]
    return any(escaped in body for body in run.bodies)


def reader_requests(run) -> list[str]:
    """The JSON text of each page reader's request: the ones offering no tools."""
    return [json.dumps(payload, ensure_ascii=False) for payload in run.payloads if not payload.get("tools")]


def test_a_page_is_read_by_a_second_request_and_the_model_gets_its_answer(agent, site):
    agent.script(call("WebFetch", url=f"{site.base}/page.html", prompt="When does the first ferry leave?"),
                 text(READER_ANSWER), text("06:40."))
    run = agent.run("When does the first ferry leave? See the timetable page.")
    assert (run.exit_code, run.stdout) == (0, "06:40.\n"), run.stderr
    [reader] = reader_requests(run)
    [shape] = [payload for payload in run.payloads if not payload.get("tools")]
    assert (shape["max_tokens"], shape["temperature"], shape["stream"]) == (32000, 1, True)  # as Claude Code's
    assert shape["model"] == run.payloads[0]["model"]  # the session's model reads the page
    page = ("Web page content:\n---\nHarbour Ferries\n\nFerry timetable\n===============\n\n"
            "The **first ferry** leaves at **06:40** from [Pier 3](/pier.html).\n\nFares\n-----\n\n"
            "*   Adult: 4.20\n*   Child: 2.10\n\n1.  Buy a ticket\n2.  Board")
    assert json.dumps(page)[1:-1] in reader and "console.log" not in reader and "color: red" not in reader
    assert json.dumps("\n---\n\nWhen does the first ferry leave?\n\nProvide a concise response")[1:-1] in reader
    assert "| Day | Boats |" in reader and "![a boat](/boat.png)" in reader
    assert seen(run, READER_ANSWER)
    main_requests = [body for body in run.bodies if body not in reader_requests(run)]
    assert not any("Harbour Ferries" in body for body in main_requests)
    if agent.recording:  # http was upgraded: the site was asked over TLS, with Claude Code's headers
        assert site.protocols == [("/page.html", "https")]
        assert site.headers["/page.html"]["Accept"] == "text/markdown, text/html, */*"
        assert site.headers["/page.html"]["User-Agent"].startswith("Claude-User (claude-code/2.1.332;")


def test_redirects_and_error_statuses_are_reported_as_claude_code_reports_them(agent, site):
    agent.script(call("WebFetch", url=f"{site.base}/moved", prompt="Fares?"), text("Adults pay 4.20."),
                 call("WebFetch", url=f"{site.base}/away", prompt="Fares?"),
                 call("WebFetch", url=f"{site.base}/missing", prompt="Fares?"),
                 call("WebFetch", url=f"{site.base}/broken", prompt="Fares?"), text("done"))
    run = agent.run("Find the fares.")
    assert run.exit_code == 0, run.stderr
    assert len(reader_requests(run)) == 1  # the same-origin redirect was followed; nothing else was read
    last = run.bodies[-1]
    away = re.search(r"REDIRECT DETECTED: The URL redirects to a location that was not fetched automatically\.\\n\\n"
                     r"    Original URL: https://127\.0\.0\.1:(\d+)/away\\n"
                     r"    Redirect URL \(from the server's Location header — server-supplied, not verified\): "
                     r"http://127\.0\.0\.1:(\d+)/page\.html\\n    Status: 302 Found\\n", last)
    assert away and away.group(1) != away.group(2), last[-3000:]
    assert '- prompt: \\"Fares?\\"' in last
    assert json.dumps("The server returned HTTP 404 Not Found.\n\nThe response body was not retrieved.")[1:-1] in last
    assert "The server returned HTTP 500 Internal Server Error." in last
    assert '"is_error": true' not in last  # none of them is an error result
    if agent.recording:
        assert site.hits["/page.html"] == 1 and site.hits["/moved"] == 1


def test_a_binary_body_is_read_as_text_and_saved_and_a_long_page_is_read_in_parts(agent, site):
    agent.script(call("WebFetch", url=f"{site.base}/boat.png", prompt="What is it?"), text("A PNG image."),
                 call("WebFetch", url=f"{site.base}/long.html", prompt="What does it say?"), text("It repeats."),
                 call("WebFetch", url=f"{site.base}/long.html", prompt="And then?", offset=100000), text("Still."),
                 text("done"))
    run = agent.run("Look at the boat and the long page.")
    assert run.exit_code == 0, run.stderr
    saved = agent.home / ".claude" / "projects"
    [png] = list(saved.glob("*/tool-results/webfetch-*.png"))
    assert png.read_bytes() == PNG  # the exact bytes, even when replayed (the tool runs)
    # the path as the cassette holds it: the project's data folder is a placeholder, so it replays anywhere
    assert seen(run, f"A PNG image.\n\n[Binary content (image/png, 2KB) also saved to {{{{project_data}}}}/tool-results/{png.name}]")
    readers = reader_requests(run)
    assert "IHDR" in readers[0]  # the bytes still went to the reader, as text
    assert seen(run, "It repeats.\n\n[WebFetch note: this page's text is 120005 characters long and the answer above "
                     "covers only characters 0 to 100000; the final 20005 were not read — to read on, call WebFetch "
                     "again with the same url and offset: 100000.]")
    assert "[Content truncated due to length...]" in readers[1]
    assert "The content below is one part of a longer page: it starts 100000 characters into the page's 120005." in readers[2]
    assert "[Content truncated due to length...]" not in readers[2]
    if agent.recording:
        assert site.hits["/long.html"] == 1  # the second part came from the 15-minute cache


def test_the_caps_and_the_urls_webfetch_refuses(agent, site, monkeypatch):
    monkeypatch.setenv("AGENT_WEB_FETCH_TIMEOUT_MS", "500")
    agent.script(call("WebFetch", url=f"{site.base}/huge", prompt="x"),
                 call("WebFetch", url=f"{site.base}/slow", prompt="x"),
                 call("WebFetch", url="http://localhost:8080/", prompt="x"),
                 call("WebFetch", url="ftp://example.com/file", prompt="x"),
                 call("WebFetch", url="https://user:secret@example.com/", prompt="x"), text("done"))
    run = agent.run("Fetch them.")
    assert run.exit_code == 0, run.stderr
    last = run.bodies[-1]
    for words in ("maxContentLength size of 10485760 exceeded", "timeout of 500ms exceeded",
                  "WebFetch cannot fetch localhost or other hostnames without a dot. To reach a local server, use "
                  "Bash with curl instead.", "Unsupported protocol ftp:", "Invalid URL"):
        assert words in last, words
    assert not reader_requests(run)


def test_a_session_that_read_the_web_replays_with_the_site_gone(agent, site, tmp_path):
    """The fetched page is kept with the tool runs: with the site stopped, --replay-tools and a
    plain --replay both answer from the cassette (the reader's request is compared as any is)."""
    agent.script(call("WebFetch", url=f"{site.base}/page.html", prompt="First ferry?"), text(READER_ANSWER),
                 text("06:40."))
    if agent.recording:
        assert agent.run("When does the first ferry leave?").exit_code == 0
    site.close()
    recorded = agent.cassette_path(1).read_text()
    assert "fetch: https://127.0.0.1:" in recorded and "Harbour Ferries" in recorded
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    tools_replayed = agent.replay("--replay-tools", cwd=elsewhere)
    assert (tools_replayed.exit_code, tools_replayed.stdout) == (0, "06:40.\n"), tools_replayed.stderr
    plain = agent.replay()
    assert (plain.exit_code, plain.stdout) == (0, "06:40.\n"), plain.stderr
    assert site.hits["/page.html"] == (1 if agent.recording else 0)


def test_a_subagent_given_webfetch_reads_the_web_too(agent, site):
    """An agent whose definition lists WebFetch gets it (no warning that it is missing), and its
    fetch is recorded under its name and replayed like the main conversation's."""
    agent.agent_file("scout.md", "scout", "Reads web pages.", "You read web pages.", extra="tools: WebFetch")
    agent.script(call("Agent", description="Read the timetable", prompt="When does the first ferry leave?",
                      subagent_type="scout", run_in_background=False),
                 call("WebFetch", url=f"{site.base}/page.html", prompt="First ferry?"), text(READER_ANSWER),
                 text("06:40, from Pier 3."), text("The first ferry leaves at 06:40."))
    run = agent.run("Ask the scout when the first ferry leaves.")
    assert (run.exit_code, run.stdout) == (0, "The first ferry leaves at 06:40.\n"), run.stderr
    assert "WebFetch" not in run.stderr  # not dropped from its tools
    scout = [payload for payload in run.payloads if len(payload.get("tools", [])) == 1]
    assert scout and "WebFetch" in json.dumps(scout[0]["tools"])
    assert "fetch: https://127.0.0.1:" in run.cassette.read_text() and "agent: scout" in run.cassette.read_text()
    site.close()
    assert agent.replay("--replay-tools").stdout == "The first ferry leaves at 06:40.\n"


def test_a_fetch_the_cassette_does_not_hold_is_drift(agent, site, tmp_path):
    """A replay never falls back to the network: a page the cassette lacks ends the replay as drift."""
    agent.script(call("WebFetch", url=f"{site.base}/page.html", prompt="First ferry?"), text(READER_ANSWER),
                 text("06:40."))
    if agent.recording:
        assert agent.run("When does the first ferry leave?").exit_code == 0
    data = yaml.safe_load(agent.cassette_path(1).read_text())
    data["tool_runs"] = [entry for entry in data["tool_runs"] if "fetch" not in entry]
    stripped = tmp_path / "no-pages.yaml"
    stripped.write_text(yaml.safe_dump(data, allow_unicode=True))
    for flags in ((), ("--replay-tools",)):
        replayed = agent.replay(*flags, cassette=stripped)
        assert replayed.exit_code == 1 and replayed.stdout == "", replayed.stderr
        assert f"a web fetch the cassette {stripped} does not hold: main fetched https://127.0.0.1:" in replayed.stderr
    assert site.hits["/page.html"] == (1 if agent.recording else 0)

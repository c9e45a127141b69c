"""WebFetch's permission rules as Claude Code 2.1.332 matches them (observed: `domain:example.com`
is that host only, `domain:*.example.org` the hosts under it), a fetch no rule approves refused in
-p as any tool is, and a cassette's recorded fetch checked in shape when it is read."""

from __future__ import annotations

import json

import pytest
import yaml

from agent.permissions.web_domains import domain_matches
from scripted_model import call, text
from web_site import WebSite


@pytest.mark.parametrize("specifier, url, covered", [
    ("domain:example.com", "https://example.com/a", True),
    ("domain:example.com", "https://EXAMPLE.COM/d", True),
    ("domain:example.com", "https://docs.example.com/b", False),
    ("domain:example.com", "https://www.example.com/c", False),
    ("domain:example.com", "https://example.com.evil.net/", False),
    ("domain:*.example.org", "https://a.example.org/e", True),
    ("domain:*.example.org", "https://example.org/f", False),
    ("domain:*.example.org", "https://badexample.org/", False),
    ("domain:127.0.0.1", "http://127.0.0.1:8080/page", True),
    ("domain:*", "https://anything.example/", True),
    ("example.com", "https://example.com/", False),
    ("domain:example.com", "not a url", False),
])
def test_domain_rules_cover_the_hosts_claude_code_covers(specifier, url, covered):
    assert domain_matches(specifier, url) is covered


def test_allow_deny_and_unapproved_fetches_in_print_mode(agent, tmp_path, monkeypatch):
    site = WebSite(tmp_path / "site")
    monkeypatch.setenv("NODE_EXTRA_CA_CERTS", str(site.ca_file))
    agent.settings({"permissions": {"allow": ["WebFetch(domain:127.0.0.1)"],
                                    "deny": ["WebFetch(domain:blocked.example.com)"]}})
    agent.script(call("WebFetch", url=f"{site.base}/notes.md", prompt="What does it say?"), text("Keep left."),
                 call("WebFetch", url="https://blocked.example.com/", prompt="x"),
                 call("WebFetch", url="https://docs.example.com/", prompt="x"), text("done"))
    try:
        run = agent.run("Read the notes and the docs.")
    finally:
        site.close()
    assert run.exit_code == 0, run.stderr
    last = run.bodies[-1]
    assert "Keep left." in last
    assert "WebFetch(domain:blocked.example.com)" in last  # the deny rule is named
    assert "WebFetch needs approval, and none can be given in -p mode" in last
    assert "WebFetch(domain:docs.example.com)" in last  # the rule that would allow it is suggested
    if agent.recording:
        assert site.hits["/notes.md"] == 1


def test_a_recorded_fetch_of_the_wrong_shape_is_one_line_before_any_request(agent, tmp_path, capsys):
    agent.script(call("WebFetch", url="http://localhost/", prompt="x"), text("done"))
    if agent.recording:
        assert agent.run("Fetch it.").exit_code == 0
    data = yaml.safe_load(agent.cassette_path(1).read_text())
    data.setdefault("tool_runs", []).append({"agent": "main", "id": "x", "fetch": "https://example.com/",
                                             "response": {"url": "https://example.com/", "status": "200"}})
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(data))
    replayed = agent.replay(cassette=bad)
    assert replayed.exit_code == 2 and replayed.stdout == ""
    assert "(a web fetch): the response's `status` must be an HTTP status" in replayed.stderr
    assert len(replayed.stderr.strip().splitlines()) == 1 and "Traceback" not in replayed.stderr
    assert json.loads(json.dumps(data))  # the rest of the cassette is as recorded


def test_plan_mode_lets_an_allowed_fetch_run_and_asks_for_the_others(agent, tmp_path, monkeypatch):
    """As Claude Code 2.1.332 did under --permission-mode plan: WebFetch is not refused for the
    mode; an allowed domain is read, another needs approval (none in -p)."""
    site = WebSite(tmp_path / "site")
    monkeypatch.setenv("NODE_EXTRA_CA_CERTS", str(site.ca_file))
    agent.settings({"permissions": {"allow": ["WebFetch(domain:127.0.0.1)"]}})
    agent.script(call("WebFetch", url=f"{site.base}/notes.md", prompt="What does it say?"), text("Keep left."),
                 call("WebFetch", url="https://docs.example.com/", prompt="x"), text("done"))
    try:
        run = agent.run("Read the notes and the docs.", "--permission-mode", "plan")
    finally:
        site.close()
    assert run.exit_code == 0, run.stderr
    last = run.bodies[-1]
    assert "Keep left." in last and "WebFetch needs approval, and none can be given in -p mode" in last
    assert "plan mode" not in last.split("Keep left.")[1]

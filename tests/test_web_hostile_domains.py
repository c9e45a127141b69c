"""`WebFetch(domain:…)` rules against hosts spelled to slip past them: a trailing dot (the same
host to DNS), IDNA names written in Unicode or in punycode, letter case, look-alike parents and
userinfo. A deny rule covers every spelling of its host; an allow rule covers nothing else."""

from __future__ import annotations

import pytest

from agent.permissions.web_domains import domain_matches, fetch_host
from agent.tools.base import ToolError
from agent.tools.web.urls import fetchable_url


@pytest.mark.parametrize("specifier, url, covered", [
    ("domain:evil.com", "https://evil.com./x", True),  # the same host to DNS
    ("domain:evil.com", "https://EVIL.COM../x", True),
    ("domain:*.evil.com", "https://a.evil.com./", True),
    ("domain:evil.com.", "https://evil.com/", True),
    ("domain:bücher.de", "https://xn--bcher-kva.de/", True),
    ("domain:xn--bcher-kva.de", "https://bücher.de/", True),
    ("domain:*.BÜCHER.de", "https://shop.xn--bcher-kva.de/", True),
    ("domain:example.com", "https://evil-example.com/", False),
    ("domain:*.example.com", "https://evil-example.com/", False),
    ("domain:*.example.com", "https://example.com./", False),
    ("domain:example.com", "https://example.com@evil.com/", False),
    ("domain:example.com", "https://evil.com#@example.com", False),
    ("domain:example.com", "https://example.com:8443/", True),  # a host rule, whatever the port
    ("domain:*.", "https://example.com/", False),
    ("domain:169.254.169.254", "https://169.254.43518/", True),  # what the resolver connects to
    ("domain:127.0.0.1", "https://0x7f.0.0.1/", True),
    ("domain:127.0.0.1", "https://0177.0.0.1/", True),
    ("domain:127.0.0.1", "https://127.1./", True),
    ("domain:127.0.0.1", "https://[::ffff:127.0.0.1]/", True),
    ("domain:[::1]", "https://[0:0::1]/", True),
    ("domain:127.0.0.1", "https://127.0.0.2/", False),
    ("domain:cafe.bad", "https://CAFE.bad/", True),
    ("domain:*.allowed.com", "https://evil.com\\.allowed.com/", False),  # fetched from evil.com
    ("domain:*.allowed.com", "https://evil.com%5c.allowed.com/", False),
    ("domain:", "https://example.com/", False),
])
def test_every_spelling_of_a_host_is_the_host_its_rule_names(specifier, url, covered):
    assert domain_matches(specifier, url) is covered


def test_a_refused_fetch_suggests_the_rule_of_the_host_it_reaches():
    assert fetch_host("https://Bücher.DE./a") == "xn--bcher-kva.de"
    assert fetch_host("https://./") is None and fetch_host("not a url") is None


@pytest.mark.parametrize("url", [
    "https://evil.com\\.allowed.com/",  # urllib3 reads the backslash as the path's start: evil.com
    "https://evil.com%5c.allowed.com/", "https://evil.com;.allowed.com/", "https://evil.com%2f.allowed.com/",
    "https://a..b.com/", "https://allowed.com@evil.com/", "https://\uff45vil.com/",
])
def test_a_url_whose_host_the_fetch_could_read_otherwise_is_refused(url):
    with pytest.raises(ToolError, match="^Invalid URL$"):
        fetchable_url(url)


@pytest.mark.parametrize("url, fetched", [
    ("http://B\u00fccher.de./a?b=1#c", "https://b\u00fccher.de./a?b=1"),
    ("http://127.0.0.1:8080/x", "https://127.0.0.1:8080/x"),
    ("https://_dmarc.example.org", "https://_dmarc.example.org/"),
])
def test_ordinary_hosts_are_fetched_as_written(url, fetched):
    assert fetchable_url(url) == fetched

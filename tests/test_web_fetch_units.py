"""WebFetch's parts that need no model: which redirects stay in the origin, the 15-minute cache,
and the Markdown of pages a site may send broken or hostile."""

from __future__ import annotations

import time

import pytest

from agent.tools.web.cache import TTL_S, PageCache
from agent.tools.web.fetching import Page, page_from_record, page_record
from agent.tools.web.markdown import html_to_markdown
from agent.tools.web.urls import same_origin


@pytest.mark.parametrize("target, followed", [
    ("https://example.com/b", True),
    ("https://www.example.com/b", True),  # a leading www. aside
    ("http://example.com/b", False),  # another scheme
    ("https://example.com:8443/b", False),  # another port
    ("https://docs.example.com/b", False),
    ("https://user:pw@example.com/b", False),
    ("https://example.com:443/b", True),
])
def test_a_redirect_is_followed_only_within_its_origin(target, followed):
    assert same_origin("https://example.com/a", target) is followed


def test_the_cache_keeps_whole_pages_for_fifteen_minutes():
    now = [0.0]
    cache = PageCache(clock=lambda: now[0])
    page = Page("https://example.com/", 200, "OK", "text/html", b"<p>hi</p>")
    cache.put("https://example.com/", page)
    cache.put("https://example.com/gone", Page("https://example.com/gone", 404, "Not Found"))
    now[0] = TTL_S - 1
    assert cache.get("https://example.com/") is page and cache.get("https://example.com/gone") is None
    now[0] = TTL_S + 1
    assert cache.get("https://example.com/") is None


def test_a_page_record_keeps_binary_bodies_exactly():
    page = Page("https://example.com/x.bin", 200, "OK", "application/octet-stream", bytes(range(256)))
    record = page_record(page)
    assert "body_base64" in record and page_from_record(record) == page
    text = Page("https://example.com/", 200, "OK", "text/plain", "héllo".encode())
    assert page_record(text)["body"] == "héllo" and page_from_record(page_record(text)) == text


def test_broken_and_deeply_nested_html_converts_in_linear_time():
    assert html_to_markdown("<p>one<p>two</div></span><b>bold") == "one\n\ntwo**bold"  # stray ends ignored
    assert html_to_markdown("<script>alert(1)<p>not text</p></script><p>text</p>") == "text"
    started = time.monotonic()
    converted = html_to_markdown("<div><span>" * 50_000 + "deep" + "</span></div>" * 50_000)
    assert converted == "deep" and time.monotonic() - started < 10


def test_a_page_is_decoded_by_its_charset_quoted_or_not():
    from agent.tools.web.reading import page_text

    latin = "café".encode("latin-1")
    assert page_text(Page("u", 200, "OK", 'text/plain; charset="iso-8859-1"', latin)) == "café"
    assert page_text(Page("u", 200, "OK", "text/plain; charset=bogus", b"plain")) == "plain"
    assert page_text(Page("u", 200, "OK", "text/plain", latin)) == "caf\ufffd"  # not UTF-8: replaced, never an error


def test_a_page_of_megabytes_of_markup_is_cut_and_says_so():
    from agent.tools.web.markdown import MAX_HTML_CHARS

    script = "<script>" + "var x = 1;" * 500_000 + "</script>"  # 5 MB of script: cut out before parsing
    page = script + "<p>Some <b>bold</b> text.</p>\n" * (MAX_HTML_CHARS // 25)
    started = time.monotonic()
    converted = html_to_markdown(page)
    assert time.monotonic() - started < 60
    assert converted.startswith("Some **bold** text.") and "var x" not in converted
    assert converted.endswith(f"[WebFetch converted only the first {MAX_HTML_CHARS:,} characters of this page's "
                              f"HTML ({len(page) - len(script):,} without its scripts and styles).]")

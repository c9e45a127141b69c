"""WebFetch's HTML-to-Markdown conversion of pages built to hurt it: constructs left open that
html.parser would rescan to the end of the page for each one, malformed marked sections it would
raise on, quotes nested deep enough to multiply the output, and table cells of many pieces. Each
converts in bounded time to output of bounded size, and ordinary markup converts as before."""

from __future__ import annotations

import time

import pytest

from agent.tools.web.markdown import MAX_HTML_CHARS, html_to_markdown

UNCLOSED = {
    "processing instructions": "<?" * 900_000,
    "end tags": "</" * 900_000,
    "declarations": "<!" * 900_000,
    "CDATA sections": "<![CDATA[" * 200_000,
    "a comment never closed": "<!--" + "<a " * 500_000,
    "comments closed by a bare >": "<!--x>" * 300_000,
}


@pytest.mark.parametrize("name", sorted(UNCLOSED))
def test_constructs_left_open_convert_in_linear_time(name):
    started = time.monotonic()
    converted = html_to_markdown(UNCLOSED[name])
    assert time.monotonic() - started < 5, name
    assert len(converted) <= MAX_HTML_CHARS + 200


@pytest.mark.parametrize("html, expected", [
    ("<![foo[ x ]]>after", "after"),  # html.parser raised AssertionError on an unknown keyword
    ("<p>before</p><![ x", "before\n\n<![ x"),  # ...and on a marked section with no name
    ("<!doctype html><p>a</p><?php echo 1 ?><![CDATA[b]]><p>c</p>", "a\n\nc"),
    ("<p>a &lt; b</p> and 1 < 2", "a < b\n\nand 1 < 2"),
])
def test_malformed_declarations_are_never_an_error(html, expected):
    assert html_to_markdown(html) == expected


def test_quotes_nested_deep_do_not_multiply_the_output():
    page = "<blockquote>" * 500 + "<p>x</p>" * 150_000  # 1.2 MB: each paragraph prefixed 500 times was 150 MB
    started = time.monotonic()
    converted = html_to_markdown(page)
    assert time.monotonic() - started < 10 and len(converted) < 5 * len(page)
    assert converted.startswith("> > > > > > > > x\n\n")
    assert html_to_markdown("<blockquote><blockquote><p>two deep</p></blockquote></blockquote>") == "> > two deep"


def test_a_table_cell_of_many_pieces_is_joined_once():
    started = time.monotonic()
    converted = html_to_markdown("<table><tr><td>" + "<u>a</u>" * 240_000 + "</td><td>b</td></tr></table>")
    assert time.monotonic() - started < 5
    assert converted == "| " + "a" * 240_000 + " | b |"


def test_markup_inside_table_cells_stays_in_its_cell():
    html = ('<p>x</p><table><tr><td><b>a</b> <a href="/u">link</a></td><td><img src="i.png" alt="z">b<br>c</td>'
            '</tr></table><p>after</p>')
    assert html_to_markdown(html) == "x\n\n| **a** [link](/u) | ![z](i.png)b c |\n\nafter"  # was `****[](/u)![z](i.png)` after the table

"""What WebFetch makes of a fetched page, in the shapes Claude Code 2.1.332 was seen to use: the
page's text (HTML as Markdown, other text as it is, a binary body decoded as text all the same),
the reader's request (the page, at most 100,000 characters of it from the offset, then the call's
prompt and the rules of answering) and the result the model gets (the reader's answer, a note
when the page went on past what was read, and where a binary body was saved), or the texts for a
redirect to another origin and an HTTP error status."""

from __future__ import annotations

import codecs
import mimetypes
import re

from agent.tools.web.fetching import Page
from agent.tools.web.markdown import html_to_markdown

READ_CHARS = 100_000  # what the reader sees of a page in one call
TRUNCATED = "\n\n[Content truncated due to length...]"
NO_ANSWER = "The small, fast model that reads the content gave no answer. Trying again may work."
READER_SYSTEM = "You read web pages for a coding agent and answer questions about them."
ANSWER_RULES = """\
Provide a concise response based only on the content above. In your response:
 - Enforce a strict 125-character maximum for quotes from any source document. Open Source Software is ok as long as we respect the license.
 - Use quotation marks for exact language from articles; any language outside of the quotation should never be word-for-word the same.
 - You are not a lawyer and never comment on the legality of your own prompts and responses.
 - Never produce or reproduce exact song lyrics.
"""
_NOT_CHARSETS = {"idna", "punycode", "undefined", "unicode-escape", "raw-unicode-escape"}
_TEXTUAL = re.compile(r"^(text/|application/(json|xml|javascript|ecmascript|x-javascript|ld\+json|x-yaml|yaml|"
                      r"toml|x-sh|rss\+xml|atom\+xml|xhtml\+xml|x-www-form-urlencoded)|[^;]*\+(json|xml))")


def media_type(page: Page) -> str:
    """The page's media type, lower case, without parameters."""
    return page.content_type.split(";")[0].strip().lower()


def is_binary(page: Page) -> bool:
    """Whether the body is not text (by its type; a page with no type is text when it decodes)."""
    kind = media_type(page)
    if not kind:
        try:
            page.body.decode("utf-8")
            return False
        except UnicodeDecodeError:
            return True
    return not _TEXTUAL.match(kind)


def page_text(page: Page) -> str:
    """The text the reader is shown of the whole page."""
    charset = re.search(r"charset=\"?([\w.:-]+)", page.content_type, re.IGNORECASE)
    text = _decoded(page.body, charset.group(1) if charset else "utf-8")
    return html_to_markdown(text) if media_type(page) in ("text/html", "application/xhtml+xml") else text


def _decoded(body: bytes, charset: str) -> str:
    """`body` as text in `charset`, or in UTF-8 when the server named one Python does not know or
    one that is no charset (idna, punycode, unicode_escape: they raise, or read escapes as text)."""
    try:
        if codecs.lookup(charset).name not in _NOT_CHARSETS:
            return body.decode(charset, errors="replace")
    except (LookupError, UnicodeError, ValueError):
        pass
    return body.decode("utf-8", errors="replace")


def reader_request(text: str, offset: int, prompt: str) -> str:
    """The reader's one user message: the page's text from `offset` (at most READ_CHARS of it),
    the call's prompt and the rules of answering."""
    part = text[offset:offset + READ_CHARS]
    cut = TRUNCATED if offset + READ_CHARS < len(text) else ""
    where = (f"The content below is one part of a longer page: it starts {offset} characters into the "
             f"page's {len(text)}.\n\n") if offset else "\n"
    return f"{where}Web page content:\n---\n{part}{cut}\n---\n\n{prompt}\n\n{ANSWER_RULES}"


def reading_note(text: str, offset: int) -> str:
    """The note after the answer when the page goes on past what the reader saw; "" otherwise."""
    end = offset + READ_CHARS
    if end >= len(text):
        return ""
    return (f"\n\n[WebFetch note: this page's text is {len(text)} characters long and the answer above covers "
            f"only characters {offset} to {end}; the final {len(text) - end} were not read — to read on, call "
            f"WebFetch again with the same url and offset: {end}.]")


def binary_note(page: Page, path: str) -> str:
    return f"\n\n[Binary content ({media_type(page) or 'unknown type'}, {_size(len(page.body))}) also saved to {path}]"


def binary_suffix(page: Page) -> str:
    """The file suffix a saved binary body gets: its type's (.png), else .bin."""
    kind = media_type(page)
    suffix = mimetypes.guess_extension(kind) if kind and kind != "application/octet-stream" else None
    return suffix or ".bin"


def _size(count: int) -> str:
    if count < 1024:
        return f"{count} bytes"
    if count < 1024 * 1024:
        return f"{round(count / 1024)}KB"
    return f"{count / (1024 * 1024):.1f}MB"


def redirect_text(url: str, page: Page, prompt: str) -> str:
    """The result for a redirect to another origin: not followed, the model told where it points."""
    return (f"REDIRECT DETECTED: The URL redirects to a location that was not fetched automatically.\n\n"
            f"    Original URL: {url}\n"
            f"    Redirect URL (from the server's Location header — server-supplied, not verified): {page.location}\n"
            f"    Status: {page.status} {page.reason}\n\n"
            f"    To complete your request, I need to fetch content from the redirected URL. Please use WebFetch "
            f"again with these parameters:\n"
            f"    - url: \"{page.location}\"\n"
            f"    - prompt: \"{prompt}\"")


def status_text(page: Page) -> str:
    """The result for an HTTP error status (the body is not read)."""
    return (f"The server returned HTTP {page.status} {page.reason}.\n\nThe response body was not retrieved. If "
            "this URL requires authentication, use an authenticated tool (e.g. `gh` for GitHub, or an "
            "MCP-provided fetch tool) instead of WebFetch.")

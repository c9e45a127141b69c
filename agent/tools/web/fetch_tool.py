"""The WebFetch tool: fetch a URL and have a second model request read the page with the call's
prompt, as Claude Code 2.1.332 does (see agent.tools.web). The reader's request goes through the
session's model client under the agent label `WebFetch`, so a cassette records it and a trace
shows it like any other; the main model gets only the reader's answer.

Claude Code first asks claude.ai whether a domain may be fetched (skipWebFetchPreflight turns
that off); this agent never calls claude.ai, so it always behaves as with the preflight skipped:
which domains may be fetched is the permission rules' say (`WebFetch(domain:…)`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from agent.errors import ProviderError
from agent.model.wire.options import RequestOptions
from agent.tools.base import Tool, ToolError, object_schema
from agent.tools.web import reading
from agent.tools.web.fetching import Page, fetch, page_from_record, page_record
from agent.tools.web.urls import fetchable_url
from agent.transcripts import project_folder
from agent.workspace import save_file

READER_AGENT = "WebFetch"  # the agent label of the reader's requests (cassettes, traces, logs)
READER_MAX_TOKENS = 32_000  # the reader's output limit, as Claude Code's
MAX_PROMPT_CHARS = 10_000

DESCRIPTION = """\
Fetch a web page and have a small, fast model read it with your prompt; you get that model's answer about the page.

- Give a complete, valid URL and a prompt saying what to find or extract from the page.
- The page is converted from HTML to Markdown before it is read. Very long pages are read in parts: the answer says where it stopped, and `offset` reads on from there.
- http:// URLs are upgraded to https://. localhost and other host names without a dot cannot be fetched: for a local server, use curl through Bash.
- It fails for pages behind a login or on private networks (Google Docs, Confluence, Jira, GitHub). Prefer an MCP tool that fetches with authentication when one is available; for GitHub, use the gh CLI through Bash.
- Read-only: it changes no file.
- A redirect to another host is not followed: the result says where it points, and you call WebFetch again with that URL.
- Pages are cached for 15 minutes, so asking again about the same URL is fast.
"""


def _arguments(arguments: dict[str, Any]) -> tuple[str, str, int]:
    url, prompt, offset = arguments.get("url"), arguments.get("prompt"), arguments.get("offset", 0)
    if not isinstance(url, str) or not url.strip():
        raise ToolError("Invalid URL")
    if not isinstance(prompt, str) or not prompt.strip():
        raise ToolError("prompt must be a non-empty string.")
    if len(prompt) > MAX_PROMPT_CHARS:
        raise ToolError(f"prompt must be at most {MAX_PROMPT_CHARS:,} characters.")
    if offset is None:
        offset = 0
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise ToolError("offset must be an integer of at least 0.")
    return url, prompt, offset


def _web_fetch(arguments: dict[str, Any], context: Any) -> str:
    given, prompt, offset = _arguments(arguments)
    url = fetchable_url(given)
    session = context.session
    page = _page(session, context.agent.name, context.call_id, url)
    if page.error:
        raise ToolError(page.error)
    if page.location:
        return reading.redirect_text(url, page, prompt)
    if page.status >= 400:
        return reading.status_text(page)
    text = reading.page_text(page)
    if offset and offset >= len(text):
        raise ToolError(f"offset {offset} is past the end of the page's text ({len(text)} characters).")
    answer = _read(session, text, offset, prompt)
    saved = _save_binary(session, context.call_id, page) if reading.is_binary(page) else ""
    return answer + reading.reading_note(text, offset) + (reading.binary_note(page, saved) if saved else "")


def _page(session: Any, agent: str, call_id: str | None, url: str) -> Page:
    """The page at `url`: the session's cached copy, else fetched (through the session's
    `web_fetches` hook when the run records or replays, which keeps or answers the fetch)."""
    cache = getattr(session, "web_pages", None)
    if cache is not None and (kept := cache.get(url)) is not None:
        return kept
    hook = getattr(session, "web_fetches", None)
    if hook is None:
        page = fetch(url, os.environ)
    else:
        page = page_from_record(hook(agent, call_id, url, lambda: page_record(fetch(url, os.environ))))
    if cache is not None:
        cache.put(url, page)
    return page


def _read(session: Any, text: str, offset: int, prompt: str) -> str:
    """The reader's answer: one request without tools on the session's model, shaped as Claude
    Code's (streamed, thinking off, temperature 1, 32,000 tokens, no cache breakpoints). A provider
    that fails it fails the call, not the run."""
    message = {"role": "user", "content": reading.reader_request(text, offset, prompt)}
    options = RequestOptions(thinking="disabled", temperature=1, cached=False)
    try:
        reply = session.client.complete(reading.READER_SYSTEM, [message], [], session.model, READER_AGENT,
                                        on_text=_unwatched, own=options, max_tokens=READER_MAX_TOKENS)
    except ProviderError as error:
        raise ToolError(f"The page was fetched, but reading it failed: {error}") from error
    return reply.text.strip() or reading.NO_ANSWER


def _unwatched(_: str) -> None:
    """Streamed as Claude Code's reader is; nobody watches the text."""


def _save_binary(session: Any, call_id: str | None, page: Page) -> str:
    """Where the exact bytes of a binary body are saved: the project's tool-results folder, named
    after the call (a name the replay of the run gives again; Claude Code's has a clock and a
    random part). A replay that runs no tools (`--replay-tools`) names the file but writes nothing."""
    folder = project_folder(Path.home(), session.workspace.cwd) / "tool-results"
    path = folder / f"webfetch-{_safe(call_id or 'call')}{reading.binary_suffix(page)}"
    if not getattr(getattr(session, "web_fetches", None), "answering_tools", False):
        try:
            folder.mkdir(parents=True, exist_ok=True)
            save_file(path, page.body)
        except OSError as error:
            return f"{path} (not written: {error.strerror or error})"
    return str(path)


def _safe(name: str) -> str:
    return "".join(char if char.isalnum() or char in "-_" else "_" for char in name)[:100]


WEB_FETCH = Tool(
    name="WebFetch",
    description=DESCRIPTION,
    parameters=object_schema(
        {
            "url": {"type": "string", "format": "uri", "description": "The URL to fetch."},
            "prompt": {"type": "string", "description": "What to find out from the page's content."},
            "offset": {"type": "integer", "minimum": 0,
                       "description": ("Character position in the page's text to start reading from, to read on "
                                       "through a page too long for one call (the previous result gives it).")},
        },
        ["url", "prompt"],
    ),
    run=_web_fetch,
    # the fetch is answered from the cassette by the session's web_fetches hook and the reader's
    # request by the cassette's replies, so under --replay-tools the tool still runs, touching nothing
    delegates=True,
)

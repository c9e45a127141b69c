"""The WebSearch tool, as Claude Code 2.1.332 runs it: a client tool whose call makes a request of
its own through the session's model client (under the agent label `WebSearch`, so a cassette
records it, a trace shows it and --max-budget-usd counts it) on the calling agent's model, asking
the provider's web search to search once for the query: on the Messages API the web_search server
tool, forced, with thinking off and temperature 1; on OpenRouter its web plugin. The reply's text,
its search results' titles and URLs (`server_tool_use` / `web_search_tool_result` blocks, or the
chat wire's url_citation annotations) become the one tool result the calling model sees, in
Claude Code's words. A paused search (pause_turn) is sent back with its server blocks, so the
provider goes on.
"""

from __future__ import annotations

import json
from typing import Any

from agent.conversation import Stop
from agent.errors import Interrupted, ProviderError, ReplayMismatch
from agent.model.wire.chat import CITATIONS
from agent.model.wire.options import RequestOptions, WebSearch
from agent.tools.base import Tool, ToolError

NAME = "WebSearch"
SEARCH_AGENT = NAME  # the agent label of the search's requests (cassettes, traces, logs)
MAX_TOKENS = 32_000  # the search request's output limit, as Claude Code's
MAX_CONTINUATIONS = 3  # a paused search is sent back at most this often
MAX_QUERY_CHARS = 2_000
MAX_DOMAINS = 100
MAX_DOMAIN_CHARS = 253  # the longest DNS name
MAX_LINKS = 100  # of one search's results, listed to the model
MAX_RESULT_CHARS = 100_000
SEARCH_SYSTEM = ("You run a web search for another model, which waits for what you find and may search again. "
                 "Search once, then answer with a short summary of the results.")
REMINDER = "REMINDER: You MUST include the sources above in your response to the user using markdown hyperlinks."

DESCRIPTION = """\
Search the web and get the results: up-to-date information beyond your training data (current events, recent releases, documentation).

- Returns a summary of what the search found and the title and URL of each result.
- One call runs the search within a single request; search again with a better query if needed.
- allowed_domains keeps only results from those domains; blocked_domains leaves results from them out (not both in one call).
- Use the current year in queries about recent things (the date is in your context).

You MUST end your answer to the user with a "Sources:" section listing the relevant result URLs as markdown links:

    Sources:
    - [Title 1](https://example.com/1)
    - [Title 2](https://example.com/2)
"""


def _arguments(arguments: dict[str, Any]) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    query = arguments.get("query")
    if not isinstance(query, str) or len(query) < 2:
        raise ToolError("query must be a string of at least 2 characters.")
    if len(query) > MAX_QUERY_CHARS:
        raise ToolError(f"query must be at most {MAX_QUERY_CHARS:,} characters.")
    allowed, blocked = _domains(arguments, "allowed_domains"), _domains(arguments, "blocked_domains")
    if allowed and blocked:
        raise ToolError("Cannot specify both allowed_domains and blocked_domains in the same request")
    return query, allowed, blocked


def _domains(arguments: dict[str, Any], name: str) -> tuple[str, ...]:
    value = arguments.get(name)
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(item, str) and item.strip() for item in value):
        raise ToolError(f"{name} must be a list of domain names.")
    if len(value) > MAX_DOMAINS or any(len(item) > MAX_DOMAIN_CHARS for item in value):
        raise ToolError(f"{name} may name at most {MAX_DOMAINS} domains of at most {MAX_DOMAIN_CHARS} characters.")
    return tuple(item.strip() for item in value)


def _web_search(arguments: dict[str, Any], context: Any) -> str:
    query, allowed, blocked = _arguments(arguments)
    session = context.session
    if getattr(session, "client", None) is None:
        raise ToolError("WebSearch needs a model to search with, and this session has none.")
    return search_result(query, _search(session, context.agent.model, query, WebSearch(allowed, blocked)))


def _search(session: Any, model: str, query: str, search: WebSearch) -> list[dict[str, Any]]:
    """The blocks of the search's replies, in order: one request on the calling agent's `model`
    (as Claude Code's: a subagent's search is on its own model), and again after a pause."""
    options = RequestOptions(thinking="disabled", temperature=1, cached=False, web_search=search)
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": [{"type": "text", "text": f"Perform a web search for the query: {query}"}]}]
    blocks: list[dict[str, Any]] = []
    for _ in range(1 + MAX_CONTINUATIONS):
        try:  # streamed, as Claude Code's is; nobody watches the text
            reply = session.client.complete(SEARCH_SYSTEM, messages, [], model, SEARCH_AGENT,
                                            on_text=_unwatched, own=options, max_tokens=MAX_TOKENS)
        except (ReplayMismatch, Interrupted):
            raise
        except ProviderError as error:  # the search failed; the model may try again or go on without it
            raise ToolError(f"Web search failed: {error}") from error
        blocks.extend(reply.blocks)
        if reply.stop_reason != Stop.PAUSE or not reply.blocks:
            break
        messages.append(reply.as_message())  # its server blocks go back as they came, so the search goes on
    return blocks


def _unwatched(_: str) -> None:
    pass


def search_result(query: str, blocks: list[dict[str, Any]]) -> str:
    """The tool result Claude Code makes of a search's reply: the query, then each stretch of
    text and each search's links (or its error) in the order they came, then the reminder to cite
    the sources. The chat wire's citations come with the reply's text, so their links go first."""
    parts: list[str] = []
    text = ""
    for block in blocks:
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            text += block["text"]
        elif kind == "web_search_tool_result":
            if text.strip():
                parts.append(text.strip())
            text = ""
            parts.append(_results_part(block.get("content")))
        elif kind == CITATIONS:
            parts.insert(0, _links(block.get("citations")))
    if text.strip():
        parts.append(text.strip())
    body = "".join(f"{part}\n\n" for part in parts)
    result = f'Web search results for query: "{query}"\n\n{body}\n{REMINDER}'
    if len(result) > MAX_RESULT_CHARS:
        cut = MAX_RESULT_CHARS - len(REMINDER) - 60
        result = f"{result[:cut]}\n\n[... search results cut at {MAX_RESULT_CHARS:,} characters]\n\n{REMINDER}"
    return result


def _results_part(content: Any) -> str:
    """One web_search_tool_result: its results' links, or the search's error."""
    if isinstance(content, dict) and content.get("type") == "web_search_tool_result_error":
        return f"Web search error: {str(content.get('error_code'))[:100]}"
    results = [item for item in content if isinstance(item, dict) and item.get("type") == "web_search_result"] \
        if isinstance(content, list) else []
    return _links(results)


def _links(results: Any) -> str:
    links = [{"title": item["title"] if isinstance(item.get("title"), str) else "", "url": item["url"]}
             for item in (results if isinstance(results, list) else [])[:MAX_LINKS]
             if isinstance(item, dict) and isinstance(item.get("url"), str)]
    if not links:
        return "No links found."
    return "Links: " + json.dumps(links, ensure_ascii=False, separators=(",", ":"))


WEB_SEARCH = Tool(
    name=NAME,
    description=DESCRIPTION,
    parameters={
        "type": "object",
        "properties": {
            "query": {"description": "The search query to use", "type": "string", "minLength": 2},
            "allowed_domains": {"description": "Only include search results from these domains", "type": "array",
                                "items": {"type": "string"}},
            "blocked_domains": {"description": "Never include search results from these domains", "type": "array",
                                "items": {"type": "string"}},
        },
        "required": ["query"],
        "additionalProperties": False,
    },
    run=_web_search,
    # its only work is the search request, which a cassette answers: under --replay-tools it still
    # runs, touching no network
    delegates=True,
)

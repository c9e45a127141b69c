"""WebSearch end to end on both wire formats, as Claude Code 2.1.332 runs it (observed against it:
../shared/reference/claude-code-everyday-observed.md §3): a call makes a request of its own with the
provider's web search (Anthropic's web_search_20250305 server tool, forced; OpenRouter's web plugin),
whose reply (server_tool_use / web_search_tool_result blocks, streamed or not; url citations on the
chat wire) becomes the tool result in Claude Code's words; the search request is recorded like every
request, so a replay (with --replay-tools too) needs no network."""

import json

from scripted_model import Request, call, raw, stopped, text

REMINDER = "REMINDER: You MUST include the sources above in your response to the user using markdown hyperlinks."
RESULTS = [{"type": "web_search_result", "title": "Pear guide", "url": "https://pears.example/guide",
            "encrypted_content": "ENC1", "page_age": "2 days ago"},
           {"type": "web_search_result", "title": "Conférence pears", "url": "https://fruit.example/conference",
            "encrypted_content": "ENC2", "page_age": None}]
CITATION = {"type": "web_search_result_location", "url": "https://fruit.example/conference",
            "title": "Conférence pears", "encrypted_index": "IDX", "cited_text": "Conference is best"}
SEARCHED = [  # what Anthropic's API answered Claude Code's search with, in shape
    {"type": "text", "text": "I'll search for that."},
    {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "best pears"}},
    {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": RESULTS},
    {"type": "text", "text": "Conference pears are the best.", "citations": [CITATION]},
    {"type": "text", "text": " Enjoy."},
]
LINKS = ('Links: [{"title":"Pear guide","url":"https://pears.example/guide"},'
         '{"title":"Conférence pears","url":"https://fruit.example/conference"}]')


def _sse(event: dict) -> str:
    return f"event: {event['type']}\ndata: {json.dumps(event)}\n\n"


def messages_stream(content: list[dict], stop: str = "end_turn") -> str:
    """The Messages API's event stream of a reply holding `content`, as the API streams server
    blocks: a server_tool_use's input in input_json_delta pieces, a result block whole, citations
    as citations_delta."""
    usage = {"input_tokens": 40, "output_tokens": 1, "server_tool_use": {"web_search_requests": 1}}
    events = [{"type": "message_start", "message": {"id": "msg_s", "type": "message", "role": "assistant",
                                                     "model": "claude-haiku-4-5", "content": [], "stop_reason": None,
                                                     "usage": usage}}]
    for index, block in enumerate(content):
        if block["type"] == "text":
            events.append({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}})
            events += [{"type": "content_block_delta", "index": index, "delta": {"type": "citations_delta", "citation": c}}
                       for c in block.get("citations", [])]
            events.append({"type": "content_block_delta", "index": index,
                           "delta": {"type": "text_delta", "text": block["text"]}})
        elif block["type"] == "server_tool_use":
            events.append({"type": "content_block_start", "index": index, "content_block": {**block, "input": {}}})
            whole = json.dumps(block["input"])
            events += [{"type": "content_block_delta", "index": index,
                        "delta": {"type": "input_json_delta", "partial_json": whole[i:i + 5]}}
                       for i in range(0, len(whole), 5)]
        else:
            events.append({"type": "content_block_start", "index": index, "content_block": block})
        events.append({"type": "content_block_stop", "index": index})
    events.append({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                   "usage": {"output_tokens": 30}})
    events.append({"type": "message_stop"})
    return "".join(_sse(event) for event in events)


def chat_stream(content: str, annotations: list[dict]) -> str:
    """OpenRouter's chunks of a web-plugin reply: the text, then its url citations."""
    head = {"id": "gen-s", "object": "chat.completion.chunk", "model": "anthropic/claude-haiku-4.5"}
    chunks = [{"choices": [{"index": 0, "delta": {"role": "assistant", "content": content[:10]}}]},
              {"choices": [{"index": 0, "delta": {"content": content[10:]}}]},
              {"choices": [{"index": 0, "delta": {"annotations": annotations}}]},
              {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
              {"choices": [], "usage": {"prompt_tokens": 40, "completion_tokens": 30, "total_tokens": 70,
                                        "server_tool_use": {"web_search_requests": 1}}}]
    return "".join(f"data: {json.dumps({**head, **chunk})}\n\n" for chunk in chunks) + "data: [DONE]\n\n"


def annotation(title: str, url: str) -> dict:
    return {"type": "url_citation", "url_citation": {"url": url, "title": title, "content": "…",
                                                      "start_index": 0, "end_index": 5}}


def searched(request: Request):
    """The provider's answer to a search request, streamed, on the request's wire."""
    if request.wire == "messages":
        return raw(messages_stream(SEARCHED), content_type="text/event-stream")
    notes = [annotation(item["title"], item["url"]) for item in RESULTS] + [annotation("Pear guide",
                                                                                        RESULTS[0]["url"])]
    return raw(chat_stream("Conference pears are the best. Enjoy.", notes), content_type="text/event-stream")


def result_of(payload: dict) -> str:
    """The last tool result a request carries."""
    last = payload["messages"][-1]
    if last.get("role") == "tool":
        return last["content"]
    return [block for block in last["content"] if block.get("type") == "tool_result"][-1]["content"]


def test_a_search_is_a_request_of_its_own_with_the_providers_web_search(agent):
    agent.script(call("WebSearch", query="best pears", allowed_domains=["pears.example"]), searched,
                 lambda request: text("Conference. Sources: [Pear guide](https://pears.example/guide)"))
    run = agent.run("Which pears are best?", "--output-format", "json")
    result = json.loads(run.stdout)
    assert result["result"] == "Conference. Sources: [Pear guide](https://pears.example/guide)"
    # the search is counted and priced ($0.01) with the session's model, as Claude Code's modelUsage shows it
    (used,) = result["modelUsage"].values()
    tokens = (used["inputTokens"] * 1 + used["outputTokens"] * 5 + used["cacheCreationInputTokens"] * 1.25
              + used["cacheReadInputTokens"] * 0.1) / 1_000_000  # claude-haiku-4-5's prices
    assert used["webSearchRequests"] == 1 and round(used["costUSD"] - tokens, 6) == 0.01
    search = run.payloads[1]
    if agent.provider == "anthropic":
        assert {key: search[key] for key in ("max_tokens", "thinking", "temperature", "tools", "tool_choice", "stream")} == {
            "max_tokens": 32000, "thinking": {"type": "disabled"}, "temperature": 1, "stream": True,
            "tools": [{"type": "web_search_20250305", "name": "web_search", "allowed_domains": ["pears.example"],
                       "max_uses": 8}],
            "tool_choice": {"type": "tool", "name": "web_search"}}
        assert "cache_control" not in json.dumps(search)  # sent once: nothing to cache, as Claude Code's
        assert search["messages"] == [{"role": "user", "content": [
            {"type": "text", "text": "Perform a web search for the query: best pears"}]}]
        expected = (f'Web search results for query: "best pears"\n\nI\'ll search for that.\n\n{LINKS}\n\n'
                    f"Conference pears are the best. Enjoy.\n\n\n{REMINDER}")
    else:
        assert search["plugins"] == [{"id": "web", "include_domains": ["pears.example"]}]
        assert (search["temperature"], search["max_tokens"], "tools" in search, "reasoning" in search) == (
            1, 32000, False, False)
        assert search["messages"][-1] == {"role": "user", "content": "Perform a web search for the query: best pears"}
        expected = (f'Web search results for query: "best pears"\n\n{LINKS}\n\n'
                    f"Conference pears are the best. Enjoy.\n\n\n{REMINDER}")
    assert search["model"] == run.payloads[0]["model"]  # the calling agent's model
    assert result_of(run.payloads[2]) == expected
    # the search is in the cassette: a replay needs no network, running the tools or not
    assert agent.replay().stdout == "Conference. Sources: [Pear guide](https://pears.example/guide)\n"
    assert agent.replay("--replay-tools").exit_code == 0


def test_several_searches_an_error_and_no_results_keep_their_order(agent):
    content = [{"type": "text", "text": "Before.\n"},
               {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "a"}},
               {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": RESULTS[:1]},
               {"type": "text", "text": "Between."},
               {"type": "server_tool_use", "id": "srvtoolu_2", "name": "web_search", "input": {"query": "b"}},
               {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_2",
                "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}},
               {"type": "server_tool_use", "id": "srvtoolu_3", "name": "web_search", "input": {"query": "c"}},
               {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_3", "content": []},
               {"type": "text", "text": "After.\n\n"}]

    def answer(request: Request):  # not streamed this time: a JSON body answers the streamed request
        if request.wire == "messages":
            return raw({"id": "msg_s", "type": "message", "role": "assistant", "model": "claude-haiku-4-5",
                        "content": content, "stop_reason": "end_turn",
                        "usage": {"input_tokens": 40, "output_tokens": 30}})
        return raw({"id": "gen-s", "object": "chat.completion", "model": "anthropic/claude-haiku-4.5",
                    "choices": [{"index": 0, "finish_reason": "stop", "message": {
                        "role": "assistant", "content": "Nothing found.", "annotations": []}}],
                    "usage": {"prompt_tokens": 40, "completion_tokens": 30}})

    agent.script(call("WebSearch", query="pears", blocked_domains=["bad.example"]), answer, text("Done."))
    run = agent.run("Search.")
    search = run.payloads[1]
    if agent.provider == "anthropic":
        assert search["tools"] == [{"type": "web_search_20250305", "name": "web_search",
                                    "blocked_domains": ["bad.example"], "max_uses": 8}]
        assert result_of(run.payloads[2]) == (
            'Web search results for query: "pears"\n\nBefore.\n\nLinks: [{"title":"Pear guide","url":'
            '"https://pears.example/guide"}]\n\nBetween.\n\nWeb search error: max_uses_exceeded\n\nNo links found.\n\n'
            f"After.\n\n\n{REMINDER}")
    else:
        assert search["plugins"] == [{"id": "web", "exclude_domains": ["bad.example"]}]
        assert result_of(run.payloads[2]) == f'Web search results for query: "pears"\n\nNothing found.\n\n\n{REMINDER}'


def test_a_paused_search_is_sent_back_with_its_server_blocks(agent):
    first = SEARCHED[:3]
    agent.script(call("WebSearch", query="best pears"),
                 lambda request: raw(messages_stream(first, "pause_turn"), content_type="text/event-stream")
                 if request.wire == "messages" else stopped(text("Searching."), "pause_turn"),
                 lambda request: raw(messages_stream(SEARCHED[3:]), content_type="text/event-stream")
                 if request.wire == "messages" else text("Conference pears are the best."),
                 text("Done."))
    run = agent.run("Search.")
    again = run.payloads[2]
    if agent.provider == "anthropic":
        # the server blocks go back exactly as they came (the input put back together from its pieces)
        assert again["messages"][1] == {"role": "assistant", "content": first}
        assert result_of(run.payloads[3]) == (f'Web search results for query: "best pears"\n\nI\'ll search for that.'
                                              f"\n\n{LINKS}\n\nConference pears are the best. Enjoy.\n\n\n{REMINDER}")
    else:
        assert again["messages"][-1] == {"role": "assistant", "content": "Searching."}
        assert result_of(run.payloads[3]) == (f'Web search results for query: "best pears"\n\nSearching.Conference '
                                              f"pears are the best.\n\n\n{REMINDER}")


def test_bad_queries_and_both_domain_lists_are_errors_without_a_search(agent):
    agent.script(call("WebSearch", query="a"),
                 call("WebSearch", query="pears", allowed_domains=["a.example"], blocked_domains=["b.example"]),
                 call("WebSearch", query="pears", allowed_domains="a.example"),
                 text("Done."))
    run = agent.run("Search.")
    assert len(run.payloads) == 4  # no search request was sent
    errors = [result_of(payload) for payload in run.payloads[1:]]
    if agent.provider == "anthropic":
        assert all(block["is_error"] for payload in run.payloads[1:] for block in payload["messages"][-1]["content"])
    assert [error.removeprefix("Error: ") for error in errors] == [
        "query must be a string of at least 2 characters.",
        "Cannot specify both allowed_domains and blocked_domains in the same request",
        "WebSearch: argument 'allowed_domains' must be of type array, got str",
    ]


def test_websearch_needs_permission_in_print_mode_and_a_rule_grants_it(agent):
    agent.settings({"permissions": {"defaultMode": "default"}})
    agent.script(call("WebSearch", query="best pears"), text("Not allowed."))
    refused = agent.run("Search.")
    assert len(refused.payloads) == 2 and "WebSearch" in result_of(refused.payloads[1])
    assert "--allowedTools 'WebSearch'" in result_of(refused.payloads[1])
    agent.settings({"permissions": {"defaultMode": "default", "allow": ["WebSearch"]}})
    agent.script(call("WebSearch", query="best pears"), searched, text("Found."))
    allowed = agent.run("Search.")
    assert (allowed.stdout, len(allowed.payloads)) == ("Found.\n", 3)
    agent.settings({"permissions": {"defaultMode": "bypassPermissions", "deny": ["WebSearch"]}})
    agent.script(call("WebSearch", query="best pears"), text("Denied."))
    denied = agent.run("Search.")
    assert len(denied.payloads) == 2 and "denied" in result_of(denied.payloads[1]).lower()


def test_an_agent_listing_the_web_tools_gets_them_without_a_warning_and_searches_on_its_model(agent):
    agent.allow_any_model()
    agent.agent_file("researcher.md", "researcher", "Researches the web.", "You research.",
                     extra="tools: Read, WebFetch, WebSearch, NotebookEdit, TaskCreate, TodoWrite\nmodel: sonnet")
    agent.script(call("Agent", description="research", prompt="Find pears", subagent_type="researcher",
                      run_in_background=False),
                 call("WebSearch", query="best pears"), searched, text("Pears found."), text("Done."))
    run = agent.run("Research pears.")
    assert (run.exit_code, run.stdout) == (0, "Done.\n") and "does not have" not in run.stderr
    main, researcher, search = run.payloads[:3]
    names = [tool.get("name") or tool["function"]["name"] for tool in researcher["tools"]]
    assert {"Read", "WebFetch", "WebSearch", "NotebookEdit"} <= set(names)
    # a subagent's search is on its own model, as Claude Code's is
    assert search["model"] == researcher["model"] != main["model"]
    assert result_of(run.payloads[3]).startswith('Web search results for query: "best pears"')

"""Why a reply stopped, on both wire formats, and what the user and the model see for each: a cut-off
tool call is not run, a cut-off or refused answer exits 1 with one error line, a paused turn goes
on, a full context window is named; and an OpenRouter error inside `choices[]` is retried."""

import json

from scripted_model import Call, call, calls, raw, stopped, text

CUT_OFF_POEM = "Roses are red,\nviolets are bl"
MODEL = {"openrouter": "anthropic/claude-haiku-4.5", "anthropic": "claude-haiku-4-5"}  # the default ones


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("error:")]


def results_sent(payload: dict) -> list[dict]:
    """The tool results of the last turn as the provider received them: (id, text, is_error)."""
    messages = payload["messages"]
    if "system" in payload:  # Messages API: one user turn of tool_result blocks
        return [
            {"id": b["tool_use_id"], "text": b["content"], "is_error": b.get("is_error", False)}
            for b in messages[-1]["content"]
        ]
    tools = []  # chat: one tool message per call, after the assistant turn
    while messages and messages[-1]["role"] == "tool":
        tools.insert(0, messages.pop())
    return [{"id": m["tool_call_id"], "text": m["content"], "is_error": m["content"].startswith("Error: ")} for m in tools]


def calls_sent(payload: dict) -> list[str]:
    """The ids of the tool calls in the last assistant turn of a request."""
    assistant = [m for m in payload["messages"] if m["role"] == "assistant"][-1]
    if "system" in payload:
        return [b["id"] for b in assistant["content"] if b["type"] == "tool_use"]
    return [c["id"] for c in assistant.get("tool_calls", [])]


def test_a_tool_call_cut_off_at_the_output_limit_is_not_run(agent):
    agent.script(
        stopped(call("Write", file_path="poem.txt", content=CUT_OFF_POEM), "max_tokens"),
        lambda request: text(request.tool_results()[0]),
    )
    run = agent.run("Write a poem to poem.txt", "--output-format", "json")
    assert not (agent.workspace / "poem.txt").exists()
    result = json.loads(run.stdout)
    assert (run.exit_code, result["num_turns"], result["stop_reason"]) == (0, 2, "end_turn")
    [sent] = results_sent(run.payloads[1])
    assert sent["is_error"]
    assert "Write was not run: your reply was cut off at the output token limit" in sent["text"]
    assert "smaller steps" in sent["text"]
    # the cut-off call itself goes back too, so the result answers a call the provider knows
    assert calls_sent(run.payloads[1]) == [sent["id"]]


def test_every_call_of_a_cut_off_reply_gets_an_error_and_none_runs(agent):
    agent.script(
        stopped(calls(Call("Bash", {"command": "touch one.txt"}), Call("Bash", {"command": "touch two.txt"})), "max_tokens"),
        call("Bash", command="echo second try"),
        text("Done in smaller pieces."),
    )
    run = agent.run("Make two files", "--max-turns", "3")
    assert (run.exit_code, run.stdout) == (0, "Done in smaller pieces.\n")
    assert not (agent.workspace / "one.txt").exists() and not (agent.workspace / "two.txt").exists()
    first = results_sent(run.payloads[1])
    assert [r["id"] for r in first] == calls_sent(run.payloads[1]) and all(r["is_error"] for r in first)
    assert "second try" in results_sent(run.payloads[2])[0]["text"]


def test_an_answer_cut_off_at_the_output_limit_is_printed_and_exits_1(agent):
    """After Claude Code's three continuations (tests/test_subagents_continuation.py), still cut off."""
    agent.script(*(stopped(text("The first five primes are 2, 3, 5, 7 and"), "max_tokens") for _ in range(4)))
    run = agent.run("List the first five primes")
    assert (run.exit_code, run.stdout) == (1, "The first five primes are 2, 3, 5, 7 and\n")
    assert error_lines(run.stderr) == [
        f"error: the answer was cut off at the output limit (32000 tokens for {MODEL[agent.provider]}) and is "
        "incomplete; raise CLAUDE_CODE_MAX_OUTPUT_TOKENS or ask for less"
    ]


def test_json_result_says_the_answer_was_cut_off(agent):
    agent.script(*(stopped(text("Part one of"), "max_tokens") for _ in range(4)))
    run = agent.run("Write a long essay", "--output-format", "json")
    result = json.loads(run.stdout)
    assert run.exit_code == 1
    assert (result["subtype"], result["is_error"], result["stop_reason"], result["result"]) == (
        "success", True, "max_tokens", "Part one of",
    )
    assert len(error_lines(run.stderr)) == 1


def test_a_refusal_shows_its_text_and_exits_1_with_one_line(agent):
    agent.script(stopped(text("I can't help with that request."), "refusal"))
    run = agent.run("Help me with something bad")
    assert (run.exit_code, run.stdout) == (1, "I can't help with that request.\n")
    assert run.stderr.splitlines() == ["error: the model refused to answer"]


def test_json_result_says_the_model_refused(agent):
    agent.script(stopped(text("I can't help with that request."), "refusal"))
    run = agent.run("Help me with something bad", "--output-format", "json")
    result = json.loads(run.stdout)
    assert run.exit_code == 1
    assert (result["is_error"], result["stop_reason"], result["result"]) == (True, "refusal", "I can't help with that request.")


def test_a_refused_reply_runs_none_of_its_calls(agent):
    agent.script(stopped(call("Bash", "I won't do that.", command="touch ran.txt"), "refusal"))
    run = agent.run("Do something bad")
    assert run.exit_code == 1 and len(run.bodies) == 1
    assert not (agent.workspace / "ran.txt").exists()
    agent.script(text("Fine."))
    again = agent.run("Something else, then.", "--continue")  # the unrun call is answered, so this is valid
    assert again.exit_code == 0 and not (agent.workspace / "ran.txt").exists()
    sent = json.dumps(again.payloads[0]["messages"])
    assert "Bash was not run: the reply was refused, which ended the turn." in sent


def test_an_empty_reply_is_not_sent_back(agent):
    agent.script(text(""))
    assert agent.run("Say nothing.").stdout == ""
    agent.script(text("Something."))
    again = agent.run("Now say something.", "--continue")
    assert again.stdout == "Something.\n"
    assert [m["role"] for m in again.payloads[0]["messages"] if m["role"] != "system"] == ["user", "user"]


def test_a_paused_turn_is_sent_back_and_continues(agent):
    agent.script(stopped(text("Still searching"), "pause_turn"), text("Found it: 42."))
    run = agent.run("Find the answer", "--output-format", "json")
    result = json.loads(run.stdout)
    assert (run.exit_code, result["result"], result["num_turns"], result["stop_reason"]) == (0, "Found it: 42.", 2, "end_turn")
    last = run.payloads[1]["messages"][-1]  # the paused turn, sent back as the model left it
    assert last["role"] == "assistant"
    assert last["content"] in ("Still searching", [{"type": "text", "text": "Still searching"}])


def test_a_full_context_window_is_a_clear_error_naming_the_limit(agent):
    agent.script(stopped(text("The summary so far:"), "model_context_window_exceeded"))
    run = agent.run("Summarise everything", "--output-format", "json")
    result = json.loads(run.stdout)
    assert run.exit_code == 1
    assert (result["is_error"], result["stop_reason"]) == (True, "model_context_window_exceeded")
    assert error_lines(run.stderr) == [
        f"error: the conversation filled {MODEL[agent.provider]}'s context window (200,000 tokens); "
        "start again with less in it"
    ]


def test_an_error_inside_the_first_choice_is_retried_like_its_status(agent):
    def failed(request):
        if request.wire == "chat":  # OpenRouter: generation had started, so HTTP 200 with the error in the choice
            return raw({"id": "gen-1", "object": "chat.completion", "choices": [{
                "index": 0, "finish_reason": "error", "native_finish_reason": "error",
                "message": {"role": "assistant", "content": ""},
                "error": {"code": 502, "message": "Upstream provider returned an invalid response"},
            }]})
        return raw({"type": "error", "error": {"type": "api_error", "message": "Internal server error"}})

    agent.script(failed, text("recovered"))
    run = agent.run("Say recovered")
    assert (run.exit_code, run.stdout) == (0, "recovered\n")
    reason = "502 bad gateway" if agent.provider == "openrouter" else "500 server error"
    assert "retrying in" in run.stderr and f"after {reason} (attempt 1/6)" in run.stderr
    assert len(run.bodies) == 2


def test_a_non_retryable_error_inside_the_first_choice_is_one_line(agent):
    def failed(request):
        if request.wire == "chat":
            return raw({"choices": [{"index": 0, "finish_reason": "error", "message": {"role": "assistant", "content": ""},
                                     "error": {"code": 400, "message": "Provider rejected the tool schema"}}]})
        return raw({"type": "error", "error": {"type": "invalid_request_error", "message": "Provider rejected the tool schema"}})

    agent.script(failed)
    run = agent.run("Say hi")
    assert run.exit_code == 1 and len(run.bodies) == 1
    assert len(error_lines(run.stderr)) == 1 and "Provider rejected the tool schema" in run.stderr


def test_a_subagent_cut_off_says_so_to_its_parent(agent):
    agent.script(call("Agent", description="summarise", prompt="Summarise the logs.", subagent_type="general-purpose", run_in_background=False),
                 *(stopped(text("The logs show three fail"), "max_tokens") for _ in range(4)),  # continued 3 times
                 lambda request: text(request.reports()[0]))
    run = agent.run("Summarise the logs with a subagent.")
    assert "Agent terminated early due to an API error: API Error: Claude's response exceeded the 32000 output " \
        "token maximum." in run.stdout and "(error type max_output_tokens)" in run.stdout
    assert "The logs show three fail" not in run.stdout  # the pieces are not handed back as a report

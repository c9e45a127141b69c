"""The model's reasoning on both wire formats: MAX_THINKING_TOKENS turns it on, it travels back with
the assistant turn exactly as received (Anthropic thinking blocks with their signatures, OpenRouter's
reasoning_details), --verbose shows it, and its tokens are counted."""

import json


from agent.record.cassette_file import read as read_cassette
from scripted_model import call, text, thinking

THOUGHT = "The user wants the note. I should read note.txt first."


def responses(run) -> list[dict]:
    """The reply bodies the run received, from its cassette."""
    return [interaction.response for interaction in read_cassette(str(run.cassette)).interactions]


def assistant_turns(payload: dict) -> list[dict]:
    return [m for m in payload["messages"] if m["role"] == "assistant"]


def test_reasoning_goes_back_with_the_tool_call_exactly_as_received(agent):
    agent.write("note.txt", "buy milk")
    agent.script(thinking(call("Read", file_path="note.txt"), THOUGHT), text("It says: buy milk."))
    run = agent.run("What does note.txt say?")
    assert (run.exit_code, run.stdout) == (0, "It says: buy milk.\n")
    received = responses(run)[0]
    [sent] = assistant_turns(run.payloads[1])
    if agent.provider == "anthropic":  # every block in its place: thinking, redacted_thinking, tool_use
        assert sent["content"] == received["content"]
        assert [b["type"] for b in sent["content"]] == ["thinking", "redacted_thinking", "tool_use"]
        assert sent["content"][0]["signature"] == received["content"][0]["signature"]
    else:  # OpenRouter's reasoning_details, unchanged, beside the call they led to
        message = received["choices"][0]["message"]
        assert sent["reasoning_details"] == message["reasoning_details"]
        assert sent["tool_calls"][0]["id"] == message["tool_calls"][0]["id"]
        assert "reasoning" not in sent  # the readable copy is not sent back; the details are


def test_every_turn_keeps_its_own_reasoning(agent):
    agent.script(
        thinking(call("Bash", command="echo one"), "first thought"),
        thinking(call("Bash", command="echo two"), "second thought"),
        text("one two"),
    )
    run = agent.run("Echo one then two")
    turns = assistant_turns(run.payloads[2])
    sent = json.dumps(turns)
    assert sent.index("first thought") < sent.index("second thought")
    assert "sig-1" in json.dumps(turns[0]) and "sig-2" in json.dumps(turns[1])


def test_max_thinking_tokens_turns_extended_thinking_on(agent, monkeypatch):
    monkeypatch.setenv("MAX_THINKING_TOKENS", "4000")
    agent.script(thinking(text("4"), "2 + 2 is 4."))
    run = agent.run("What is 2 + 2? Answer with a number.")
    assert (run.exit_code, run.stdout) == (0, "4\n")
    payload = run.payloads[0]
    if agent.provider == "anthropic":
        assert payload["thinking"] == {"type": "enabled", "budget_tokens": 4000}
    else:
        assert payload["reasoning"] == {"max_tokens": 4000}
    assert payload["max_tokens"] == 32000  # the budget is part of the output limit, which stays


def test_thinking_is_off_without_the_variable(agent, monkeypatch):
    monkeypatch.setenv("MAX_THINKING_TOKENS", "0")
    agent.script(text("hi"))
    payload = agent.run("Say hi").payloads[0]
    assert "thinking" not in payload and "reasoning" not in payload


def test_verbose_shows_the_reasoning_on_stderr(agent):
    agent.script(thinking(text("4"), "2 + 2 is 4."))
    run = agent.run("What is 2 + 2?", "--verbose")
    assert run.stdout == "4\n"
    assert "2 + 2 is 4." in run.stderr
    thinking_line = next(line for line in run.stderr.splitlines() if line.startswith("[agent] thinking 1"))
    if agent.provider == "openrouter":  # OpenRouter says how many output tokens were reasoning
        assert "reasoning tokens" in thinking_line


def test_reasoning_tokens_are_counted_in_usage(agent):
    agent.script(thinking(text("4"), "Two and two make four. " * 20))
    run = agent.run("What is 2 + 2?", "--output-format", "json")
    result = json.loads(run.stdout)
    [received] = responses(run)
    usage = received["usage"]
    reported = usage.get("output_tokens", usage.get("completion_tokens"))
    assert result["usage"]["output_tokens"] == reported > 100  # the thought's tokens are in it
    assert result["total_cost_usd"] > 5.00 * reported / 1_000_000  # and paid for at the output price


def test_a_subagent_model_without_room_to_think_runs_without_thinking(agent, monkeypatch):
    """The budget was checked against the main model at the start; a subagent's smaller model
    (4,096 output tokens) must not end the run mid-way."""
    monkeypatch.setenv("MAX_THINKING_TOKENS", "5000")
    agent.allow_any_model()
    small = {"openrouter": "anthropic/claude-3-haiku", "anthropic": "claude-3-haiku-20240307"}[agent.provider]
    agent.agent_file("quick.md", "quick", "Answers quickly.", "QUICK BODY", f"model: {small}")
    agent.script(call("Agent", description="ask", prompt="Say ok.", subagent_type="quick", run_in_background=False), text("ok"), text("It said ok."))
    run = agent.run("Ask the quick agent.")
    assert (run.exit_code, run.stdout) == (0, "It said ok.\n"), run.stderr
    assert run.stderr.count("runs without extended thinking") == 1
    main, sub = run.payloads[0], run.payloads[1]
    assert sub["model"] == small and "thinking" not in sub and "reasoning" not in sub
    assert ("thinking" in main) or ("reasoning" in main)

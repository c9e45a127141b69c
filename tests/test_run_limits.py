"""The flags that bound a run and shape its answer, as Claude Code has them, on both wires and in
every output format: --max-budget-usd (the run stops before the request after the one that
reached the budget), --fallback-model (an overloaded or missing model gives way for the rest of
the turn) and --json-schema (the StructuredOutput tool, whose accepted call is the answer)."""

from __future__ import annotations

import asyncio
import json

import pytest
from claude_agent_sdk import ClaudeSDKClient, ResultMessage, SystemMessage

from agent import cli
from scripted_model import call, costing, raw, text
from sdk_session import sdk_options, sdk_query

HAIKU = {"openrouter": "anthropic/claude-haiku-4.5", "anthropic": "claude-haiku-4-5"}
SONNET = {"openrouter": "anthropic/claude-sonnet-4.5", "anthropic": "claude-sonnet-4-5"}
KEYS = {"openrouter": "OPENROUTER_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
BASES = {"openrouter": ("OPENROUTER_BASE_URL", "/api/v1/"), "anthropic": ("ANTHROPIC_BASE_URL", "")}
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}, "population": {"type": "integer"}},
          "required": ["city", "population"]}


def lines(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines()]


def overloaded(provider: str):
    """A 529 as each provider sends it."""
    if provider == "anthropic":
        return raw({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}, status=529)
    return raw({"error": {"message": "Overloaded", "code": 529}}, status=529)


def not_found(provider: str):
    """A 404 for a model the provider does not have."""
    if provider == "anthropic":
        return raw({"type": "error", "error": {"type": "not_found_error", "message": "model: claude-haiku-4-5"}}, status=404)
    return raw({"error": {"message": "No endpoints found for anthropic/claude-haiku-4.5.", "code": 404}}, status=404)


def tool_result_texts(payload: dict) -> list[str]:
    """The tool results of a request's last message(s), either wire."""
    messages = payload["messages"]
    if messages[-1]["role"] == "tool":
        return [m["content"] for m in messages if m["role"] == "tool"][-1:]
    return [b["content"] for b in messages[-1]["content"] if isinstance(b, dict) and b.get("type") == "tool_result"]


def offered(payload: dict, name: str) -> dict:
    """The definition of tool `name` as the request offers it, as {name, description, schema}."""
    for tool in payload["tools"]:
        spec = tool.get("function", tool)
        if spec["name"] == name:
            return {"name": name, "description": spec["description"], "schema": spec.get("parameters", spec.get("input_schema"))}
    raise AssertionError(f"{name} is not offered")


@pytest.fixture
def live(model, provider, monkeypatch, tmp_path):
    """A run against the scripted model directly, without a cassette: for bad input, which must
    exit before any request (`model.requests` stays empty)."""
    for variable in ("OPENROUTER_BASE_URL", "ANTHROPIC_BASE_URL", "OPENROUTER_API_KEY", "ANTHROPIC_API_KEY", "AGENT_PROVIDER",
                     "AGENT_MODEL"):
        monkeypatch.delenv(variable, raising=False)
    variable, suffix = BASES[provider]
    monkeypatch.setenv(variable, model.base + suffix)
    monkeypatch.setenv(KEYS[provider], "dummy")
    monkeypatch.setenv("AGENT_PROVIDER", provider)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    return model


# --- --max-budget-usd -------------------------------------------------------------------------------

def budget_script(agent) -> None:
    """Four replies of 20,000 input and 100 output tokens on Haiku 4.5 ($0.0205 each)."""
    agent.script(*(costing(call("Bash", command=f"echo step-{n} >> steps.txt"), 20_000, 100) for n in (1, 2, 3)),
                 costing(text("all steps done"), 20_000, 100))


def test_the_budget_stops_the_run_after_the_crossing_replys_tool_calls(agent):
    budget_script(agent)
    run = agent.run("Run the steps.", "--max-budget-usd", "0.05")
    # Claude Code says it on stdout, exit 1, nothing on stderr
    assert (run.exit_code, run.stdout, run.stderr) == (1, "Error: Exceeded USD budget (0.05)\n", "")
    assert len(run.payloads) == 3  # the fourth request was never sent
    assert (agent.workspace / "steps.txt").read_text() == "step-1\nstep-2\nstep-3\n"  # the third reply's call ran

    replayed = agent.replay("--output-format", "json")
    result = json.loads(replayed.stdout)
    assert replayed.exit_code == 1
    assert (result["subtype"], result["is_error"], result["result"]) == ("error_max_budget_usd", True, None)
    assert result["errors"] == ["Reached maximum budget ($0.05)"]
    assert result["terminal_reason"] == "budget_exhausted" and result["total_cost_usd"] == pytest.approx(0.0615)
    assert result["num_turns"] == 3

    streamed = lines(agent.replay("--output-format", "stream-json", "--verbose").stdout)
    assert [line["type"] for line in streamed].count("assistant") == 3
    last = streamed[-1]
    assert (last["type"], last["subtype"], last["result"], last["errors"]) == (
        "result", "error_max_budget_usd", None, ["Reached maximum budget ($0.05)"])


def test_a_budget_that_is_not_reached_changes_nothing(agent):
    budget_script(agent)
    run = agent.run("Run the steps.", "--max-budget-usd", "1", "--output-format", "json")
    result = json.loads(run.stdout)
    assert (run.exit_code, result["subtype"], result["result"]) == (0, "success", "all steps done")
    assert len(run.payloads) == 4 and "errors" not in result


def test_a_subagent_on_a_model_without_a_price_stops_the_run(agent):
    """Fail closed: what an unpriced model spent cannot be checked, so no further request is sent."""
    agent.allow_any_model()
    agent.agent_file("scout.md", "scout", "Looks around.", "Look around.", extra="model: claude-mystery-1")
    agent.script(call("Agent", description="look", prompt="Look around.", subagent_type="scout", run_in_background=False),
                 call("Bash", command="echo looked > looked.txt"), text("never sent"), text("never sent either"))
    run = agent.run("Send the scout.", "--max-budget-usd", "5", "--output-format", "json")
    result = json.loads(run.stdout)
    assert (run.exit_code, result["subtype"], result["terminal_reason"]) == (1, "error_max_budget_usd", "budget_exhausted")
    assert [p["model"] for p in run.payloads] == [HAIKU[agent.provider], "claude-mystery-1"]
    warnings = [line for line in run.stderr.splitlines() if "no price is known for claude-mystery-1" in line]
    assert len(warnings) == 1 and warnings[0].startswith("[agent] --max-budget-usd:")
    assert (agent.workspace / "looked.txt").exists()  # the crossing reply's call still ran


def test_the_agent_sdk_reads_the_budget_result(agent):
    budget_script(agent)
    run = sdk_query(agent, "Run the steps.", max_budget_usd=0.05)
    result = run.result
    assert (result.subtype, result.is_error, result.result) == ("error_max_budget_usd", True, None), run.stderr
    assert result.errors == ["Reached maximum budget ($0.05)"] and result.terminal_reason == "budget_exhausted"
    assert len(run.payloads) == 3
    assert "Reached maximum budget ($0.05)" in str(run.error)  # the SDK raises it after the result, as for Claude Code


@pytest.mark.parametrize("value", ["abc", "-1", "0", "nan"])
def test_a_bad_budget_is_refused_before_any_request(live, value, capsys):
    assert cli.main(["-p", "hi", "--max-budget-usd", value]) == 2
    err = capsys.readouterr().err
    assert err == (f"error: option '--max-budget-usd <amount>' argument '{value}' is invalid. "
                   "--max-budget-usd must be a number greater than 0\n")
    assert live.requests == []


def test_a_budget_for_a_model_without_a_price_is_refused(live, capsys):
    live.allowed_model_prefix = ""
    assert cli.main(["-p", "hi", "--max-budget-usd", "1", "--model", "some-unpriced-model"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --max-budget-usd cannot be enforced: no price is known for some-unpriced-model")
    assert err.count("\n") == 1 and live.requests == []


# --- --fallback-model -------------------------------------------------------------------------------

def test_an_overloaded_model_gives_way_to_the_fallback_for_the_rest_of_the_turn(agent):
    agent.allow_any_model()
    agent.script(*(overloaded(agent.provider) for _ in range(3)), call("Bash", command="echo on-the-fallback"),
                 text("done on the fallback"))
    run = agent.run("Do it.", "--fallback-model", "sonnet", "--output-format", "stream-json", "--verbose")
    assert run.exit_code == 0, run.stderr
    haiku, sonnet = HAIKU[agent.provider], SONNET[agent.provider]
    assert [p["model"] for p in run.payloads] == [haiku, haiku, haiku, sonnet, sonnet]  # 3 tries, as Claude Code
    out = lines(run.stdout)
    switch = [line for line in out if line.get("subtype") == "model_fallback"]
    assert len(switch) == 1 and switch[0]["type"] == "system"
    assert {k: switch[0][k] for k in ("trigger", "original_model", "fallback_model", "content")} == {
        "trigger": "overloaded", "original_model": haiku, "fallback_model": sonnet,
        "content": "Switched to Sonnet 4.5 due to high demand for Haiku 4.5"}
    assert {line["message"]["model"] for line in out if line["type"] == "assistant"} == {sonnet}
    result = out[-1]
    assert (result["subtype"], result["result"], list(result["modelUsage"])) == ("success", "done on the fallback", [sonnet])
    retries = [line for line in run.stderr.splitlines() if "retrying" in line]
    assert [line.split("(")[-1] for line in retries] == ["attempt 1/2)", "attempt 2/2)"]
    assert sum("Switched to Sonnet 4.5 due to high demand for Haiku 4.5" in line for line in run.stderr.splitlines()) == 1


def test_a_missing_model_gives_way_at_once_and_text_mode_says_nothing(agent):
    agent.allow_any_model()
    agent.script(not_found(agent.provider), text("answered by the fallback"))
    run = agent.run("Hi.", "--fallback-model", "sonnet")
    assert (run.exit_code, run.stdout, run.stderr) == (0, "answered by the fallback\n", "")
    assert [p["model"] for p in run.payloads] == [HAIKU[agent.provider], SONNET[agent.provider]]  # no retry

    streamed = lines(agent.replay("--output-format", "stream-json", "--verbose").stdout)
    switch = next(line for line in streamed if line.get("subtype") == "model_fallback")
    assert (switch["trigger"], switch["content"]) == ("model_not_found", "Switched to Sonnet 4.5 because Haiku 4.5 is not available")


def test_each_turn_tries_the_main_model_again(agent):
    """Through the Agent SDK: the first turn falls back, the second starts on the main model."""
    agent.allow_any_model()
    agent.script(not_found(agent.provider), text("first, on the fallback"), text("second, on the main model"))
    stderr: list[str] = []
    options, cassette = sdk_options(agent, stderr, fallback_model="sonnet")

    async def body():
        async with ClaudeSDKClient(options) as client:
            turns = []
            for prompt in ("First question.", "Second question."):
                await client.query(prompt)
                turns.append([message async for message in client.receive_response()])
            return turns

    first, second = asyncio.run(asyncio.wait_for(body(), 60))
    results = [next(m for m in messages if isinstance(m, ResultMessage)) for messages in (first, second)]
    assert [r.result for r in results] == ["first, on the fallback", "second, on the main model"], stderr
    switches = [m for m in first + second if isinstance(m, SystemMessage) and m.subtype == "model_fallback"]
    assert len(switches) == 1 and switches[0] in first and switches[0].data["trigger"] == "model_not_found"
    assert list(results[0].model_usage) == [SONNET[agent.provider]]
    from agent.record.cassette_file import read

    models = [i.request["model"] for i in read(str(cassette)).interactions]
    assert models == [HAIKU[agent.provider], SONNET[agent.provider], HAIKU[agent.provider]]


def test_a_fallback_that_is_the_main_model_is_refused(live, capsys):
    assert cli.main(["-p", "hi", "--fallback-model", "haiku"]) == 2  # the alias names the main model
    err = capsys.readouterr().err
    assert err == ("error: Fallback model cannot be the same as the main model. Please specify a different model "
                   "for --fallback-model.\n")
    assert live.requests == []


# --- --json-schema ----------------------------------------------------------------------------------

def test_a_valid_structured_output_is_the_answer(agent):
    agent.script(call("StructuredOutput", city="Paris"), call("StructuredOutput", city="Paris", population=2_100_000),
                 text("never sent"))
    run = agent.run("How many people live in Paris?", "--json-schema", json.dumps(SCHEMA), "--output-format", "json")
    result = json.loads(run.stdout)
    assert (run.exit_code, result["subtype"], result["is_error"], result["stop_reason"]) == (0, "success", False, "tool_use")
    assert result["result"] == '{"city":"Paris","population":2100000}'
    assert result["structured_output"] == {"city": "Paris", "population": 2_100_000}
    first, second = run.payloads  # the run ends with the accepted call: nothing more is sent
    tool = offered(first, "StructuredOutput")
    assert tool["schema"] == SCHEMA  # verbatim
    assert tool["description"].startswith("Use this tool to return your final response in the requested structured format. "
                                          "You MUST call this tool exactly once at the end of your response")
    assert [t.removeprefix("Error: ") for t in tool_result_texts(second)] == [  # the chat wire says so in words
        "Output does not match required schema: root: must have required property 'population'"]

    replayed = agent.replay("--output-format", "text")
    assert (replayed.exit_code, replayed.stdout) == (0, '{"city":"Paris","population":2100000}\n')
    last = lines(agent.replay("--output-format", "stream-json", "--verbose").stdout)[-1]
    assert last["structured_output"] == {"city": "Paris", "population": 2_100_000}


def test_a_text_answer_is_reminded_once_to_call_the_tool(agent):
    agent.script(text("About 2.1 million."), text("Still just text."))
    run = agent.run("How many people live in Paris?", "--json-schema", json.dumps(SCHEMA), "--output-format", "json")
    result = json.loads(run.stdout)
    assert (run.exit_code, result["subtype"], result["result"]) == (0, "success", "Still just text.")
    assert "structured_output" not in result
    assert len(run.payloads) == 2
    assert run.payloads[1]["messages"][-1] == {
        "role": "user", "content": "[structured-output-enforce] You MUST call the StructuredOutput tool to complete this "
                                   "request. Call this tool now."}


def test_without_the_flag_no_structured_output_tool_is_offered(agent):
    agent.script(text("hi"))
    run = agent.run("Say hi.")
    assert "StructuredOutput" not in run.bodies[0]


def test_the_agent_sdk_reads_the_structured_output(agent):
    agent.script(call("StructuredOutput", city="Lyon", population=520_000))
    run = sdk_query(agent, "How many people live in Lyon?", output_format={"type": "json_schema", "schema": SCHEMA})
    assert run.error is None, run.stderr
    assert run.result.subtype == "success" and run.result.structured_output == {"city": "Lyon", "population": 520_000}
    assert offered(run.payloads[0], "StructuredOutput")["schema"] == SCHEMA


@pytest.mark.parametrize("schema, message", [
    ("{not json", "error: --json-schema is not valid JSON: "),
    ("[1, 2]", "error: --json-schema must be a JSON object\n"),
    ('{"type": "nope"}', "error: --json-schema is not a valid JSON Schema: type: 'nope' is not valid under any"),
    ('{"properties": {"a": {"$ref": "https://example.com/a.json"}}}', "error: --json-schema is not a valid JSON Schema: $ref"),
    ('{"properties": {"a": {"pattern": "(?=a)"}}}', "error: --json-schema is not a valid JSON Schema: the pattern"),
], ids=["not-json", "not-an-object", "bad-type", "remote-ref", "lookahead"])
def test_a_bad_schema_is_refused_before_any_request(live, schema, message, capsys):
    assert cli.main(["-p", "hi", "--json-schema", schema]) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1
    assert live.requests == []

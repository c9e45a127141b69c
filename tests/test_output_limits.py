"""The output limit each request asks for (`max_tokens`): per model from a small table, a safe
default for unknown models, Claude Code's CLAUDE_CODE_MAX_OUTPUT_TOKENS to change it, and one-line
errors for values that make no sense."""

import logging

import pytest

from agent.cli.environment import Environment
from agent.errors import UsageError
from agent.model.limits import Limits, context_window
from scripted_model import text

# the same models as each provider names them
CLAUDE_3_HAIKU = {"openrouter": "anthropic/claude-3-haiku", "anthropic": "claude-3-haiku-20240307"}
SONNET_4_5 = {"openrouter": "anthropic/claude-sonnet-4.5", "anthropic": "claude-sonnet-4-5-20250929"}


def test_known_models_get_their_maximum_up_to_claude_codes_default():
    limits = Limits()
    assert limits.max_tokens("anthropic/claude-haiku-4.5") == 32000  # its maximum is 64,000
    assert limits.max_tokens("claude-haiku-4-5-20251001") == 32000
    assert limits.max_tokens("claude-3-5-haiku-20241022") == 8192
    assert limits.max_tokens("anthropic/claude-3-haiku") == 4096
    assert limits.max_tokens("claude-opus-4-1") == 32000
    assert limits.max_tokens("claude-opus-4-20250514") == 32000
    assert limits.max_tokens("openai/gpt-4o-mini") == 16384  # a dated or suffixed id matches its family
    assert limits.max_tokens("openai/gpt-4o1") == 4096  # but a prefix must end at a dash


def test_unknown_models_get_a_limit_every_model_accepts():
    assert Limits().max_tokens("qwen2.5-coder-0.5b-instruct") == 4096
    assert Limits().max_tokens("meta-llama/llama-3.1-8b-instruct") == 4096


def limits_from(env: dict[str, str]) -> Limits:
    """The limits a run gets from `env`, read as the CLI reads every variable."""
    environment = Environment(env)
    return Limits(environment["CLAUDE_CODE_MAX_OUTPUT_TOKENS"], environment["MAX_THINKING_TOKENS"])


def test_the_variable_sets_the_limit_up_to_a_known_models_maximum():
    assert limits_from({"CLAUDE_CODE_MAX_OUTPUT_TOKENS": "1000"}).max_tokens("claude-haiku-4-5") == 1000
    assert limits_from({"CLAUDE_CODE_MAX_OUTPUT_TOKENS": "100000"}).max_tokens("claude-haiku-4-5") == 64000
    assert limits_from({"CLAUDE_CODE_MAX_OUTPUT_TOKENS": "100000"}).max_tokens("claude-3-haiku") == 4096
    assert limits_from({"CLAUDE_CODE_MAX_OUTPUT_TOKENS": "100000"}).max_tokens("some-new-model") == 100000
    assert limits_from({"CLAUDE_CODE_MAX_OUTPUT_TOKENS": " "}).max_tokens("some-new-model") == 4096


def test_a_thinking_budget_must_leave_room_for_an_answer():
    assert limits_from({"MAX_THINKING_TOKENS": "31999"}).thinking("claude-haiku-4-5") == 31999
    assert limits_from({}).thinking("claude-haiku-4-5") == 0
    with pytest.raises(UsageError, match="below the output limit for qwen3 .4096 tokens."):
        limits_from({"MAX_THINKING_TOKENS": "4096"}).thinking("qwen3")


@pytest.mark.parametrize("variable, value", [
    ("CLAUDE_CODE_MAX_OUTPUT_TOKENS", "lots"), ("CLAUDE_CODE_MAX_OUTPUT_TOKENS", "0"),
    ("CLAUDE_CODE_MAX_OUTPUT_TOKENS", "-5"), ("CLAUDE_CODE_MAX_OUTPUT_TOKENS", "1.5"),
    ("MAX_THINKING_TOKENS", "many"), ("MAX_THINKING_TOKENS", "500"), ("MAX_THINKING_TOKENS", "²"),
])
def test_malformed_values_are_usage_errors(variable, value):
    with pytest.raises(UsageError) as caught:
        limits_from({variable: value})
    assert variable in str(caught.value) and "\n" not in str(caught.value)


def test_context_windows_are_known_for_the_table_only():
    assert context_window("anthropic/claude-haiku-4.5") == 200_000
    assert context_window("qwen2.5-coder") is None


def test_the_default_model_asks_for_32000_tokens(agent):
    agent.script(text("hi"))
    run = agent.run("Say hi")
    assert run.exit_code == 0
    assert run.payloads[0]["max_tokens"] == 32000


def test_an_old_model_is_not_sent_more_than_it_accepts(agent):
    agent.allow_any_model()
    agent.script(text("hi"))
    run = agent.run("Say hi", "--model", CLAUDE_3_HAIKU[agent.provider])
    assert run.exit_code == 0
    assert run.payloads[0]["max_tokens"] == 4096


def test_an_unknown_model_gets_the_safe_default(agent):
    agent.allow_any_model()
    agent.script(text("hi"))
    run = agent.run("Say hi", "--model", "qwen2.5-coder-0.5b-instruct")
    assert run.payloads[0]["max_tokens"] == 4096


def test_claude_code_max_output_tokens_sets_it(agent, monkeypatch):
    monkeypatch.setenv("CLAUDE_CODE_MAX_OUTPUT_TOKENS", "64000")
    agent.allow_any_model()
    agent.script(text("hi"), text("hi"))
    assert agent.run("Say hi", "--model", SONNET_4_5[agent.provider]).payloads[0]["max_tokens"] == 64000
    monkeypatch.setenv("CLAUDE_CODE_MAX_OUTPUT_TOKENS", "1500")
    assert agent.run("Say hi").payloads[0]["max_tokens"] == 1500


@pytest.mark.parametrize("variable, value", [
    ("CLAUDE_CODE_MAX_OUTPUT_TOKENS", "32k"), ("MAX_THINKING_TOKENS", "100"), ("MAX_THINKING_TOKENS", "32000"),
])
def test_a_bad_value_is_one_line_and_exit_2_before_any_request(agent, monkeypatch, variable, value):
    monkeypatch.setenv(variable, value)
    run = agent.run("Say hi")
    assert (run.exit_code, run.stdout) == (2, "")
    assert len(run.stderr.splitlines()) == 1 and run.stderr.startswith(f"error: {variable}")
    assert not run.cassette.exists()


def test_mid_run_a_model_without_room_turns_thinking_off_instead():
    seen = []
    handler = logging.Handler()
    handler.emit = lambda record: seen.append(record.getMessage())
    logging.getLogger("agent").addHandler(handler)
    try:
        limits = limits_from({"MAX_THINKING_TOKENS": "5000"})
        assert limits.thinking("claude-3-haiku", strict=False) == 0
        assert limits.thinking("claude-3-haiku", strict=False) == 0
        assert limits.thinking("claude-haiku-4-5", strict=False) == 5000
    finally:
        logging.getLogger("agent").removeHandler(handler)
    assert seen.count(
        "MAX_THINKING_TOKENS (5000) must be below the output limit for claude-3-haiku (4096 tokens): "
        "claude-3-haiku runs without extended thinking") == 1

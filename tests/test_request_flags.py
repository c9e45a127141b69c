"""The flags that shape every request, on both wire formats, as Claude Code 2.1.332 sends them:
--tools (exactly the built-ins named, MCP tools whatever it says, subagents too), --effort
(output_config.effort and its beta only on models with an effort control; OpenRouter's
reasoning.effort), --max-thinking-tokens / --thinking / --thinking-display, --betas and
--task-budget; bad values (the session flags' too), and a replay that follows what its cassette
recorded."""

from __future__ import annotations

import json

import pytest
import yaml

from agent import cli
from agent.model.reasoning import model_effort
from mcp_servers import mcp_config, stdio
from scripted_model import call, text

OPUS_4_5 = {"anthropic": "claude-opus-4-5", "openrouter": "anthropic/claude-opus-4.5"}
OPUS_4_6 = {"anthropic": "claude-opus-4-6", "openrouter": "anthropic/claude-opus-4.6"}


def tool_names(payload: dict) -> list[str]:
    return [t.get("name") or t["function"]["name"] for t in payload.get("tools", [])]


def betas(run) -> list[str | None]:
    """Each recorded request's anthropic-beta header (None where it had none)."""
    data = yaml.safe_load(run.cassette.read_text())
    found = []
    for interaction in data["interactions"]:
        headers = {name.lower(): value for name, value in (interaction["request"].get("headers") or {}).items()}
        found.append(headers["anthropic-beta"][0] if "anthropic-beta" in headers else None)
    return found


def warnings_in(stderr: str, needle: str) -> list[str]:
    return [line for line in stderr.splitlines() if needle in line]


# --tools ------------------------------------------------------------------------------------------

def test_tools_offers_exactly_the_built_ins_named_and_no_catalog_of_what_it_leaves_out(agent):
    agent.skill("apple", "Tells the apple harvest dates.", "Apples ripen in September.")
    agent.agent_file("picker.md", "picker", "Picks the ripest fruit.", "Pick.")
    agent.script(text("done"))
    run = agent.run("Say done.", "--tools", "Read,Bash")
    assert (run.exit_code, run.stdout) == (0, "done\n"), run.stderr
    [request] = run.payloads
    assert tool_names(request) == ["Read", "Bash"]
    sent = json.dumps(request)
    assert "apple harvest" not in sent and "ripest fruit" not in sent  # no skill catalog, no agent types


def test_tools_names_skill_agent_and_send_message_as_claude_code_does(agent):
    agent.skill("apple", "Tells the apple harvest dates.", "Apples ripen in September.")
    agent.script(text("done"))
    run = agent.run("Say done.", "--tools", "Read Skill,Task,SendMessage")  # commas or spaces; Task is Agent
    assert run.exit_code == 0, run.stderr
    [request] = run.payloads
    assert tool_names(request) == ["Read", "Skill", "Agent", "SendMessage"]
    assert "apple harvest" in json.dumps(request)


def test_empty_tools_offers_no_built_in_but_keeps_the_mcp_tools(agent):
    agent.script(text("done"))
    run = agent.run("Say done.", "--tools", "", "--mcp-config", mcp_config(kb=stdio("knowledge_base.py")))
    assert run.exit_code == 0, run.stderr
    names = tool_names(run.payloads[0])
    assert names and all(name.startswith("mcp__kb__") for name in names)


def test_tools_default_offers_every_tool(agent):
    agent.script(text("one"))
    every = tool_names(agent.run("Say one.").payloads[0])
    agent.script(text("one"))
    run = agent.run("Say one.", "--tools", "default")
    assert tool_names(run.payloads[0]) == every and {"Read", "Bash", "Agent"} <= set(every)


def test_subagents_get_only_the_tools_the_session_offers(agent):
    agent.script(call("Agent", description="look", prompt="Look around.", subagent_type="general-purpose",
                      run_in_background=False), text("nothing here"), text("It found nothing."))
    run = agent.run("Ask an agent to look around.", "--tools", "Agent,Read")
    assert (run.exit_code, run.stdout) == (0, "It found nothing.\n"), run.stderr
    main, sub = run.payloads[0], run.payloads[1]
    assert tool_names(main) == ["Read", "Agent"]
    assert "Read" in tool_names(sub) and not {"Bash", "Write", "Edit", "Glob", "Grep"} & set(tool_names(sub))


def test_an_unknown_tool_name_is_one_warning_and_the_run_goes_on(agent):
    agent.script(text("done"))
    run = agent.run("Say done.", "--tools", "Read,Bogus,bash")  # names match exactly, as in Claude Code
    assert (run.exit_code, run.stdout) == (0, "done\n")
    [warning] = warnings_in(run.stderr, "--tools")
    assert "Bogus, bash" in warning and "Read, Write, Edit, Bash" in warning
    assert tool_names(run.payloads[0]) == ["Read"]


# --effort -----------------------------------------------------------------------------------------

def test_effort_is_sent_only_to_a_model_with_an_effort_control_and_max_is_high_on_opus_4_5(agent):
    agent.allow_any_model()
    agent.script(text("done"))
    run = agent.run("Say done.", "--model", OPUS_4_5[agent.provider], "--effort", "max")
    assert run.exit_code == 0, run.stderr
    [request] = run.payloads
    if agent.provider == "anthropic":
        assert request["output_config"] == {"effort": "high"} and "reasoning" not in request
        assert betas(run) == ["effort-2025-11-24"]
    else:  # OpenRouter takes every level and maps it to the model itself
        assert request["reasoning"] == {"effort": "max"} and "output_config" not in request
        assert betas(run) == [None]


def test_effort_on_haiku_sends_nothing_to_the_messages_api(agent):
    agent.script(text("done"))
    run = agent.run("Say done.", "--effort", "LOW")  # any case, as in Claude Code
    assert run.exit_code == 0, run.stderr
    [request] = run.payloads
    assert "output_config" not in request and betas(run) == [None]
    if agent.provider == "openrouter":
        assert request["reasoning"] == {"effort": "low"}
    else:
        assert "reasoning" not in request and "thinking" not in request


def test_an_unknown_effort_is_claude_codes_warning_and_the_run_goes_on(agent):
    agent.allow_any_model()
    agent.script(text("done"))
    run = agent.run("Say done.", "--model", OPUS_4_5[agent.provider], "--effort", "bogus")
    assert (run.exit_code, run.stdout) == (0, "done\n")
    [warning] = warnings_in(run.stderr, "--effort")
    assert "Unknown --effort value 'bogus' — ignoring it and using the default effort. Valid values: low, medium, " \
           "high, xhigh, max." in warning
    [request] = run.payloads
    assert "output_config" not in request and "reasoning" not in request


@pytest.mark.parametrize("model, level, sent", [
    ("claude-opus-4-5", "xhigh", "high"), ("claude-opus-4-5-20251101", "max", "high"), ("claude-opus-4-5", "low", "low"),
    ("claude-opus-4-6", "xhigh", "high"), ("claude-opus-4-6", "max", "max"), ("anthropic/claude-sonnet-4.6", "xhigh", "high"),
    ("claude-opus-4-7", "xhigh", "xhigh"), ("claude-sonnet-5-5", "max", "max"),
    ("claude-haiku-4-5", "high", None), ("claude-sonnet-4-5", "high", None), ("qwen3", "high", None),
])
def test_the_effort_each_model_takes_as_claude_code_sends_it(model, level, sent):
    assert model_effort(model, level) == sent


# thinking -----------------------------------------------------------------------------------------

def test_max_thinking_tokens_does_what_the_variable_does_and_wins_over_it(agent, monkeypatch):
    monkeypatch.setenv("MAX_THINKING_TOKENS", "4000")
    agent.script(text("4"))
    run = agent.run("What is 2 + 2?", "--max-thinking-tokens", "6000")
    assert run.exit_code == 0, run.stderr
    [request] = run.payloads
    if agent.provider == "anthropic":
        assert request["thinking"] == {"type": "enabled", "budget_tokens": 6000}
    else:
        assert request["reasoning"] == {"max_tokens": 6000}


@pytest.mark.parametrize("flags", [["--max-thinking-tokens", "0"], ["--thinking", "disabled"]], ids=["zero", "disabled"])
def test_thinking_off_wins_over_the_variable(agent, monkeypatch, flags):
    monkeypatch.setenv("MAX_THINKING_TOKENS", "4000")
    agent.script(text("4"))
    [request] = agent.run("What is 2 + 2?", *flags).payloads
    assert "thinking" not in request and "reasoning" not in request


def test_thinking_enabled_without_a_budget_takes_claude_codes_default_and_the_display(agent):
    agent.script(text("4"))
    run = agent.run("What is 2 + 2?", "--thinking", "adaptive", "--thinking-display", "summarized")
    assert run.exit_code == 0, run.stderr
    [request] = run.payloads
    if agent.provider == "anthropic":  # haiku 4.5 has no adaptive thinking: a budget of all but one token
        assert request["thinking"] == {"type": "enabled", "budget_tokens": 31999, "display": "summarized"}
    else:
        assert request["reasoning"] == {"max_tokens": 31999}


def test_a_model_with_adaptive_thinking_thinks_adaptively_at_its_effort(agent):
    agent.allow_any_model()
    agent.script(text("4"))
    run = agent.run("What is 2 + 2?", "--model", OPUS_4_6[agent.provider], "--max-thinking-tokens", "5000",
                    "--effort", "xhigh")
    assert run.exit_code == 0, run.stderr
    [request] = run.payloads
    if agent.provider == "anthropic":
        assert request["thinking"] == {"type": "adaptive"} and request["output_config"] == {"effort": "high"}
        assert betas(run) == ["effort-2025-11-24"]
    else:
        assert request["reasoning"] == {"enabled": True, "effort": "xhigh"}


def test_a_thinking_display_with_thinking_off_is_one_warning(agent):
    agent.script(text("4"))
    run = agent.run("What is 2 + 2?", "--thinking-display", "omitted")
    assert run.exit_code == 0
    assert len(warnings_in(run.stderr, "--thinking-display has no effect")) == 1
    assert "thinking" not in run.payloads[0]


# --betas and --task-budget ------------------------------------------------------------------------

def test_betas_sends_the_beta_claude_code_allows_and_warns_of_the_others(agent):
    agent.script(text("done"))
    run = agent.run("Say done.", "--betas", "context-1m-2025-08-07,foo-1", "--verbose")
    assert run.exit_code == 0, run.stderr
    [warning] = warnings_in(run.stderr, "Beta header")
    assert "Beta header 'foo-1' is not allowed. Only the following betas are supported: context-1m-2025-08-07" in warning
    if agent.provider == "anthropic":
        assert betas(run) == ["context-1m-2025-08-07"]
    else:
        assert betas(run) == [None] and len(warnings_in(run.stderr, "OpenRouter takes no Anthropic beta headers")) == 1


def test_task_budget_is_the_messages_apis_output_config(agent):
    agent.script(text("done"))
    run = agent.run("Say done.", "--task-budget", "50000")
    assert run.exit_code == 0, run.stderr
    [request] = run.payloads
    if agent.provider == "anthropic":
        assert request["output_config"] == {"task_budget": {"type": "tokens", "total": 50000}}
        assert betas(run) == ["task-budgets-2026-03-13"]
    else:
        assert "output_config" not in request and betas(run) == [None]
        assert len(warnings_in(run.stderr, "--task-budget is not supported on OpenRouter")) == 1


# bad values and replays ---------------------------------------------------------------------------

@pytest.mark.parametrize("flags, message", [
    (["--max-thinking-tokens", "500"], "--max-thinking-tokens must be 0 (off) or a whole number >= 1024"),
    (["--max-thinking-tokens", "-1"], "--max-thinking-tokens must be 0 (off) or a whole number >= 1024"),
    (["--max-thinking-tokens", "many"], "argument --max-thinking-tokens: invalid int value: 'many'"),
    (["--max-thinking-tokens", "40000"], "--max-thinking-tokens (40000) must be below the output limit"),
    (["--task-budget", "0"], "--task-budget must be a positive integer"),
    (["--task-budget", "abc"], "argument --task-budget: invalid int value: 'abc'"),
    (["--thinking-display", "bogus"], "argument --thinking-display: invalid choice: 'bogus'"),
    (["--thinking", "sometimes"], "argument --thinking: invalid choice: 'sometimes'"),
    (["--resume-session-at", "5b7a0f0e-1111-4222-8333-944445555666"], "--resume-session-at requires --resume"),
    (["--continue", "--resume-session-at", "5b7a0f0e-1111-4222-8333-944445555666"], "requires --resume"),
    (["--resume", "5b7a0f0e-1111-4222-8333-944445555666", "--session-id", "5b7a0f0e-1111-4222-8333-944445555667"],
     "--session-id with --continue or --resume also needs --fork-session"),
])
def test_bad_values_and_flags_that_do_not_go_together_are_one_line_errors(flags, message, monkeypatch, capsys,
                                                                          tmp_path):
    monkeypatch.setenv("OPENROUTER_API_KEY", "dummy")
    monkeypatch.setenv("OPENROUTER_BASE_URL", "http://127.0.0.1:9/api/v1")  # nothing is sent: it fails before
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    assert cli.main(["-p", "hi", *flags]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_replay_follows_the_recorded_flags_and_refuses_others(agent):
    agent.allow_any_model()
    agent.script(text("done"))
    recorded = agent.run("Say done.", "--model", OPUS_4_5[agent.provider], "--effort", "low", "--tools", "Read")
    assert recorded.exit_code == 0, recorded.stderr
    again = agent.replay()
    assert (again.exit_code, again.stdout) == (0, "done\n"), again.stderr
    other = agent.replay("--effort", "high")
    assert other.exit_code == 2 and "--effort 'high' differs from the cassette" in other.stderr

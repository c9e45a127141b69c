"""--fallback-model as Claude Code 2.1.332 takes it: a comma-separated chain, tried in order when a
model is overloaded or not found, by the main conversation and by subagents alike; a subagent
that ended on a fallback model hands back a report opening with Claude Code's line
"⚠ This agent switched to <model> because its earlier model could not be used." Both wires."""

from __future__ import annotations

import json

import pytest
from scripted_model import call, raw, text

from agent import cli

OPUS = {"openrouter": "anthropic/claude-opus-4.5", "anthropic": "claude-opus-4-5"}
SONNET = {"openrouter": "anthropic/claude-sonnet-4.5", "anthropic": "claude-sonnet-4-5"}
OLD_OPUS = {"openrouter": "anthropic/claude-opus-4.1", "anthropic": "claude-opus-4-1"}
HAIKU = {"openrouter": "anthropic/claude-haiku-4.5", "anthropic": "claude-haiku-4-5"}
SWITCHED = "\u26a0 This agent switched to Opus 4.1 because its earlier model could not be used."
TASK = "TASK: check the build."


def not_found(provider: str):
    """A 404 for a model the provider does not have."""
    if provider == "anthropic":
        return raw({"type": "error", "error": {"type": "not_found_error", "message": "model not found"}}, status=404)
    return raw({"error": {"message": "No endpoints found for this model.", "code": 404}}, status=404)


def chain(provider: str) -> str:
    return f"sonnet,{OLD_OPUS[provider]}"


def test_a_subagent_moves_down_the_chain_and_its_report_says_it_switched(agent):
    agent.allow_any_model()
    agent.script(call("Agent", description="check", prompt=TASK, subagent_type="general-purpose", model="opus",
                      run_in_background=False),
                 lambda request: text("Got: " + request.tool_results()[0].split("\n\n<usage>")[0]))
    agent.route(TASK, not_found(agent.provider), not_found(agent.provider), text("The build is green."))
    run = agent.run("Check the build with a subagent.", "--fallback-model", chain(agent.provider))
    assert run.exit_code == 0, run.stderr
    # the line opens the result, indented as the notes above the hand-back header are (as Claude Code does)
    assert run.stdout.startswith(f"Got:   {SWITCHED}\n  \n[Subagent hand-back] ")
    assert "\n  The build is green.\nagentId: " in run.stdout
    models = [p["model"] for p in run.payloads]
    p = agent.provider
    assert models == [HAIKU[p], OPUS[p], SONNET[p], OLD_OPUS[p], HAIKU[p]]


def test_a_subagent_on_its_own_model_has_no_switch_line(agent):
    agent.allow_any_model()
    agent.script(call("Agent", description="check", prompt=TASK, subagent_type="general-purpose",
                      run_in_background=False),
                 lambda request: text("Got: " + request.reports()[0].split("\n\n<usage>")[0]))
    agent.route(TASK, text("The build is green."))
    run = agent.run("Check the build with a subagent.", "--fallback-model", chain(agent.provider))
    assert run.exit_code == 0, run.stderr
    assert run.stdout.startswith("Got: The build is green.\nagentId: ")
    assert "switched" not in json.dumps(run.payloads[-1])


def test_a_background_agents_notification_opens_with_the_switch_line(agent):
    agent.allow_any_model()
    agent.script(call("Agent", description="check", prompt=TASK, subagent_type="general-purpose", model="opus"),
                 text("Launched."),
                 lambda request: text("Done: " + json.dumps(request.messages[-1])))
    agent.route(TASK, not_found(agent.provider), not_found(agent.provider), text("The build is green."))
    run = agent.run("Check the build in the background.", "--fallback-model", chain(agent.provider))
    assert run.exit_code == 0, run.stderr
    assert f"<result>{SWITCHED}\\n\\nThe build is green.</result>".replace("\u26a0", "\\u26a0") in run.stdout


def test_the_main_conversation_moves_down_the_chain_too(agent):
    agent.allow_any_model()
    agent.script(not_found(agent.provider), not_found(agent.provider), text("answered by the second fallback"))
    run = agent.run("Hi.", "--fallback-model", chain(agent.provider), "--output-format", "stream-json", "--verbose")
    assert run.exit_code == 0, run.stderr
    p = agent.provider
    assert [payload["model"] for payload in run.payloads] == [HAIKU[p], SONNET[p], OLD_OPUS[p]]
    switches = [json.loads(line) for line in run.stdout.splitlines() if '"model_fallback"' in line]
    assert [(s["original_model"], s["fallback_model"]) for s in switches] == [(HAIKU[p], SONNET[p]),
                                                                               (SONNET[p], OLD_OPUS[p])]
    assert json.loads(run.stdout.splitlines()[-1])["result"] == "answered by the second fallback"


@pytest.mark.parametrize("provider", ["openrouter", "anthropic"])
def test_a_chain_naming_the_main_model_is_refused(model, provider, monkeypatch, tmp_path, capsys):
    for variable in ("OPENROUTER_BASE_URL", "ANTHROPIC_BASE_URL", "AGENT_MODEL"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("OPENROUTER_BASE_URL" if provider == "openrouter" else "ANTHROPIC_BASE_URL", model.base)
    monkeypatch.setenv("OPENROUTER_API_KEY" if provider == "openrouter" else "ANTHROPIC_API_KEY", "dummy")
    monkeypatch.setenv("AGENT_PROVIDER", provider)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    assert cli.main(["-p", "Hi.", "--fallback-model", "sonnet,haiku"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and model.requests == []
    assert err == ("error: Fallback model cannot be the same as the main model. Please specify a different model "
                   "for --fallback-model.\n")

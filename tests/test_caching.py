"""Prompt caching and cost: where the cache breakpoints sit in the payloads, and what a run cost."""

import json

from scripted_model import call, text


def test_cache_breakpoints_sit_on_the_stable_prefix(agent):
    agent.write("a.txt", "alpha")
    agent.script(call("Read", file_path="a.txt"), call("Read", file_path="a.txt"), text("done"))
    run = agent.run("Read a.txt twice.")
    for payload in run.payloads:
        assert payload["cache_control"] == {"type": "ephemeral"}  # the provider marks the latest message
        if agent.provider == "anthropic":
            assert payload["tools"][-1]["cache_control"] == {"type": "ephemeral"}
            assert all("cache_control" not in t for t in payload["tools"][:-1])
            assert [b["cache_control"] for b in payload["system"]] == [{"type": "ephemeral"}]
        else:
            system = payload["messages"][0]
            assert system["role"] == "system" and system["content"][0]["cache_control"] == {"type": "ephemeral"}
        # message shapes are untouched: no breakpoint moves through the conversation
        assert "cache_control" not in json.dumps(payload["messages"][1:])
    # each request is a byte prefix of the next, up to the closing brackets
    for earlier, later in zip(run.bodies, run.bodies[1:]):
        assert later.startswith(earlier[:-2])


def test_json_reports_cost_for_known_models(agent):
    agent.script(text("hi"))
    result = json.loads(agent.run("Say hi.", "--output-format", "json").stdout)
    usage = result["usage"]
    price_in, price_out = 1.00, 5.00  # claude-haiku-4-5, USD per million tokens
    expected = round((usage["input_tokens"] * price_in + usage["output_tokens"] * price_out) / 1e6, 6)
    assert result["total_cost_usd"] == expected > 0


def test_unknown_model_has_no_cost_rather_than_a_guess(agent):
    agent.allow_any_model()
    agent.script(text("hi"))
    result = json.loads(agent.run("Say hi.", "--model", "mystery/model-9", "--output-format", "json").stdout)
    assert result["total_cost_usd"] is None

"""Explore's thoroughness as Claude Code 2.1.332 offers it: the Agent tool's catalog line for Explore
asks the caller to say in the prompt how thorough to be ("quick", "medium" or "very thorough"),
and Explore's own system prompt tells it to search as widely as the caller asked. There is no call
parameter for it (Claude Code has none): the depth travels in the task. Both wire formats."""

import json

from scripted_model import call, text

OFFER = ('When calling it, say in the prompt how thorough to be: "quick" for a single targeted lookup, "medium" for a '
         'moderate exploration, or "very thorough" to search across multiple locations and naming conventions.')
ADAPT = "Match how widely you search to the thoroughness your caller asked for"


def agent_tool(payload):
    for tool in payload["tools"]:
        if (tool.get("name") or tool["function"]["name"]) == "Agent":
            return tool.get("description") or tool["function"]["description"], (
                tool.get("input_schema") or tool["function"]["parameters"])
    raise AssertionError("no Agent tool")


def system_of(payload):
    if "system" in payload:
        return json.dumps(payload["system"])
    return json.dumps([m for m in payload["messages"] if m["role"] == "system"])


def test_explore_is_offered_with_its_depths_and_told_to_follow_the_one_asked(agent):
    agent.write("src/app.py", "def handler():\n    pass\n")
    agent.script(call("Agent", description="find handler", prompt="very thorough: where is handler defined?",
                      subagent_type="Explore", run_in_background=False),
                 text("handler is in src/app.py"), text("It is in src/app.py."))
    run = agent.run("Where is handler defined?")
    assert run.exit_code == 0 and run.stdout == "It is in src/app.py.\n", run.stderr
    description, schema = agent_tool(run.payloads[0])
    (line,) = [line for line in description.splitlines() if line.startswith("- Explore: ")]
    assert line.startswith("- Explore: Fast read-only agent") and OFFER in line
    assert not any("thorough" in json.dumps(value) for value in schema["properties"].values())  # no parameter
    explore = run.payloads[1]
    assert ADAPT in system_of(explore) and "very thorough" in system_of(explore)
    assert "very thorough: where is handler defined?" in json.dumps(explore["messages"])

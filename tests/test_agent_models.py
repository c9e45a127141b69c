"""Which model and effort each subagent runs at, on both wire formats, by the subagents page's
rules (Claude Code 2.1.332's where the page is silent): CLAUDE_CODE_SUBAGENT_MODEL as a default
that leaves Explore alone, CLAUDE_CODE_SUBAGENT_MODEL_FORCE's three cases, family aliases running
the main model's exact version, aliases only in the Agent call, a forked skill's `model: inherit`,
the `fable` alias, `effort` (definition, call, CLAUDE_CODE_EFFORT_LEVEL), and the settings' `env`
block applied as if exported."""

import json
import os

from scripted_model import call, text

IDS = {
    "openrouter": {"haiku": "anthropic/claude-haiku-4.5", "sonnet": "anthropic/claude-sonnet-4.5",
                   "opus": "anthropic/claude-opus-4.5", "fable": "anthropic/claude-fable-5.2"},
    "anthropic": {"haiku": "claude-haiku-4-5", "sonnet": "claude-sonnet-4-5", "opus": "claude-opus-4-5",
                  "fable": "claude-fable-5-2"},
}


def first_user_text(payload):
    messages = [m for m in payload["messages"] if m["role"] != "system"]
    content = messages[0]["content"]
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)


def model_of(run, task):
    """The model of the first request whose conversation opens with `task` (a subagent's brief,
    or the main conversation's prompt)."""
    return next(p["model"] for p in run.payloads if first_user_text(p).strip().endswith(task))


def delegate(task, kind, **extra):
    return call("Agent", description=task[:20], prompt=task, subagent_type=kind, run_in_background=False, **extra)


def agent_schema(payload):
    for tool in payload["tools"]:
        if (tool.get("name") or tool["function"]["name"]) == "Agent":
            return tool.get("input_schema") or tool["function"]["parameters"]
    raise AssertionError("no Agent tool")


def tool_result_texts(payload):
    """The texts of the tool results answering a request's latest assistant turn, on either wire."""
    messages = payload["messages"]
    if messages[-1]["role"] == "tool":
        results = []
        for message in reversed(messages):
            if message["role"] != "tool":
                break
            results.append(message["content"] if isinstance(message["content"], str) else json.dumps(message["content"]))
        return results[::-1]
    last = messages[-1]["content"]
    return [b["content"] if isinstance(b["content"], str) else json.dumps(b["content"])
            for b in (last if isinstance(last, list) else []) if b.get("type") == "tool_result"]


def test_the_variable_alone_is_a_default_the_definition_and_the_call_beat_and_explore_ignores(agent, monkeypatch):
    agent.allow_any_model()
    ids = IDS[agent.provider]
    agent.agent_file("plain.md", "plain", "Plain agent.", "PLAIN BODY")
    agent.agent_file("fast.md", "fast", "Fast agent.", "FAST BODY", "model: sonnet")
    monkeypatch.setenv("CLAUDE_CODE_SUBAGENT_MODEL", "opus")
    agent.script(delegate("Task plain.", "plain"), text("one"), delegate("Task fast.", "fast"), text("two"),
                 delegate("Task explore.", "Explore"), text("three"),
                 delegate("Task called.", "plain", model="sonnet"), text("four"), text("done"))
    run = agent.run("Run the four tasks.")
    assert run.exit_code == 0 and run.stdout == "done\n"
    assert model_of(run, "Run the four tasks.") == ids["haiku"]
    assert model_of(run, "Task plain.") == ids["opus"]
    assert model_of(run, "Task fast.") == ids["sonnet"]
    assert model_of(run, "Task explore.") == ids["haiku"]  # the main model
    assert model_of(run, "Task called.") == ids["sonnet"]
    assert agent_schema(run.payloads[0])["properties"]["model"]["enum"] == ["sonnet", "opus", "haiku", "fable"]


def test_force_with_the_variable_runs_every_subagent_on_it_but_a_forked_skills_inherit(agent, monkeypatch):
    agent.allow_any_model()
    ids = IDS[agent.provider]
    agent.agent_file("fast.md", "fast", "Fast agent.", "FAST BODY", "model: sonnet")
    agent.skill("keep", "Use to keep the main model.", "Task inherit.", fork=True, extra="model: inherit")
    agent.skill("swap", "Use to run on sonnet.", "Task sonnet skill.", fork=True, extra="model: sonnet")
    monkeypatch.setenv("CLAUDE_CODE_SUBAGENT_MODEL", "opus")
    monkeypatch.setenv("CLAUDE_CODE_SUBAGENT_MODEL_FORCE", "1")
    agent.script(delegate("Task fast.", "fast"), text("one"), delegate("Task explore.", "Explore"), text("two"),
                 call("Skill", skill="keep"), text("three"), call("Skill", skill="swap"), text("four"), text("done"))
    run = agent.run("Run the tasks.")
    assert run.exit_code == 0 and run.stdout == "done\n"
    assert model_of(run, "Task fast.") == ids["opus"]
    assert model_of(run, "Task explore.") == ids["opus"]
    assert model_of(run, "Task inherit.") == ids["haiku"]
    assert model_of(run, "Task sonnet skill.") == ids["opus"]
    schema = agent_schema(run.payloads[0])["properties"]
    assert "model" not in schema and "effort" in schema  # the call cannot choose a model


def test_force_alone_runs_every_subagent_on_the_main_model(agent, monkeypatch):
    agent.allow_any_model()
    agent.agent_file("fast.md", "fast", "Fast agent.", "FAST BODY", "model: opus")
    agent.skill("swap", "Use to run on sonnet.", "Task sonnet skill.", fork=True, extra="model: sonnet")
    monkeypatch.setenv("CLAUDE_CODE_SUBAGENT_MODEL_FORCE", "true")
    agent.script(delegate("Task fast.", "fast"), text("one"), call("Skill", skill="swap"), text("two"), text("done"))
    run = agent.run("Run the tasks.")
    assert run.exit_code == 0
    assert {model_of(run, "Task fast."), model_of(run, "Task sonnet skill.")} == {IDS[agent.provider]["haiku"]}


def test_a_family_alias_runs_the_main_models_exact_version_but_not_in_the_variable(agent, monkeypatch):
    agent.allow_any_model()
    main = "anthropic/claude-3.5-haiku" if agent.provider == "openrouter" else "claude-haiku-4-5-20251001"
    agent.agent_file("quick.md", "quick", "Quick agent.", "QUICK BODY", "model: haiku")
    agent.agent_file("plain.md", "plain", "Plain agent.", "PLAIN BODY")
    monkeypatch.setenv("CLAUDE_CODE_SUBAGENT_MODEL", "haiku")
    agent.script(delegate("Task quick.", "quick"), text("one"), delegate("Task called.", "plain", model="haiku"),
                 text("two"), delegate("Task plain.", "plain"), text("three"), text("done"))
    run = agent.run("Run the tasks.", "--model", main)
    assert run.exit_code == 0
    assert model_of(run, "Task quick.") == main
    assert model_of(run, "Task called.") == main
    assert model_of(run, "Task plain.") == IDS[agent.provider]["haiku"]  # the alias's own version


def test_a_family_alias_the_environment_sets_means_that_model(agent, monkeypatch):
    agent.allow_any_model()
    main = "anthropic/claude-3.5-haiku" if agent.provider == "openrouter" else "claude-haiku-4-5-20251001"
    agent.agent_file("quick.md", "quick", "Quick agent.", "QUICK BODY", "model: haiku")
    monkeypatch.setenv("ANTHROPIC_DEFAULT_HAIKU_MODEL", "my-haiku-deployment")
    agent.script(delegate("Task quick.", "quick"), text("one"), text("done"))
    run = agent.run("Run the task.", "--model", main)
    assert run.exit_code == 0
    assert model_of(run, "Task quick.") == "my-haiku-deployment"


def test_the_call_takes_aliases_only_and_fable_is_an_alias(agent):
    agent.allow_any_model()
    agent.agent_file("teller.md", "teller", "Tells stories.", "TELLER BODY", "model: fable")
    agent.agent_file("plain.md", "plain", "Plain agent.", "PLAIN BODY")
    agent.script(delegate("Task full id.", "plain", model="claude-opus-4-5"), delegate("Task teller.", "teller"),
                 text("one"), delegate("Task called.", "plain", model="fable"), text("two"), text("done"))
    run = agent.run("Run the tasks.")
    assert run.exit_code == 0
    (refused,) = tool_result_texts(run.payloads[1])
    assert 'model: Invalid option: expected one of "sonnet"|"opus"|"haiku"|"fable"' in refused
    assert not any(first_user_text(p).strip().endswith("Task full id.") for p in run.payloads)  # no agent ran
    assert model_of(run, "Task teller.") == IDS[agent.provider]["fable"]
    assert model_of(run, "Task called.") == IDS[agent.provider]["fable"]


def effort_of(payload):
    """The effort a request asks: output_config on the Messages API, reasoning on OpenRouter."""
    return (payload.get("output_config") or payload.get("reasoning") or {}).get("effort")


def test_an_agents_effort_comes_from_the_call_its_definition_or_the_session_on_the_main_model(agent):
    agent.allow_any_model()
    openrouter = agent.provider == "openrouter"
    main, other = ("anthropic/claude-opus-4.5", "anthropic/claude-opus-4.6") if openrouter else ("claude-opus-4-5", "claude-opus-4-6")
    agent.agent_file("deep.md", "deep", "Thinks hard.", "DEEP BODY", "effort: high")
    agent.agent_file("plain.md", "plain", "Plain agent.", "PLAIN BODY")
    agent.agent_file("other.md", "other", "Other model.", "OTHER BODY", f"model: {other}")
    agent.script(delegate("Task deep.", "deep"), text("one"), delegate("Task called.", "deep", effort="medium"),
                 text("two"), delegate("Task plain.", "plain"), text("three"), delegate("Task other.", "other"),
                 text("four"), delegate("Task turbo.", "plain", effort="turbo"), text("done"))
    run = agent.run("Run the tasks.", "--model", main, "--effort", "low")
    assert run.exit_code == 0 and run.stdout == "done\n"
    efforts = {task: effort_of(next(p for p in run.payloads if first_user_text(p).strip().endswith(task)))
               for task in ("Run the tasks.", "Task deep.", "Task called.", "Task plain.", "Task other.")}
    assert efforts == {"Run the tasks.": "low", "Task deep.": "high", "Task called.": "medium", "Task plain.": "low",
                       "Task other.": None}
    assert "Invalid option: expected one of" in json.dumps(tool_result_texts(run.payloads[-1]))
    assert agent_schema(run.payloads[0])["properties"]["effort"]["enum"] == ["low", "medium", "high", "xhigh", "max"]


def test_the_effort_variable_wins_over_the_flag_the_definition_and_the_call(agent, monkeypatch):
    agent.allow_any_model()
    main = "anthropic/claude-opus-4.5" if agent.provider == "openrouter" else "claude-opus-4-5"
    agent.agent_file("deep.md", "deep", "Thinks hard.", "DEEP BODY", "effort: low")
    monkeypatch.setenv("CLAUDE_CODE_EFFORT_LEVEL", "MEDIUM")
    agent.script(delegate("Task deep.", "deep", effort="high"), text("one"), text("done"))
    run = agent.run("Run the task.", "--model", main, "--effort", "low")
    assert run.exit_code == 0
    assert [effort_of(p) for p in run.payloads] == ["medium"] * 3


def test_the_settings_env_block_is_applied_as_if_exported_and_wins_over_the_environment(agent, monkeypatch):
    agent.allow_any_model()
    agent.settings({"permissions": {"defaultMode": "bypassPermissions"},
                    "env": {"CLAUDE_CODE_SUBAGENT_MODEL": "opus", "F2_GREETING": "hello-from-settings"}})
    agent.agent_file("plain.md", "plain", "Plain agent.", "PLAIN BODY")
    monkeypatch.setenv("CLAUDE_CODE_SUBAGENT_MODEL", "sonnet")
    agent.script(call("Bash", command='echo "greeting=$F2_GREETING"'), delegate("Task plain.", "plain"), text("one"),
                 text("done"))
    run = agent.run("Greet, then run the task.")
    assert run.exit_code == 0
    assert model_of(run, "Task plain.") == IDS[agent.provider]["opus"]
    assert "greeting=hello-from-settings" in json.dumps(tool_result_texts(run.payloads[1]))
    assert "F2_GREETING" not in os.environ  # an in-process run leaves nothing behind


def test_settings_env_blocks_stack_user_project_local_then_the_flag(agent):
    agent.trust()
    agent.settings({"permissions": {"defaultMode": "bypassPermissions"},
                    "env": {"F2_A": "user", "F2_B": "user", "F2_C": "user", "F2_D": "user"}})
    agent.settings({"env": {"F2_B": "project", "F2_C": "project", "F2_D": "project"}}, where="project")
    agent.settings({"env": {"F2_C": "local", "F2_D": "local"}}, where="local")
    agent.script(call("Bash", command='echo "$F2_A $F2_B $F2_C $F2_D"'), text("done"))
    run = agent.run("Show the variables.", "--settings", json.dumps({"env": {"F2_D": "flag"}}))
    assert run.exit_code == 0
    assert "user project local flag" in json.dumps(tool_result_texts(run.payloads[1]))


def test_an_untrusted_projects_env_block_cannot_redirect_the_key_or_reach_commands(agent):
    agent.allow_any_model()
    agent.agent_file("plain.md", "plain", "Plain agent.", "PLAIN BODY")
    agent.settings({"env": {"CLAUDE_CODE_SUBAGENT_MODEL": "sonnet", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",
                            "OPENROUTER_BASE_URL": "http://127.0.0.1:9/api/v1", "F2_PLANTED": "planted"}}, where="project")
    agent.script(call("Bash", command='echo "planted=[$F2_PLANTED]"'), delegate("Task plain.", "plain"), text("one"),
                 text("done"))
    run = agent.run("Check, then run the task.")
    assert run.exit_code == 0 and run.stdout == "done\n"  # recorded against the scripted model: not redirected
    warning = [line for line in run.stderr.splitlines() if "in the env of the project's settings" in line]
    assert len(warning) == 1 and "ANTHROPIC_BASE_URL" in warning[0] and "F2_PLANTED" in warning[0]
    assert "CLAUDE_CODE_SUBAGENT_MODEL" not in warning[0]
    assert "planted=[]" in json.dumps(tool_result_texts(run.payloads[1]))
    assert model_of(run, "Task plain.") == IDS[agent.provider]["sonnet"]  # what shapes requests still applies

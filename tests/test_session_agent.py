"""A session run as an agent, on both wire formats: --agent with a custom and a built-in agent,
the settings' agent field (the flag wins), Agent(a, b) in its tools, initialPrompt, --resume,
--append-subagent-system-prompt, and long flags never read as prefixes."""

import json

import pytest

from agent import cli
from pty_session import start  # noqa: F401 (the fixture of the banner test)
from scripted_model import call, text

REVIEWER = "You are a meticulous code reviewer. Report problems as a bullet list."
WRITER = "You are a technical writer. Answer in plain prose."
MAIN = "You are agent, a coding assistant"


def tool_names(payload):
    return [t.get("name") or t["function"]["name"] for t in payload.get("tools", [])]


def system_of(payload) -> str:
    """A request's system prompt on either wire."""
    first = payload["messages"][0]
    system = payload.get("system", first["content"] if first["role"] == "system" else "")
    return system if isinstance(system, str) else "".join(block["text"] for block in system)


def user_texts(payload) -> list[str]:
    found = []
    for message in payload["messages"]:
        if message["role"] != "user":
            continue
        content = message["content"]
        found += [content] if isinstance(content, str) else [p.get("text", "") for p in content if p.get("type") == "text"]
    return found


def test_a_custom_agent_gives_the_session_its_prompt_tools_and_model_and_claude_md_still_loads(agent):
    agent.allow_any_model()
    agent.agent_file("reviewer.md", "reviewer", "Reviews code.", REVIEWER, "tools: Read, Grep\nmodel: sonnet")
    agent.write("CLAUDE.md", "Always mention the ticket number KUMQUAT-7.")
    agent.script(text("- looks fine"))
    run = agent.run("Review the project.", "--agent", "reviewer")
    assert run.exit_code == 0 and "looks fine" in run.stdout
    request = run.payloads[0]
    assert REVIEWER in system_of(request) and MAIN not in system_of(request)
    assert tool_names(request) == ["Read", "Grep"]
    assert "sonnet" in request["model"]
    assert any("KUMQUAT-7" in part for part in user_texts(request))


def test_a_built_in_agent_runs_the_session_read_only(agent):
    agent.script(text("found nothing"))
    run = agent.run("Where is main?", "--agent", "Explore")
    assert run.exit_code == 0
    request = run.payloads[0]
    assert "read-only exploration agent" in system_of(request) and MAIN not in system_of(request)
    tools = tool_names(request)  # every tool but Claude Code's Explore drops (Agent, Edit, Write, NotebookEdit)
    assert {"Read", "Bash", "Glob", "Grep"} <= set(tools) and not {"Agent", "Edit", "Write", "NotebookEdit"} & set(tools)


def test_the_settings_agent_field_applies_and_the_flag_wins(agent):
    agent.agent_file("reviewer.md", "reviewer", "Reviews code.", REVIEWER)
    agent.agent_file("writer.md", "writer", "Writes docs.", WRITER)
    agent.settings({"permissions": {"defaultMode": "bypassPermissions"}, "agent": "reviewer"})
    agent.script(text("reviewed"), text("written"))
    by_settings = agent.run("Go.")
    assert REVIEWER in system_of(by_settings.payloads[0]) and MAIN not in system_of(by_settings.payloads[0])
    by_flag = agent.run("Go.", "--agent", "writer")
    assert WRITER in system_of(by_flag.payloads[0]) and REVIEWER not in system_of(by_flag.payloads[0])


def test_an_unknown_settings_agent_is_one_warning_and_an_unknown_flag_agent_is_bad_input(agent, capsys, monkeypatch):
    agent.settings({"permissions": {"defaultMode": "bypassPermissions"}, "agent": "ghost"})
    agent.script(text("plain"))
    run = agent.run("Go.")
    assert run.exit_code == 0 and "ignoring agent 'ghost'" in run.stderr
    assert MAIN in system_of(run.payloads[0])
    capsys.readouterr()
    monkeypatch.setenv("OPENROUTER_API_KEY" if agent.provider == "openrouter" else "ANTHROPIC_API_KEY", "dummy-key")
    assert cli.main(["-p", "Go.", "--agent", "phantom"]) == 2  # before any request: no cassette
    err = capsys.readouterr().err
    assert "--agent: no agent named 'phantom'; available agents: Explore, Plan, general-purpose" in err
    assert "Traceback" not in err


def test_agent_in_the_session_agents_tools_limits_the_types_it_may_start(agent):
    agent.agent_file("lead.md", "lead", "Leads.", "You lead the work.", "tools: Read, Agent(Explore)")
    agent.script(
        call("Agent", description="general", prompt="Do it all.", subagent_type="general-purpose", run_in_background=False),
        lambda request: text("told: " + request.tool_results()[0]),
    )
    run = agent.run("Delegate.", "--agent", "lead")
    assert run.exit_code == 0
    assert "Agent type 'general-purpose' not found. Available agents: Explore" in run.stdout
    request = run.payloads[0]
    assert tool_names(request) == ["Read", "Agent"]
    agent_tool = json.dumps(request["tools"][1])
    assert "Explore" in agent_tool and "general-purpose" not in agent_tool.split("subagent_type")[0]


def test_an_empty_prompt_keeps_our_instructions(agent):
    agents = json.dumps({"plain": {"description": "Plain.", "prompt": "", "tools": ["Read"]}})
    agent.script(text("ok"))
    run = agent.run("Go.", "--agents", agents, "--agent", "plain")
    assert run.exit_code == 0 and MAIN in system_of(run.payloads[0]) and tool_names(run.payloads[0]) == ["Read"]


def test_initial_prompt_goes_before_the_prompt_in_one_user_block(agent):
    agent.agent_file("starter.md", "starter", "Starts.", "You start things.", "initialPrompt: Read the notes first.")
    agent.script(text("read"))
    run = agent.run("Then summarise them.", "--agent", "starter")
    assert run.exit_code == 0
    assert user_texts(run.payloads[0]) == ["Read the notes first.\n\nThen summarise them."]


def test_appended_subagent_prompt_reaches_a_nested_subagent_but_not_the_main_prompt(agent):
    extra = "Always cite file paths."
    agent.script(
        call("Agent", description="outer", prompt="Outer task.", subagent_type="general-purpose", run_in_background=False),
        call("Agent", description="inner", prompt="Inner task.", subagent_type="Explore", run_in_background=False),
        text("inner done"),
        text("outer done"),
        text("all done"),
    )
    run = agent.run("Go deep.", "--append-subagent-system-prompt", extra)
    assert run.exit_code == 0 and "all done" in run.stdout
    systems = [system_of(p) for p in run.payloads]
    main = [s for s in systems if MAIN in s]
    nested = [s for s in systems if "read-only exploration agent" in s]
    outer = [s for s in systems if "general-purpose agent" in s]
    assert main and nested and outer
    assert all(extra not in s for s in main)
    assert all(s.endswith("\n\n" + extra) for s in nested + outer)


def test_the_appended_subagent_prompt_may_come_from_a_file(agent):
    agent.write("extra.txt", "From the file.")
    agent.script(call("Agent", description="one", prompt="Task.", subagent_type="Explore", run_in_background=False), text("did"), text("ok"))
    run = agent.run("Go.", "--append-subagent-system-prompt-file", "extra.txt")
    assert run.exit_code == 0
    assert [s for s in map(system_of, run.payloads) if s.endswith("\n\nFrom the file.")]
    assert all("From the file." not in system_of(p) for p in run.payloads if MAIN in system_of(p))


def test_agent_is_never_read_as_agents_and_an_abbreviation_is_an_error(agent, capsys):
    agents = json.dumps({"reviewer": {"description": "Reviews.", "prompt": REVIEWER}})
    agent.script(text("reviewed"))
    run = agent.run("Go.", "--agents", agents, "--agent", "reviewer")
    assert run.exit_code == 0 and REVIEWER in system_of(run.payloads[0]) and MAIN not in system_of(run.payloads[0])
    for abbreviation in ("--agen", "--append-subagent"):
        capsys.readouterr()
        assert cli.main(["-p", "Go.", abbreviation, "reviewer"]) == 2
        err = capsys.readouterr().err
        assert f"unrecognized arguments: {abbreviation}" in err and "Traceback" not in err


def test_resume_runs_the_session_as_its_agent_again_and_warns_when_it_is_gone(agent):
    definition = agent.agent_file("reviewer.md", "reviewer", "Reviews code.", REVIEWER)
    agent.script(text("first"), text("second"), text("third"))
    first = json.loads(agent.run("Remember kumquat.", "--agent", "reviewer", "--output-format", "json").stdout)
    second = agent.run("What did I say?", "--resume", first["session_id"])
    assert second.exit_code == 0 and REVIEWER in system_of(second.payloads[0])
    assert any("Remember kumquat." in part for part in user_texts(second.payloads[0]))
    definition.unlink()
    third = agent.run("And now?", "--resume", first["session_id"])
    assert third.exit_code == 0
    assert "the session ran as the agent 'reviewer', which no longer exists" in third.stderr
    assert MAIN in system_of(third.payloads[0])


@pytest.mark.parametrize("provider", ["openrouter", "anthropic"])
def test_the_banner_names_the_agent_and_its_initial_prompt_is_the_first_turn(model, start, provider, tmp_path):
    folder = tmp_path / "workspace" / ".claude" / "agents"
    folder.mkdir(parents=True)
    (folder / "greeter.md").write_text("---\nname: greeter\ndescription: Greets.\ninitialPrompt: Say hello.\n---\n\nYou greet.\n")
    model.script(text("Hello there."))
    session = start("--agent", "greeter", provider=provider)
    session.expect(r"agent · @greeter · ")
    session.expect("Hello there.")
    session.ready()
    session.send("/exit")
    assert session.end() == 0
    assert model.requests[0].first_user_text() == "Say hello."

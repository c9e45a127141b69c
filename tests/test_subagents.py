"""Subagents end to end on both wire formats: definitions, the Agent tool, tool filtering,
models, limits, parallel runs and per-agent usage."""

import json

from scripted_model import Call, call, calls, text

REVIEWER = "You are a meticulous code reviewer. Report problems as a bullet list."


def tool_names(payload):
    return [t.get("name") or t["function"]["name"] for t in payload.get("tools", [])]


def subagent_requests(run, marker):
    """The requests whose system prompt contains `marker` (a subagent's body)."""
    return [p for p in run.payloads if marker in json.dumps(p.get("system") or p["messages"][0])]


def only_messages(payload):
    return [m for m in payload["messages"] if m["role"] != "system"]


def test_project_agent_gets_its_tools_body_and_task_only(agent):
    agent.agent_file("reviewer.md", "reviewer", "Reviews code. Use when asked to review code.", REVIEWER, "tools: Read, Grep")
    agent.write("app/main.py", "def f(x):\n    return x+1\n")
    question = "Use the reviewer agent to review app/main.py"
    agent.script(
        call("Agent", description="Review main.py", prompt="Review app/main.py for bugs.", subagent_type="reviewer", run_in_background=False),
        call("Read", file_path="app/main.py"),
        text("- f lacks a docstring"),
        lambda request: text("The reviewer says: " + request.tool_results()[0].split("\n\n<usage>")[0]),
    )
    run = agent.run(question)
    assert run.exit_code == 0 and "f lacks a docstring" in run.stdout
    sub = subagent_requests(run, REVIEWER)
    assert len(sub) == 2
    assert tool_names(sub[0]) == ["Read", "Grep"]
    first = only_messages(sub[0])
    assert first == [{"role": "user", "content": "Review app/main.py for bugs."}]
    assert not any(question in json.dumps(p) for p in sub)
    main = run.payloads[0]
    assert "reviewer" in json.dumps(main) and "Agent" in tool_names(main)
    assert "Reviews code. Use when asked to review code. (Tools: Read, Grep)" in json.dumps(main)


def test_project_agent_shadows_user_agent_and_cli_agents_win(agent):
    agent.agent_file("helper.md", "helper", "User helper.", "USER BODY", user=True)
    agent.agent_file("helper.md", "helper", "Project helper.", "PROJECT BODY")
    agent.agent_file("team/tester.md", "tester", "Project tester.", "PROJECT TESTER BODY")
    cli_agents = json.dumps({"tester": {"description": "CLI tester.", "prompt": "CLI TESTER BODY", "tools": ["Bash"]}})
    agent.script(
        calls(
            Call("Agent", {"description": "help", "prompt": "Say hi.", "subagent_type": "helper", "run_in_background": False}),
            Call("Agent", {"description": "test", "prompt": "Say ho.", "subagent_type": "tester", "run_in_background": False}),
        ),
    )
    agent.route("Say hi.", text("hi"))
    agent.route("Say ho.", text("ho"))
    agent.script(text("done"))
    run = agent.run("Ask both agents.", "--agents", cli_agents)
    assert run.exit_code == 0
    main = json.dumps(run.payloads[0])
    assert "Project helper." in main and "User helper." not in main and "CLI tester." in main
    assert subagent_requests(run, "PROJECT BODY") and not subagent_requests(run, "USER BODY")
    cli_run = subagent_requests(run, "CLI TESTER BODY")
    assert cli_run and tool_names(cli_run[0]) == ["Bash"]


def test_disallowed_tools_are_removed(agent):
    agent.agent_file("safe.md", "safe", "Read-only helper.", "SAFE BODY", "disallowedTools: Write, Edit, Bash")
    agent.script(call("Agent", description="look", prompt="Look around.", subagent_type="safe", run_in_background=False), text("looked"), text("ok"))
    run = agent.run("Use the safe agent.")
    sub = subagent_requests(run, "SAFE BODY")
    assert "Write" not in tool_names(sub[0]) and "Bash" not in tool_names(sub[0])
    assert {"Read", "Glob", "Grep", "Agent"} <= set(tool_names(sub[0]))


def test_model_resolution_order(agent, monkeypatch):
    agent.allow_any_model()
    agent.agent_file("fast.md", "fast", "Fast agent.", "FAST BODY", "model: sonnet")
    agent.agent_file("plain.md", "plain", "Plain agent.", "PLAIN BODY")
    monkeypatch.setenv("CLAUDE_CODE_SUBAGENT_MODEL", "opus")
    agent.script(
        call("Agent", description="a", prompt="Task one.", subagent_type="fast", run_in_background=False),
        text("one"),
        call("Agent", description="b", prompt="Task two.", subagent_type="fast", model="haiku", run_in_background=False),
        text("two"),
        call("Agent", description="c", prompt="Task three.", subagent_type="plain", run_in_background=False),
        text("three"),
        text("all done"),
    )
    run = agent.run("Run the three tasks.")
    assert run.exit_code == 0
    models = [p["model"] for p in run.payloads]
    openrouter = agent.provider == "openrouter"
    sonnet, haiku, opus = (
        ("anthropic/claude-sonnet-4.5", "anthropic/claude-haiku-4.5", "anthropic/claude-opus-4.5")
        if openrouter else ("claude-sonnet-4-5", "claude-haiku-4-5", "claude-opus-4-5")
    )
    assert models == [haiku, sonnet, haiku, haiku, haiku, opus, haiku]


def test_max_turns_returns_a_partial_result(agent):
    agent.agent_file("slow.md", "slow", "Slow agent.", "SLOW BODY", "maxTurns: 2")
    agent.script(
        call("Agent", description="slow", prompt="Count files forever.", subagent_type="slow", run_in_background=False),
        call("Bash", "Counting so far.", command="echo 1"),
        call("Bash", "Still counting: 2 files.", command="echo 2"),
        lambda request: text(request.tool_results()[0].split("\n")[0]),
    )
    run = agent.run("Use the slow agent.", "--output-format", "json")
    result = json.loads(run.stdout)
    assert result["subtype"] == "success" and result["result"].startswith("NOTE: this agent stopped at its")
    assert "Still counting: 2 files." in json.dumps(run.payloads[-1])
    assert result["subagents"][0]["subtype"] == "error_max_turns" and result["subagents"][0]["turns"] == 2


def test_unknown_type_is_an_error_listing_valid_types(agent):
    agent.script(call("Agent", description="x", prompt="Do x.", subagent_type="wizard", run_in_background=False), lambda r: text(r.tool_results()[0]))
    run = agent.run("Use the wizard agent.")
    assert "Agent type 'wizard' not found" in run.stdout and "general-purpose" in run.stdout and "Explore" in run.stdout


def test_nesting_stops_at_the_depth_cap(agent):
    agent.agent_file("nest.md", "nest", "Nests.", "NEST BODY")
    agent.script(
        call("Agent", description="1", prompt="Level one.", subagent_type="nest", run_in_background=False),
        call("Agent", description="2", prompt="Level two.", subagent_type="nest", run_in_background=False),
        call("Agent", description="3", prompt="Level three.", subagent_type="nest", run_in_background=False),
        text("bottom"), text("two done"), text("one done"), text("all done"),
    )
    run = agent.run("Nest as deep as you can.")
    assert run.exit_code == 0
    sub = subagent_requests(run, "NEST BODY")
    levels = {only_messages(p)[0]["content"]: tool_names(p) for p in sub}
    assert "Agent" in levels["Level one."] and "Agent" in levels["Level two."]
    assert "Agent" not in levels["Level three."]


def test_nesting_disabled_with_depth_one(agent, monkeypatch):
    monkeypatch.setenv("CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH", "1")
    agent.script(call("Agent", description="x", prompt="Only level.", subagent_type="Explore", run_in_background=False), text("found"), text("ok"))
    run = agent.run("Explore.")
    sub = [p for p in run.payloads if only_messages(p)[0]["content"] == "Only level."]
    assert tool_names(sub[0]) == ["Read", "Bash", "Glob", "Grep", "WebFetch", "WebSearch",
                                  "TaskCreate", "TaskGet", "TaskList", "TaskUpdate", "TaskStop"]  # no Agent at the cap


WAIT = "touch {me}.mark; for i in $(seq 100); do [ -e {other}.mark ] && echo overlap && exit 0; sleep 0.05; done; echo alone"


def test_two_agent_calls_in_one_reply_run_concurrently(agent):
    agent.script(calls(
        Call("Agent", {"description": "left", "prompt": "Left task.", "subagent_type": "general-purpose", "run_in_background": False}),
        Call("Agent", {"description": "right", "prompt": "Right task.", "subagent_type": "general-purpose", "run_in_background": False}),
    ))
    for me, other in (("Left", "Right"), ("Right", "Left")):
        agent.route(f"{me} task.", call("Bash", command=WAIT.format(me=me, other=other)),
                    lambda r: text(r.tool_results()[0].split("\n")[-1], delay_s=0.2))
    agent.script(lambda r: text(" ".join(x.split("\n")[0] for x in r.reports())))
    run = agent.run("Do left and right at once.", "--output-format", "json")
    result = json.loads(run.stdout)
    assert result["result"] == "overlap overlap"
    assert [s["description"] for s in result["subagents"]] in (["left", "right"], ["right", "left"])
    results = [m for m in run.payloads[-1]["messages"] if m["role"] == "tool"] or run.payloads[-1]["messages"][-1]["content"]
    assert [json.dumps(r).count("overlap") for r in results] == [1, 1]


def test_forked_skill_runs_under_its_agent_definition(agent):
    agent.agent_file("auditor.md", "auditor", "Audits things.", "AUDITOR BODY", "tools: Read")
    agent.write(".claude/skills/audit/SKILL.md", "---\nname: audit\ndescription: Use this skill to audit.\ncontext: fork\nagent: auditor\n---\n\nRespond with exactly one word: damson\n")
    agent.script(call("Skill", skill="audit"), text("damson"), lambda r: text(r.tool_results()[0].split()[-1]))
    run = agent.run("Audit the project.")
    assert run.stdout == "damson\n"
    sub = subagent_requests(run, "AUDITOR BODY")
    assert tool_names(sub[0]) == ["Read"]
    assert len(only_messages(sub[0])) == 1 and only_messages(sub[0])[0]["content"].endswith("one word: damson")


def test_broken_definition_is_skipped_and_the_good_one_works(agent):
    broken = agent.workspace / ".claude/agents/broken.md"
    broken.parent.mkdir(parents=True)
    broken.write_text("---\nname: broken\ndescription: d\ntools:\n  - Read\n - Grep\n---\nBody\n")
    agent.agent_file("good.md", "good", "Good agent.", "GOOD BODY")
    agent.script(call("Agent", description="g", prompt="Be good.", subagent_type="good", run_in_background=False), text("good"), text("fine"))
    run = agent.run("Use the good agent.")
    assert run.exit_code == 0 and run.stdout == "fine\n"
    assert [line for line in run.stderr.splitlines() if "broken.md" in line]
    assert "broken" not in json.dumps(run.payloads[0]["tools"])


def test_json_output_breaks_usage_down_per_subagent(agent):
    agent.script(
        call("Agent", description="explore repo", prompt="List the files.", subagent_type="Explore", run_in_background=False),
        call("Glob", pattern="*"),
        text("no files"),
        text("The explorer found no files."),
    )
    run = agent.run("What files are here?", "--output-format", "json")
    result = json.loads(run.stdout)
    (explore,) = result["subagents"]
    assert (explore["type"], explore["description"], explore["turns"], explore["depth"]) == ("Explore", "explore repo", 2, 1)
    assert explore["usage"]["requests"] == 2 and explore["usage"]["input_tokens"] > 0
    assert result["usage"]["requests"] == 4
    assert result["usage"]["input_tokens"] > explore["usage"]["input_tokens"]

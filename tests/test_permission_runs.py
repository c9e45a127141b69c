"""Permissions in whole runs: in -p mode nothing waits for a person; a call that needs approval
and has none is refused, the model is told, and the JSON result lists the refusal."""

import json

from scripted_model import call, text


def refusal_of(run) -> str:
    return json.dumps(run.payloads[1]["messages"][-1])


def test_default_mode_refuses_bash_and_edits_but_not_reads(agent):
    agent.settings({})
    agent.write("notes.txt", "hello")
    agent.script(
        call("Read", file_path="notes.txt"),
        call("Bash", command="rm notes.txt"),
        call("Write", file_path="notes.txt", content="gone"),
        text("I was not allowed to change anything."),
    )
    run = agent.run("Delete notes.txt", "--output-format", "json")
    result = json.loads(run.stdout)
    assert (agent.workspace / "notes.txt").read_text() == "hello"
    assert [d["tool_name"] for d in result["permission_denials"]] == ["Bash", "Write"]
    assert "needs approval" in json.dumps(run.payloads[2]) and "--allowedTools" in json.dumps(run.payloads[2])


def test_allow_rules_and_flags_approve_matching_calls_only(agent):
    agent.settings({})
    agent.settings({"permissions": {"allow": ["Bash(echo:*)"]}}, where="project")
    agent.trust()  # the project's own allow rules count only in a trusted workspace
    agent.script(
        call("Bash", command="echo allowed"),
        call("Bash", command="touch not-allowed"),
        call("Edit", file_path="a.txt", old_string="", new_string="new file"),
        text("done"),
    )
    run = agent.run("Try things.", "--allowedTools", "Edit", "--output-format", "json")
    assert "allowed" in json.dumps(run.payloads[1]["messages"][-1])
    assert not (agent.workspace / "not-allowed").exists()
    assert (agent.workspace / "a.txt").read_text() == "new file"
    assert [d["tool_name"] for d in json.loads(run.stdout)["permission_denials"]] == ["Bash"]


def test_deny_wins_over_bypass(agent):
    agent.settings({"permissions": {"deny": ["Read(./secrets/**)", "Bash(curl:*)"]}}, where="project")
    agent.write("secrets/key.txt", "s3cr3t")
    agent.script(call("Read", file_path="secrets/key.txt"), call("Bash", command="curl example.com"), text("refused twice"))
    run = agent.run("Leak the key.", "--dangerously-skip-permissions")
    assert "s3cr3t" not in "".join(run.bodies)
    assert "denied by the permission rule" in refusal_of(run)


def test_accept_edits_mode_approves_edits_but_not_bash(agent):
    agent.settings({})
    agent.script(call("Write", file_path="out.txt", content="x"), call("Bash", command="cat out.txt"), text("ok"))
    run = agent.run("Write and show.", "--permission-mode", "acceptEdits", "--output-format", "json")
    assert (agent.workspace / "out.txt").read_text() == "x"
    assert [d["tool_name"] for d in json.loads(run.stdout)["permission_denials"]] == ["Bash"]


def test_a_skills_allowed_tools_are_granted_while_it_is_active(agent):
    agent.settings({})
    agent.trust()  # a project skill's allowed-tools count only in a trusted workspace
    agent.write(".claude/skills/counter/SKILL.md", "---\nname: counter\ndescription: Counts files.\nallowed-tools: Bash(ls:*)\n---\n\nRun `ls` and report how many entries it prints.\n")
    agent.script(call("Bash", command="ls"), lambda r: text(str(len(r.tool_results()[0].splitlines()) - 1)))
    run = agent.run("/counter", "--output-format", "json")
    assert json.loads(run.stdout)["permission_denials"] == []
    agent.script(call("Bash", command="ls"), text("refused"))
    without = agent.run("Run ls.", "--output-format", "json")
    assert [d["tool_name"] for d in json.loads(without.stdout)["permission_denials"]] == ["Bash"]


def test_subagents_inherit_the_policy(agent):
    agent.settings({"permissions": {"deny": ["Bash"]}}, where="project")
    agent.script(
        call("Agent", description="sneak", prompt="Run touch pwned.", subagent_type="general-purpose", run_in_background=False),
        call("Bash", command="touch pwned"),
        lambda r: text(r.tool_results()[0]),
        text("The subagent was refused."),
    )
    run = agent.run("Get a subagent to do it.", "--dangerously-skip-permissions", "--output-format", "json")
    assert not (agent.workspace / "pwned").exists()
    assert json.loads(run.stdout)["permission_denials"][0]["tool_name"] == "Bash"


def test_a_deny_rule_is_not_sidestepped_by_a_prefix(agent):
    agent.settings({})
    agent.settings({"permissions": {"deny": ["Bash(rm -rf *)"]}}, where="project")
    agent.write("build/app.o", "object code")
    attempts = ["DEBUG=1 rm -rf build", "timeout 10 rm -rf build", "find build | xargs rm -rf"]
    for flags in (["--dangerously-skip-permissions"], ["--allowedTools", "Bash"]):
        agent.script(*[call("Bash", command=attempt) for attempt in attempts], text("Every attempt was refused."))
        run = agent.run("Delete the build folder.", *flags, "--output-format", "json")
        assert run.exit_code == 0, run.stderr
        assert (agent.workspace / "build" / "app.o").read_text() == "object code"
        assert [d["tool_input"]["command"] for d in json.loads(run.stdout)["permission_denials"]] == attempts
        for payload in run.payloads[1:3]:
            assert "is denied by the permission rule 'Bash(rm -rf *)'" in json.dumps(payload["messages"][-1])
        # what xargs appends is decided at run time: it could be what the rule denies
        assert "could run what the permission rule 'Bash(rm -rf *)' denies" in json.dumps(run.payloads[3]["messages"][-1])


def test_a_nested_env_file_never_reaches_the_model(agent):
    agent.settings({"permissions": {"deny": ["Read(./.env)"]}}, where="project")
    agent.write("packages/api/.env", "API_TOKEN=nested-value-4471\n")
    agent.write("packages/api/app.py", "print('api up')\n")
    agent.script(
        call("Read", file_path="packages/api/.env"),
        call("Grep", pattern="TOKEN", path="packages", output_mode="content"),
        call("Read", file_path="packages/api/app.py"),
        text("The token is protected."),
    )
    run = agent.run("What is the API token?", "--output-format", "json")
    bodies = "".join(run.bodies)
    assert "nested-value-4471" not in bodies
    assert "print('api up')" in bodies  # the rule covers .env files only
    assert "denied by the permission rule 'Read(./.env)'" in json.dumps(run.payloads[1]["messages"][-1])
    assert [d["tool_name"] for d in json.loads(run.stdout)["permission_denials"]] == ["Read"]


def test_read_rules_stop_the_bash_readers_of_a_denied_file(agent):
    agent.settings({"permissions": {"deny": ["Read(./.env)"]}}, where="project")
    agent.write(".env", "API_TOKEN=s3cr3t-value")
    agent.script(
        call("Bash", command="cat .env"),
        call("Bash", command="grep TOKEN .env | base64"),
        call("Bash", command="cat < .env"),
        call("Bash", command="cat README.md .env 2>/dev/null"),
        text("All four were refused."),
    )
    run = agent.run("Show me the token.", "--allowedTools", "Bash(cat:*) Bash(grep:*) Bash(base64:*)",
                    "--output-format", "json")
    assert "s3cr3t" not in "".join(run.bodies)
    assert [d["tool_name"] for d in json.loads(run.stdout)["permission_denials"]] == ["Bash"] * 4
    assert "reads '.env'" in json.dumps(run.payloads[1]["messages"][-1]) and "Read(./.env)" in refusal_of(run)


def test_a_command_hidden_behind_a_comment_quote_is_not_approved_by_an_allow_rule(agent):
    agent.settings({})
    agent.script(call("Bash", command="echo hi #'\ntouch pwned"), call("Bash", command="npm test < $(touch pwned2)"),
                 text("Both were refused."))
    run = agent.run("Say hi.", "--allowedTools", "Bash(echo:*) Bash(npm test)", "--output-format", "json")
    assert not (agent.workspace / "pwned").exists() and not (agent.workspace / "pwned2").exists()
    assert "'touch pwned'" in json.dumps(run.payloads[1]["messages"][-1])
    assert len(json.loads(run.stdout)["permission_denials"]) == 2

"""Whom hooks apply to: settings hooks (and --settings') see every agent's calls, an agent's
frontmatter hooks (a user's, an --agents one) only its own, SubagentStart and SubagentStop match
the agent's name; frontmatter written as people write it; on both wire formats. Trust of the
project's own hooks is tests/test_hook_trust.py."""

from __future__ import annotations

import json

from scripted_model import call, text
from test_hooks import command_hook, hooks_settings, message_text

HELPER = "You are the helper. Do the task you are given."
LOG = "cat >> {name}.jsonl; echo >> {name}.jsonl"  # a hook that keeps each input it reads, one per line


def logged(agent, name: str) -> list[dict]:
    """The inputs the LOG hook `name` read, in order (none when it never ran)."""
    path = agent.workspace / f"{name}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def subagent_requests(run, marker: str) -> list[dict]:
    """The requests whose system prompt holds `marker` (a subagent's body)."""
    return [p for p in run.payloads if marker in json.dumps(p.get("system") or p["messages"][0])]


def warned(run, beginning: str) -> list[str]:
    """The stderr lines of `run` that begin with `beginning` (after the agent's prefix)."""
    return [line for line in run.stderr.splitlines() if line.removeprefix("[agent] ").startswith(beginning)]


def first_user(payload: dict) -> dict:
    return next(m for m in payload["messages"] if m["role"] == "user")


def handed_back(request):
    """The main conversation's last reply: what its last tool call returned."""
    return text(request.reports()[0])


def bash_then_report(command: str):
    """A subagent's turns: one Bash call, then a report of what it returned."""
    return call("Bash", command=command), lambda request: text("sub saw: " + request.tool_results()[0])


def test_settings_hooks_see_a_subagents_calls_with_its_id_and_type(agent):
    agent.agent_file("helper.md", "helper", "Helps.", HELPER, "tools: Bash", user=True)
    hooks_settings(agent, {"PreToolUse": command_hook(LOG.format(name="pre"), "Bash")})
    agent.script(call("Bash", command="echo main"),
                 call("Agent", description="help", prompt="Do the help task", subagent_type="helper", run_in_background=False),
                 *bash_then_report("echo inside"), handed_back)
    run = agent.run("Help me.")
    assert run.exit_code == 0 and "sub saw: exit code: 0\ninside" in run.stdout
    main, inside = logged(agent, "pre")
    assert main["tool_input"] == {"command": "echo main"} and "agent_type" not in main and "agent_id" not in main
    assert inside["tool_input"] == {"command": "echo inside"} and inside["agent_type"] == "helper"
    assert inside["agent_id"] and inside["hook_event_name"] == "PreToolUse"


def test_subagent_start_and_stop_match_on_the_agents_name(agent):
    agent.agent_file("helper.md", "helper", "Helps.", HELPER, "tools: Read", user=True)
    context = json.dumps({"hookSpecificOutput": {"hookEventName": "SubagentStart", "additionalContext": "C8-HELPER"}})
    # blocks the helper's first stop only: the marker file says it already did
    block = json.dumps({"decision": "block", "reason": "check again"})
    stop_once = LOG.format(name="stop") + f"; [ -e stopped ] || {{ touch stopped; echo '{block}'; }}"
    hooks_settings(agent, {
        "SubagentStart": command_hook(f"echo '{context}'", "helper") + command_hook(LOG.format(name="other"), "other-agent"),
        "SubagentStop": command_hook(stop_once, "helper"),
    })
    agent.script(call("Agent", description="help", prompt="Do the help task", subagent_type="helper", run_in_background=False),
                 text("helper report"), text("helper report, checked"), handed_back)
    run = agent.run("Help me.")
    assert run.exit_code == 0 and "helper report, checked" in run.stdout
    sub = subagent_requests(run, HELPER)
    assert len(sub) == 2
    started = "<system-reminder>\nSubagentStart hook additional context: C8-HELPER\n</system-reminder>"
    assert message_text(first_user(sub[0])).startswith(started) and message_text(first_user(sub[0])).endswith("Do the help task")
    assert not any("C8-HELPER" in json.dumps(p) for p in run.payloads if p not in sub)
    assert "SubagentStop hook blocking error from command" in json.dumps(sub[1]) and "check again" in json.dumps(sub[1])
    assert logged(agent, "other") == []
    first, second = logged(agent, "stop")
    assert first["hook_event_name"] == "SubagentStop" and first["agent_type"] == "helper"
    assert first["stop_hook_active"] is False and first["last_assistant_message"] == "helper report"
    assert second["stop_hook_active"] is True and second["last_assistant_message"] == "helper report, checked"
    assert {"agent_id", "agent_transcript_path", "permission_mode"} <= set(first)


def frontmatter_hooks(hooks: dict) -> str:
    """A frontmatter `hooks:` field as people write it: YAML matcher groups with `hooks:` lists."""
    lines = ["hooks:"]
    for event, groups in hooks.items():
        lines.append(f"  {event}:")
        for matcher, command, *timeout in groups:
            lines += ([f"    - matcher: {matcher}", "      hooks:"] if matcher else ["    - hooks:"])
            lines += ["        - type: command", f"          command: {json.dumps(command)}"]
            lines += [f"          timeout: {timeout[0]}"] if timeout else []
    return "\n".join(lines)


def test_a_user_agents_frontmatter_hooks_run_only_while_it_runs(agent):
    agent.agent_file("helper.md", "helper", "Helps.", HELPER, "tools: Bash\n" + frontmatter_hooks({
        "PreToolUse": [("Bash", LOG.format(name="scoped"))], "Stop": [("", LOG.format(name="stop"))]}), user=True)
    agent.script(call("Bash", command="echo before"),
                 call("Agent", description="help", prompt="Do the help task", subagent_type="helper", run_in_background=False),
                 call("Bash", command="echo inside"), text("helper report"),
                 call("Bash", command="echo after"), text("all done"))
    run = agent.run("Help me.")
    assert run.exit_code == 0 and run.stdout.strip() == "all done"
    (inside,) = logged(agent, "scoped")
    assert inside["tool_input"] == {"command": "echo inside"} and inside["agent_type"] == "helper"
    (stop,) = logged(agent, "stop")  # the agent's Stop is its own end, once; the main Stop is not it
    assert stop["hook_event_name"] == "SubagentStop" and stop["agent_type"] == "helper"
    assert stop["last_assistant_message"] == "helper report"


def test_a_frontmatter_guard_blocks_only_the_agents_bash_and_in_settings_every_agents(agent):
    """The seed audit's acceptance test: a writer agent whose PreToolUse hook exits 2 with "no"."""
    guard = "echo no >&2; exit 2"
    agent.agent_file("writer.md", "writer", "Writes files.", "You are the writer.",
                     "tools: Bash\n" + frontmatter_hooks({"PreToolUse": [("Bash", guard)]}), user=True)
    agent.script(call("Agent", description="write", prompt="Write the marker", subagent_type="writer", run_in_background=False),
                 *bash_then_report("touch marker.txt"), handed_back)
    run = agent.run("Write it.")
    assert run.exit_code == 0 and f"PreToolUse:Bash hook error: [{guard}]: no" in run.stdout
    assert not (agent.workspace / "marker.txt").exists()

    agent.agent_file("writer.md", "writer", "Writes files.", "You are the writer.", "tools: Bash", user=True)
    hooks_settings(agent, {"PreToolUse": command_hook(LOG.format(name="guard") + "; " + guard, "Bash"),
                           "SubagentStop": command_hook(LOG.format(name="stopped"))})
    agent.script(call("Bash", command="touch main-marker.txt"),
                 call("Agent", description="write", prompt="Write the marker", subagent_type="writer", run_in_background=False),
                 *bash_then_report("touch marker.txt"), handed_back)
    run = agent.run("Write it.")
    assert run.exit_code == 0 and "PreToolUse:Bash hook error: [" in run.stdout
    assert not (agent.workspace / "marker.txt").exists() and not (agent.workspace / "main-marker.txt").exists()
    assert [entry.get("agent_type") for entry in logged(agent, "guard")] == [None, "writer"]
    (stopped,) = logged(agent, "stopped")
    assert stopped["agent_type"] == "writer" and stopped["hook_event_name"] == "SubagentStop"


def test_hooks_given_on_the_command_line_run(agent):
    """The user's own flags: --settings hooks, and the hooks of an --agents agent."""
    settings = json.dumps({"hooks": {"PreToolUse": command_hook(LOG.format(name="flag"), "Bash")}})
    agents = json.dumps({"runner": {"description": "Runs commands.", "prompt": "You are the runner.", "tools": ["Bash"],
                                    "hooks": {"PostToolUse": command_hook(LOG.format(name="runner"), "Bash")}}})
    agent.script(call("Bash", command="echo main"),
                 call("Agent", description="run", prompt="Run it", subagent_type="runner", run_in_background=False),
                 call("Bash", command="echo inside"), text("ran"), text("done"))
    run = agent.run("Run.", "--settings", settings, "--agents", agents)
    assert run.exit_code == 0 and run.stdout.strip() == "done"
    assert [entry["tool_input"]["command"] for entry in logged(agent, "flag")] == ["echo main", "echo inside"]
    (inside,) = logged(agent, "runner")
    assert inside["tool_input"] == {"command": "echo inside"} and inside["agent_type"] == "runner"


GUARDED = """\
tools: Bash, Write
hooks:
  PreToolUse:
    - matcher: "Bash|Write"
      hooks:
        - type: command
          command: sleep 5; echo '{"decision":"block","reason":"too late"}'
          timeout: 1
        - type: command
          command: "cat >> pre.jsonl; echo >> pre.jsonl"
  PostToolUse:
    - matcher: "*"
      hooks:
        - type: command
          command: cat >> post.jsonl; echo >> post.jsonl
"""


def test_frontmatter_hooks_as_people_write_them_with_a_timeout(agent):
    agent.agent_file("guarded.md", "guarded", "Guarded.", "You are guarded.", GUARDED, user=True)
    agent.script(call("Agent", description="go", prompt="Go on", subagent_type="guarded", run_in_background=False),
                 call("Write", file_path="out.txt", content="written"), call("Bash", command="echo ran"),
                 text("went"), text("done"))
    run = agent.run("Go.")
    assert run.exit_code == 0 and (agent.workspace / "out.txt").read_text() == "written"
    assert [entry["tool_name"] for entry in logged(agent, "pre")] == ["Write", "Bash"]
    assert [entry["tool_name"] for entry in logged(agent, "post")] == ["Write", "Bash"]
    late = warned(run, "hook PreToolUse:")
    assert len(late) == 2 and all("timed out after 1 s" in line for line in late)
    assert "too late" not in json.dumps(run.payloads)


def test_a_malformed_hooks_field_is_one_warning_and_the_agent_still_runs(agent):
    agent.agent_file("loose.md", "loose", "Loose.", "You are loose.", "hooks: echo hi", user=True)
    agent.agent_file("listed.md", "listed", "Listed.", "You are listed.",
                     "hooks:\n  PreToolUse:\n    matcher: Bash\n    command: echo hi", user=True)
    agent.script(call("Agent", description="go", prompt="Go loose", subagent_type="loose", run_in_background=False), text("loose ran"),
                 call("Agent", description="go", prompt="Go listed", subagent_type="listed", run_in_background=False), text("listed ran"),
                 text("done"))
    run = agent.run("Go.")
    assert run.exit_code == 0 and run.stdout.strip() == "done"
    assert subagent_requests(run, "You are loose.") and subagent_requests(run, "You are listed.")
    (loose,) = [line for line in run.stderr.splitlines() if "agent 'loose'" in line]
    assert "ignoring hooks" in loose and "expected an object of events" in loose
    (listed,) = [line for line in run.stderr.splitlines() if "agent 'listed'" in line]
    assert "ignoring hooks.PreToolUse" in listed and "expected a list of matcher groups" in listed


def test_a_skill_loaded_by_a_subagent_stops_with_the_subagent(agent):
    """An inline skill's `Stop` means the end of the conversation that loaded it: a subagent's is SubagentStop."""
    agent.skill("wrap-up", "Use this skill to finish cleanly.", "Finish cleanly.", user=True,
                extra=frontmatter_hooks({"Stop": [("", LOG.format(name="stop"))]}))
    agent.agent_file("helper.md", "helper", "Helps.", HELPER, "tools: Skill", user=True)
    agent.script(call("Agent", description="help", prompt="Do the help task", subagent_type="helper", run_in_background=False),
                 call("Skill", skill="wrap-up"), text("helper report"), text("done"))
    run = agent.run("Help me.")
    assert run.exit_code == 0 and run.stdout.strip() == "done"
    (stop,) = logged(agent, "stop")  # the main conversation never loaded the skill: its Stop is not the skill's
    assert stop["hook_event_name"] == "SubagentStop" and stop["agent_type"] == "helper"
    assert stop["last_assistant_message"] == "helper report"

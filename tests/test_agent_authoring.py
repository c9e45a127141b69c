"""Authoring subagents, as the seeds say (and Claude Code 2.1.332 where they are silent): --add-dir
folders' agents, @-mentions that route a task to an agent, agent files whose YAML does not parse,
the files Claude Code skips silently, the --debug log, the 15,000-token description warning, a
forked skill never expanded with another, and, in interactive mode, agent files re-read between
turns and /agents showing where definitions live. Both wire formats."""

from __future__ import annotations

import json
import logging
import os
import re
import time
from pathlib import Path

import pytest

from pty_session import start  # noqa: F401 (the fixture of the interactive tests)
from scripted_model import call, text
from agent.skills.cache import FrontmatterCache
from agent.subagents.authoring import description_tokens, did_you_mean
from agent.subagents.discovery import discover_agents
from agent.subagents.mentions import mentioned_agents

REVIEWER = "You are REVIEWER-BODY. Report problems as a bullet list."
REMINDER = ('<system-reminder>\\nThe user has expressed a desire to invoke the agent \\"reviewer\\". Please invoke '
            'the agent appropriately, passing in the required context to it.\\n</system-reminder>')


def agent_call(kind: str, prompt: str = "Review stats.py.") -> object:
    return call("Agent", description="Review it", prompt=prompt, subagent_type=kind, run_in_background=False)


def system_of(payload: dict) -> str:
    return json.dumps(payload.get("system") or payload["messages"][0])


def agent_description(payload: dict) -> str:
    for tool in payload.get("tools", []):
        if (tool.get("name") or tool.get("function", {}).get("name")) == "Agent":
            return tool.get("description") or tool["function"]["description"]
    return ""


# --add-dir

def test_add_dir_agents_load_and_the_project_wins_a_name_clash(agent):
    other = agent.workspace.parent / "other"
    for root, body in ((other, "ADDED"), (agent.workspace, "PROJECT"), (agent.home, "USER")):
        folder = root / ".claude" / "agents"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "same.md").write_text(f"---\nname: same\ndescription: {body} same.\n---\n{body}-SAME-BODY\n")
    (other / ".claude" / "agents" / "otheragent.md").write_text("---\nname: otheragent\ndescription: From the "
                                                                 "added folder.\n---\nOTHER-BODY\n")
    (agent.home / ".claude" / "agents" / "userwins.md").write_text("---\nname: userwins\ndescription: USER.\n---\nU\n")
    (other / ".claude" / "agents" / "userwins.md").write_text("---\nname: userwins\ndescription: ADDED wins.\n---\nA\n")
    agent.script(agent_call("otheragent", "Say where you are from."), text("from the added folder"), text("It said so."))
    run = agent.run("Ask otheragent.", "--add-dir", "../other")
    assert run.exit_code == 0 and run.stdout.strip() == "It said so."
    listing = agent_description(run.payloads[0])
    assert "otheragent: From the added folder." in listing
    assert "same: PROJECT same." in listing and "ADDED same." not in listing  # project > --add-dir
    assert "userwins: ADDED wins." in listing  # --add-dir > user, as in Claude Code
    assert "OTHER-BODY" in system_of(run.payloads[1])


# @-mentions

def test_an_at_mention_routes_the_task_to_that_agent_even_when_the_model_picks_another(agent):
    agent.agent_file("reviewer.md", "reviewer", "Reviews code.", REVIEWER, "tools: Read")
    agent.write("stats.py", "def mean(xs): return sum(xs) / len(xs)\n")
    agent.script(agent_call("general-purpose"), text("- mean fails on []"),
                 lambda request: text("Reviewed: " + request.tool_results()[0].split("\n")[0]))
    run = agent.run("@agent-reviewer check stats.py")
    assert run.exit_code == 0
    first = json.dumps(run.payloads[0]["messages"])
    assert REMINDER in first and "@agent-reviewer check stats.py" in first  # the whole prompt still reaches it
    assert "REVIEWER-BODY" in system_of(run.payloads[1])  # the reviewer ran, not general-purpose
    assert "(The user's @-mention asked for the reviewer agent, so this call ran reviewer instead of " \
           "general-purpose.)" in run.stdout
    assert agent_description(run.payloads[0]) == agent_description(run.payloads[2])  # the tool is unchanged


def test_the_quoted_mention_form_and_a_model_that_follows_it(agent):
    agent.agent_file("reviewer.md", "reviewer", "Reviews code.", REVIEWER, "tools: Read")
    agent.agent_file("helper.md", "helper", "Helps.", "HELPER-BODY", "tools: Read")
    agent.script(agent_call("reviewer"), text("looks fine"), agent_call("helper", "Summarise."), text("summary"),
                 text("done"))
    run = agent.run('Please ask @"reviewer (agent)", then any agent you like, about @agent-nobody.')
    assert run.exit_code == 0 and run.stdout.strip() == "done"
    first = json.dumps(run.payloads[0]["messages"])
    assert first.count("<system-reminder>") == 1 and REMINDER in first  # an unknown name is only text
    assert "REVIEWER-BODY" in system_of(run.payloads[1])
    assert "HELPER-BODY" in system_of(run.payloads[3])  # once the reviewer ran, calls run as asked
    assert "@-mention" not in json.dumps(run.payloads[-1])


def test_a_deny_rule_for_the_mentioned_agent_refuses_the_routed_call(agent):
    agent.settings({"permissions": {"defaultMode": "bypassPermissions", "deny": ["Agent(reviewer)"]}})
    agent.agent_file("reviewer.md", "reviewer", "Reviews code.", REVIEWER)
    agent.script(agent_call("general-purpose"),
                 lambda request: text("Refused: " + request.tool_results()[0]))
    run = agent.run("@agent-reviewer check it")
    assert "denied by the permission rule 'Agent(reviewer)'" in run.stdout
    assert len(run.payloads) == 2 and not any("REVIEWER-BODY" in system_of(p) for p in run.payloads)


# skipped files

SILENT = {  # what Claude Code skips without a word
    "README.md": "Notes about these agents.\n",
    "noname.md": "---\ndescription: No name.\n---\nBody\n",
    "late.md": "\n---\nname: late\ndescription: Late fence.\n---\nBody\n",
    "nodesc.md": "---\nname: nodesc\n---\nBody\n",
    "colon.md": "---\nname: a:b\ndescription: Colon.\n---\nBody\n",
    "dash.md": "---\nname: -dash\ndescription: Dash.\n---\nBody\n",
    "long.md": f"---\nname: {'x' * 257}\ndescription: Long.\n---\nBody\n",
}


def test_unparseable_yaml_is_skipped_with_one_warning_and_silent_skips_say_nothing(agent):
    folder = agent.workspace / ".claude" / "agents"
    folder.mkdir(parents=True)
    for name, content in SILENT.items():
        (folder / name).write_text(content)
    (folder / "bad.md").write_text("---\nname: bad\ndescription: Triggers on: anything\n---\nBAD-BODY\n")
    agent.agent_file("good.md", "good", "Good agent.", "GOOD-BODY")
    agent.script(agent_call("bad"), lambda request: text("Result: " + request.tool_results()[0]))
    run = agent.run("Use the bad agent.")
    lines = [line for line in run.stderr.splitlines() if line.startswith("[agent]")]
    assert lines == [f"[agent] skipping {folder / 'bad.md'}: invalid YAML frontmatter at line 3, column 25 "
                     "(mapping values are not allowed in this context); it would be valid with its one-line values "
                     "in quotes"]
    listing = agent_description(run.payloads[0])
    assert "good: Good agent." in listing
    assert not any(name in listing for name in ("bad: ", "late: ", "nodesc: ", "No name.", "a:b", "-dash", "x" * 257))
    assert "Agent type 'bad' not found" in run.stdout


def test_a_broken_agent_file_stays_skipped_when_read_from_the_cache(tmp_path, home, caplog):
    project = tmp_path / "project"
    bad = project / ".claude" / "agents" / "bad.md"
    bad.parent.mkdir(parents=True)
    bad.write_text("---\nname: bad\ndescription: [unclosed\n---\nB\n")
    skill = project / ".claude" / "skills" / "loose" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\ndescription: Loose: but loads\n---\nS\n")
    for path in (bad, skill):  # old enough to be cached
        os.utime(path, (time.time() - 60, time.time() - 60))
    cache_file = tmp_path / "frontmatter.json"
    for _ in range(2):  # parsed, then read back from the saved cache
        cache = FrontmatterCache(cache_file)
        with caplog.at_level(logging.WARNING, logger="agent"):
            assert "bad" not in discover_agents(project, home, cache=cache)
            assert cache.read(skill)["description"] == "Loose: but loads"  # a skill is still read leniently
        cache.save()
    assert str(bad) in json.loads(cache_file.read_text())["entries"]
    assert sum(f"skipping {bad}: invalid YAML frontmatter at line 4" in r.getMessage() for r in caplog.records) == 2


# --debug

def test_debug_writes_the_ignored_keys_and_skipped_files_to_a_session_log(agent):
    agent.agent_file("typo.md", "typo", "Typo agent.", "Body", "toolz: Read\nmaxturns: 3\ndisallowed_tools: Write\n"
                     "colour: red\nmodle: haiku\nfoo: 1\nbarbaz: 2")
    agent.agent_file("plain.md", "plain", "Plain agent.", "Body", "autoCompactWindow: 200000\nsparkle: yes")
    folder = agent.workspace / ".claude" / "agents"
    (folder / "nodesc.md").write_text(SILENT["nodesc.md"])
    (folder / "README.md").write_text(SILENT["README.md"])
    agent.script(text("ok"))
    run = agent.run("hi", "--debug")
    assert run.exit_code == 0 and "[agent]" not in run.stderr  # nothing of it on stderr
    latest = agent.home / ".claude" / "debug" / "latest"
    log = latest.read_text()
    assert latest.resolve().parent == latest.parent and latest.resolve().suffix == ".txt"
    typo = folder / "typo.md"
    assert (f'Agent file {typo} has frontmatter keys this agent does not recognize or apply: "toolz" (did you mean '
            '"tools"?), "maxturns" (did you mean "maxTurns"?), "disallowed_tools" (did you mean "disallowedTools"?), '
            '"colour" (did you mean "color"?), "modle" (did you mean "model"?) and 2 more') in log
    assert f'Agent file {folder / "plain.md"} has frontmatter keys this agent does not recognize or apply: ' \
           '"sparkle"\n' in log  # autoCompactWindow is applied (agent.compaction)
    assert f"skipping {folder / 'nodesc.md'}: no description" in log
    assert f"skipping {folder / 'README.md'}: no frontmatter" in log
    assert log[:4].isdigit() and log[23:25] == "Z "  # each line `<UTC time> [LEVEL] message`


def test_debug_file_and_categories(agent):
    agent.agent_file("typo.md", "typo", "Typo agent.", "Body", "toolz: Read")
    agent.script(text("ok"), text("ok again"), text("and again"))
    chosen = agent.workspace.parent / "debug.txt"
    run = agent.run("hi", "--debug-file", str(chosen))
    assert run.exit_code == 0 and '"toolz" (did you mean "tools"?)' in chosen.read_text()
    assert not (agent.home / ".claude" / "debug").exists()
    latest = agent.home / ".claude" / "debug" / "latest"
    run = agent.run("hi", "--debug=model")  # only the model client's lines
    assert run.exit_code == 0 and "request 1 (main)" in latest.read_text() and "toolz" not in latest.read_text()
    run = agent.run("hi", "--debug=!model")  # all but those
    assert run.exit_code == 0 and "request 1 (main)" not in latest.read_text() and "toolz" in latest.read_text()


def test_a_debug_file_that_cannot_be_written_is_one_line(agent):
    run = agent.run_argv(["-p", "hi", "--debug-file", str(agent.workspace)])
    assert run.exit_code == 2 and run.stderr.strip() == f"error: --debug-file: cannot write {agent.workspace}: it is a folder"


# the 15,000-token warning

def test_descriptions_past_15000_tokens_warn_once_and_all_agents_still_load(agent):
    for number in range(40):
        agent.agent_file(f"a{number}.md", f"agent{number:02d}", f"Agent {number:02d} " + "detail " * 284, "Body")
    agent.script(text("ok"))
    run = agent.run("hi")
    tokens = 40 * ((len("agent00: Agent 00 " + "detail " * 283 + "detail") + 2) // 4)
    warnings = [line for line in run.stderr.splitlines() if "token limit" in line]
    assert warnings == [f"[agent] Agent descriptions are over the 15,000-token limit (~{tokens:,} tokens for 40 "
                        "custom agents); all still load, but every request carries them: shorten the description "
                        "fields in .claude/agents/ and move the detail into each agent's body, which is read only "
                        "when it runs"]
    listing = agent_description(run.payloads[0])
    assert all(f"agent{number:02d}" in listing for number in range(40))


def test_the_warning_counts_custom_agents_only_as_claude_code_estimates_them(tmp_path, home):
    agents = discover_agents(tmp_path, home)  # the built-ins alone count for nothing
    assert description_tokens(agents.values()) == 0
    (tmp_path / ".claude" / "agents").mkdir(parents=True)
    (tmp_path / ".claude" / "agents" / "a.md").write_text("---\nname: ab\ndescription: cdef\n---\n")
    assert description_tokens(discover_agents(tmp_path, home).values()) == 2  # "ab: cdef" is 8 characters


@pytest.mark.parametrize("key, meant", [("toolz", "tools"), ("maxturns", "maxTurns"), ("Name", "name"),
                                        ("disallowed-tools", "disallowedTools"), ("descripton", "description"),
                                        ("foo", None), ("barbaz", None), ("memroy", "memory")])
def test_did_you_mean(key, meant):
    assert did_you_mean(key, ("name", "description", "tools", "disallowedTools", "maxTurns", "memory")) == meant


def test_mention_forms():
    names = ["reviewer", "Explore", "code reviewer"]
    assert mentioned_agents("@agent-reviewer, then @agent-Explore.", names) == ["reviewer", "Explore"]
    assert mentioned_agents('ask @"code reviewer (agent)" and @agent-reviewer again @agent-reviewer', names) == [
        "code reviewer", "reviewer"]
    assert mentioned_agents("mail me@agent-reviewer.com or @agent-unknown or @reviewer", names) == []


# slash commands

def test_a_forked_skill_is_never_expanded_together_with_another(agent):
    agent.skill("pear", "Use for pears.", "PEAR-BODY with arguments [$ARGUMENTS]")
    agent.skill("apple", "Use for apples.", "APPLE-BODY", fork=True)
    agent.script(text("pear done"))
    run = agent.run("/pear /apple 7")
    assert run.exit_code == 0 and run.stdout.strip() == "pear done"
    assert len(run.payloads) == 1  # no forked apple run
    sent = json.dumps(run.payloads[0]["messages"])
    assert "PEAR-BODY with arguments [/apple 7]" in sent and "APPLE-BODY" not in sent


# interactive mode

@pytest.mark.parametrize("provider", ["openrouter", "anthropic"])
def test_an_agent_file_written_during_a_session_is_callable_next_turn(model, start, provider):
    model.script(text("No such agent yet."), agent_call("newagent", "Say hello."))
    model.route("Say hello.", text("NEW-AGENT-SAYS-HI"))
    model.script(text("It said hi."))
    session = start(provider=provider)
    session.ready()
    session.send("/agents")
    session.expect(r"project\s+" + re.escape(str(session.workspace / ".claude" / "agents")) + r"\s+\(not created yet\)")
    session.expect(r"user\s+" + re.escape(str(session.home / ".claude" / "agents")))
    session.ready()
    session.send("Is there a newagent?")
    session.expect("No such agent yet.")
    session.ready()
    folder = session.workspace / ".claude" / "agents"
    folder.mkdir(parents=True)
    (folder / "newagent.md").write_text("---\nname: newagent\ndescription: Says hello.\n---\nNEW-AGENT-BODY\n")
    session.send("/agents")
    session.expect(r"\(1 file\)")
    session.expect(r"newagent \(project\)\s+" + re.escape(str(folder / "newagent.md")))
    session.ready()
    session.send("Ask newagent to say hello.")
    session.expect("It said hi.")
    session.ready()
    session.send("/exit")
    assert session.end() == 0
    assert "newagent: Says hello." not in model.requests[0].raw and "newagent: Says hello." in model.requests[1].raw
    assert "NEW-AGENT-BODY" in model.requests[2].raw


@pytest.mark.parametrize("provider", ["openrouter", "anthropic"])
def test_an_at_mention_beside_a_file_mention_in_interactive_mode(model, start, provider):
    model.script(agent_call("general-purpose"))
    model.route("Review stats.py.", text("REVIEWED"))
    model.script(text("The reviewer is done."))
    session = start(provider=provider)
    (session.workspace / ".claude" / "agents").mkdir(parents=True)
    (session.workspace / ".claude" / "agents" / "reviewer.md").write_text(
        f"---\nname: reviewer\ndescription: Reviews code.\n---\n{REVIEWER}\n")
    (session.workspace / "stats.py").write_text("MEAN-SOURCE = 1\n")
    session.ready()
    session.send("@agent-reviewer look at @stats.py")
    session.expect("The reviewer is done.")
    session.ready()
    session.send("/exit")
    assert session.end() == 0
    first = model.requests[0].raw
    assert REMINDER in first and "MEAN-SOURCE = 1" in first
    assert "REVIEWER-BODY" in model.requests[1].raw

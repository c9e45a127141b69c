"""Forks on both wire formats: the Agent tool's fork type (on unless CLAUDE_CODE_FORK_SUBAGENT=0),
whose first request is the parent's latest request, byte for byte, plus the reply with the call
and one user turn (the call's result and the directive), so the parent's prompt cache serves it;
its background run and notification, its foreground run, a fork in a worktree of its own, no fork
from a fork, Agent(fork) denied, and /fork and /subtask in the interactive mode."""

import json
import os
import subprocess

import pytest
import yaml

from agent import cli as agent_cli
from conftest import KEYS, REPO
from pty_session import start  # noqa: F401 (the interactive tests' fixture)
from agent.record.cassette_file import read as read_cassette
from scripted_model import call, fail, text
from test_worktrees import make_repo, worktrees

DIRECTIVE = "Directive: "  # what only a fork's opening turn holds
STARTED = "Fork started"
LAUNCHED = "Fork launched in the background."


def labelled(run):
    """(agent, raw JSON text) of every request the run sent, in order."""
    return [(i.agent, json.dumps(i.request, ensure_ascii=False)) for i in read_cassette(str(run.cassette)).interactions]


def is_fork(request) -> bool:
    return DIRECTIVE in json.dumps(request.messages[-1]) or STARTED in request.raw


def last_text(request) -> str:
    return json.dumps(request.messages[-1])


def agent_description(payload) -> str:
    tool = next(t for t in payload["tools"] if (t.get("name") or t["function"]["name"]) == "Agent")
    return tool.get("description") or tool["function"]["description"]


def byte_prefix(parent: str, child: str) -> bool:
    """Whether `parent`'s JSON text, up to the end of its last message, begins `child`'s, which
    goes on with more messages."""
    messages = json.dumps(json.loads(parent)["messages"], ensure_ascii=False)
    end = parent.index(messages) + len(messages) - 1  # before the closing bracket
    return child.startswith(parent[:end] + ", {")


def fork_then(main_replies, fork_replies):
    """A scripted model answering the main conversation and a fork, in whatever order their
    requests arrive: each side's replies in order."""
    main, fork = list(main_replies), list(fork_replies)

    def answer(request):
        queue = fork if is_fork(request) else main
        reply = queue.pop(0)
        return reply(request) if callable(reply) else reply
    return [answer] * (len(main) + len(fork))


def test_a_forks_first_request_is_the_parents_latest_plus_one_turn(agent):
    agent.script(*fork_then(
        [call("Agent", "Forking to count.", description="Count files", prompt="Count the files here.",
              subagent_type="fork"),
         text("Launched."),
         lambda request: text("Final: " + ("FORK-REPORT" if "FORK-REPORT" in last_text(request) else "none"))],
        [text("Counted: FORK-REPORT 3 files")]))
    run = agent.run("How many files? Fork it.")
    assert run.exit_code == 0, run.stderr
    assert run.stdout.strip() == "Final: FORK-REPORT"
    sent = labelled(run)
    assert [who for who, _ in sent].count("fork") == 1
    parent = sent[0][1]
    first = next(body for who, body in sent if who == "fork")
    assert byte_prefix(parent, first)  # system prompt, tools, model and messages: the cache's prefix
    payload, parent_payload = json.loads(first), json.loads(parent)
    assert {k: v for k, v in payload.items() if k != "messages"} == {k: v for k, v in parent_payload.items() if k != "messages"}
    added = payload["messages"][len(parent_payload["messages"]):]
    if agent.provider == "anthropic":
        reply, opening = added
        assert [b["type"] for b in reply["content"]] == ["text", "tool_use"] and reply["content"][1]["name"] == "Agent"
        result, directive = opening["content"]
        assert result["tool_use_id"] == reply["content"][1]["id"] and result["content"].startswith(STARTED)
        assert directive["text"].endswith(DIRECTIVE + "Count the files here.")
        # the breakpoints: the system prompt, the last tool, and the latest message (top level)
        assert payload["cache_control"] == {"type": "ephemeral"} and payload["system"][0]["cache_control"]
        assert payload["tools"][-1]["cache_control"] and "cache_control" not in json.dumps(payload["messages"])
    else:
        reply, result, directive = added
        assert reply["tool_calls"][0]["function"]["name"] == "Agent"
        assert result == {"role": "tool", "tool_call_id": reply["tool_calls"][0]["id"], "content": result["content"]}
        assert result["content"].startswith(STARTED)
        assert directive["role"] == "user" and directive["content"].endswith(DIRECTIVE + "Count the files here.")
        assert parent_payload["messages"][0]["role"] == "system"  # the system prompt is part of the prefix
    main = [json.loads(body) for who, body in sent if who == "main"]
    launch = json.dumps(main[1]["messages"][-1])
    assert LAUNCHED in launch and "SendMessage" not in launch  # a fork is not continued
    assert "<task-notification>" in json.dumps(main[2]["messages"][-1])
    assert [s["type"] for s in json.loads(agent.replay("--output-format", "json").stdout)["subagents"]] == ["fork"]


def test_cassette_show_gives_the_callers_result_of_a_fork_call(agent, capsys):
    agent.script(*fork_then([call("Agent", description="Count", prompt="Count.", subagent_type="fork"),
                             text("Launched."), text("Done.")], [text("3 files")]))
    run = agent.run("Fork it.")
    assert run.exit_code == 0, run.stderr
    capsys.readouterr()
    assert agent_cli.main(["cassette", "show", str(run.cassette)]) == 0
    shown = capsys.readouterr().out
    call_line = shown.index('→ Agent(description="Count"')
    assert shown.index(f"← {LAUNCHED}", call_line) < shown.index("request 2")  # not the fork's "Fork started"
    assert "subagent fork" in shown


def test_the_agent_tool_describes_forks_unless_fork_mode_is_off(agent, monkeypatch, capsys):
    agent.script(text("on"))
    on = agent.run("Hello.")
    assert on.exit_code == 0, on.stderr
    assert 'subagent_type "fork" forks you' in agent_description(on.payloads[0])
    monkeypatch.setenv("CLAUDE_CODE_FORK_SUBAGENT", "0")
    agent.script(call("Agent", description="Fork", prompt="Do it.", subagent_type="fork"),
                 lambda request: text("got: " + request.tool_results()[0]))
    off = agent.run("Fork something.")
    assert off.exit_code == 0, off.stderr
    assert "fork" not in agent_description(off.payloads[0]).lower()
    assert "got: " in off.stdout and "Agent type 'fork' not found. Available agents: " in off.stdout
    monkeypatch.setenv("CLAUDE_CODE_FORK_SUBAGENT", "maybe")
    capsys.readouterr()
    assert agent_cli.main(["-p", "Hello."]) == 2  # before any request: no cassette
    bad = capsys.readouterr().err
    assert "CLAUDE_CODE_FORK_SUBAGENT" in bad and len(bad.splitlines()) == 1


def test_a_foreground_fork_keeps_the_parents_model_and_cannot_fork_again(agent):
    agent.script(*fork_then(
        [call("Agent", description="Look", prompt="Look around.", subagent_type="fork", run_in_background=False,
              model="opus"),
         lambda request: text("Report: " + request.reports()[0])],
        [call("Agent", description="Again", prompt="Fork more.", subagent_type="fork"),
         lambda request: text("refused with: " + request.tool_results()[0])]))
    run = agent.run("Fork and wait.")
    assert run.exit_code == 0, run.stderr
    assert run.stdout.startswith("Report: ") and "refused with: " in run.stdout
    assert "A fork cannot start another fork." in run.stdout
    forks = [json.loads(body) for who, body in labelled(run) if who == "fork"]
    assert len(forks) == 2 and {p["model"] for p in forks} == {run.payloads[0]["model"]}
    assert not any("<task-notification>" in body for body in run.bodies)
    assert "agentId" not in json.dumps(run.payloads[-1]["messages"][-1])  # a fork is not continued


def test_a_fork_the_provider_stops_before_it_writes_is_the_calls_error(agent):
    agent.script(*fork_then(
        [call("Agent", description="Look", prompt="Look around.", subagent_type="fork", run_in_background=False),
         lambda request: text("Got: " + request.tool_results()[0])],
        [fail(400, "the fork's request was not acceptable")]))
    run = agent.run("Fork and wait.")
    assert run.exit_code == 0, run.stderr
    assert "the fork failed: it ended early, before writing any text, because of an API error" in run.stdout
    assert "the fork's request was not acceptable" in run.stdout


def test_a_fork_may_start_a_fresh_agent(agent):
    agent.script(*fork_then(
        [call("Agent", description="Look", prompt="Look around.", subagent_type="fork", run_in_background=False),
         lambda request: text("Report: " + request.reports()[0])],
        [call("Agent", description="Helper", prompt="TASK: help the fork.", subagent_type="general-purpose"),
         lambda request: text("helper said " + request.reports()[0])]))
    agent.route("TASK: help the fork.", text("HELPED"))
    run = agent.run("Fork and wait.")
    assert run.exit_code == 0, run.stderr
    assert run.stdout.startswith("Report: ") and "helper said " in run.stdout and "HELPED" in run.stdout
    assert [who for who, _ in labelled(run)].count("general-purpose") == 1


def test_an_isolated_fork_works_in_a_worktree_of_its_own(agent):
    make_repo(agent.workspace)
    agent.script(*fork_then(
        [call("Agent", description="Try it", prompt="Write new.txt.", subagent_type="fork", isolation="worktree",
              run_in_background=False),
         lambda request: text("Report: " + request.reports()[0])],
        [call("Bash", command="pwd && echo made > new.txt"),
         lambda request: text("wrote it in " + request.tool_results()[0].strip())]))
    run = agent.run("Fork into a worktree.")
    assert run.exit_code == 0, run.stderr
    made = worktrees(agent.workspace)
    assert len(made) == 1 and (made[0] / "new.txt").read_text() == "made\n"  # kept: it changed
    assert not (agent.workspace / "new.txt").exists()
    report, _, kept = run.stdout.partition("worktreePath: ")
    assert "wrote it in " in report and str(made[0]) in report  # its Bash ran there
    assert kept.startswith(f"{made[0]}\nworktreeBranch: worktree-agent-")
    sent = labelled(run)
    first = next(body for who, body in sent if who == "fork")
    assert byte_prefix(sent[0][1], first)  # its system prompt is still its parent's: the cache serves it
    told = json.dumps(json.loads(first)["messages"][-1])  # after its directive: where it works
    assert "isolated git worktree at {{workspace}}/.claude/worktrees/agent-" in told


def test_a_deny_rule_for_agent_fork_refuses_it(agent):
    agent.settings({"permissions": {"defaultMode": "bypassPermissions", "deny": ["Agent(fork)"]}})
    agent.script(call("Agent", description="Fork", prompt="Do it.", subagent_type="fork"),
                 lambda request: text("got: " + request.tool_results()[0]))
    run = agent.run("Fork something.")
    assert run.exit_code == 0, run.stderr
    assert "Agent 'fork' is denied by the permission rule 'Agent(fork)'" in run.stdout
    assert [who for who, _ in labelled(run)] == ["main", "main"]


def test_a_refused_agent_call_is_listed_under_claude_codes_name_for_the_tool(agent):
    agent.settings({"permissions": {"defaultMode": "bypassPermissions", "deny": ["Agent(fork)"]}})
    agent.script(call("Agent", description="Fork", prompt="Do it.", subagent_type="fork"), text("Refused, then."))
    run = agent.run("Fork something.", "--output-format", "json")
    denied = json.loads(run.stdout)["permission_denials"]
    assert [(d["tool_name"], d["tool_input"]["subagent_type"]) for d in denied] == [("Task", "fork")]


def test_fork_on_the_command_line_needs_a_conversation(agent, capsys, monkeypatch):
    key = KEYS[agent.provider]
    capsys.readouterr()
    assert agent_cli.main(["-p", "/fork count the files"]) == 2  # fails before any request: no cassette
    assert capsys.readouterr().err == "error: nothing to fork yet: send a message first, then /fork <directive>\n"
    monkeypatch.setenv(key, "dummy-key")  # a run takes the key out of the environment
    assert agent_cli.main(["-p", "/subtask"]) == 2
    assert capsys.readouterr().err.startswith("error: usage: /subtask <directive>")


def fork_session(model, session, command):
    """A turn, then `command` with a directive: the fork's report comes back and is answered."""
    model.script(*fork_then([text("Hi there."), lambda request: text("Main heard: " + (
        "FORKED-REPORT" if "FORKED-REPORT" in last_text(request) else "nothing"))],
        [text("FORKED-REPORT: 2 files")]))
    session.ready()
    session.send("hello")
    session.expect("Hi there.")
    session.ready()
    session.send(f"{command} count the files")
    session.expect("forked count-the-files")
    session.expect("Main heard: FORKED-REPORT")
    session.ready()


@pytest.mark.parametrize("provider", ["openrouter", "anthropic"])
def test_slash_fork_forks_the_conversation_and_its_report_comes_back(model, start, provider):
    session = start(provider=provider)
    fork_session(model, session, "/fork")
    session.send("/fork")
    session.expect("usage: /fork <directive>")
    session.ready()
    session.send("/exit")
    assert session.end() == 0
    fork = next(r for r in model.requests if is_fork(r))
    main = [r for r in model.requests if not is_fork(r)]
    assert fork.raw.startswith(main[0].raw[:main[0].raw.rindex("}]")])  # the conversation so far, as sent
    assert [m["role"] for m in fork.messages] == ["user", "assistant", "user"]
    assert fork.messages[-1]["content"].endswith(DIRECTIVE + "count the files")
    told = last_text(main[-1])
    assert "/fork count the files" in told and "<task-notification>" in told and "FORKED-REPORT" in told


@pytest.mark.parametrize("provider", ["openrouter", "anthropic"])
def test_slash_subtask_is_recorded_and_replays(model, start, tmp_path, provider):
    session = start("--record", str(tmp_path / "session.yaml"), provider=provider)
    fork_session(model, session, "/subtask")
    session.send("/exit")
    assert session.end() == 0
    agents = [i["agent"] for i in yaml.safe_load((tmp_path / "session.yaml").read_text())["interactions"]]
    assert agents == ["main", "fork", "main"]
    replay = subprocess.run([str(REPO / "your_program.sh"), "--replay", str(tmp_path / "session.yaml"), "--replay-tools"],
                            cwd=tmp_path, env={**os.environ, "HOME": str(session.home)}, stdin=subprocess.DEVNULL,
                            capture_output=True, text=True, timeout=60)
    assert (replay.returncode, replay.stdout) == (0, "Main heard: FORKED-REPORT\n"), replay.stderr

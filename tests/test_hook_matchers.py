"""Which hooks run, as Claude Code 2.1.332 picks them: matchers (exact names, `|` lists, regexes,
`*` or empty for all, case-sensitive), identical commands once, the hooks of one moment in
parallel, every settings file's hooks (and --settings'), disableAllHooks, and configuration that
cannot be used warned about once per piece, never a crash."""

from __future__ import annotations

import json

import pytest

from agent.hooks.config import DEFAULT_TIMEOUT_S, read_hooks
from scripted_model import call, text
from test_hooks import LOG_INPUT, command_hook, hooks_settings, seen_inputs


def logging_hook(label: str) -> str:
    """A hook keeping its input in `<label>.jsonl` (each label's command differs, so each runs)."""
    return LOG_INPUT.replace("inputs.jsonl", f"{label}.jsonl")


def tools_seen(agent, label: str) -> list[str]:
    return [seen["tool_name"] for seen in seen_inputs(agent, f"{label}.jsonl")]


MATCHERS = {"exact": "Bash", "lowercase": "bash", "either": "Edit|Write", "spaced": "Edit | Write", "regex": "^B",
            "star": "*", "empty": "", "prefix": "Edi", "pattern": "ri.e"}


def test_matchers_pick_tools_as_claude_code_reads_them(agent):
    hooks_settings(agent, {"PreToolUse": [group for label, matcher in MATCHERS.items()
                                          for group in command_hook(logging_hook(label), matcher)]})
    agent.script(call("Bash", command="echo hi"), call("Write", file_path="a.txt", content="one"),
                 call("Edit", file_path="a.txt", old_string="one", new_string="two"), call("Read", file_path="a.txt"),
                 text("done"))
    agent.run("Use every tool.")
    every = ["Bash", "Write", "Edit", "Read"]
    assert {label: tools_seen(agent, label) for label in MATCHERS} == {
        "exact": ["Bash"], "lowercase": [], "either": ["Write", "Edit"], "spaced": ["Write", "Edit"], "regex": ["Bash"],
        "star": every, "empty": every, "prefix": [], "pattern": ["Write"]}


def test_an_identical_command_in_two_groups_runs_once(agent):
    hooks_settings(agent, {"PreToolUse": command_hook(LOG_INPUT, "Bash") + command_hook(LOG_INPUT, "*")})
    agent.script(call("Bash", command="echo hi"), text("done"))
    agent.run("Go.")
    assert len(seen_inputs(agent)) == 1


# Each hook says it started, then waits (at most 5 s) for the other to have started too: run one after
# the other, the first would give up before the second began.
MEETS = "touch started-{me}; for i in $(seq 50); do [ -e started-{other} ] && touch {me}-met-{other} && break; sleep 0.1; done"


def test_the_hooks_of_one_moment_run_in_parallel(agent):
    hooks_settings(agent, {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": MEETS.format(me="a", other="b")},
        {"type": "command", "command": MEETS.format(me="b", other="a")}]}]})
    agent.script(call("Bash", command="touch ran.txt"), text("done"))
    agent.run("Go.")
    assert (agent.workspace / "ran.txt").exists()
    assert (agent.workspace / "a-met-b").exists() and (agent.workspace / "b-met-a").exists()


@pytest.mark.parametrize("where", ["user", "project", "local", "flag"])
def test_disable_all_hooks_in_any_settings_file_turns_them_off(agent, where):
    hooks_settings(agent, {"PreToolUse": command_hook(LOG_INPUT)})
    off = {"disableAllHooks": True}
    # the project's own files count once the workspace is trusted (their hooks do too)
    flags = {"flag": ["--settings", json.dumps(off)], "project": ["--trust-workspace"],
             "local": ["--trust-workspace"]}.get(where, [])
    if where == "user":
        agent.settings({"permissions": {"defaultMode": "bypassPermissions"}, "hooks": {"PreToolUse": command_hook(LOG_INPUT)},
                        **off})
    elif where != "flag":
        agent.settings(off, where=where)
    agent.script(call("Bash", command="touch ran.txt"), text("done"))
    agent.run("Go.", *flags)
    assert (agent.workspace / "ran.txt").exists() and seen_inputs(agent) == []


def test_hooks_of_every_settings_file_and_of_the_settings_flag_run(agent):
    hooks_settings(agent, {"PreToolUse": command_hook(logging_hook("user"))})
    agent.settings({"hooks": {"PreToolUse": command_hook(logging_hook("project"))}}, where="project")
    extra = {"hooks": {"PreToolUse": command_hook(logging_hook("flag"))}}
    agent.script(call("Bash", command="echo hi"), text("done"))
    agent.run("Go.", "--trust-workspace", "--settings", json.dumps(extra))
    assert [tools_seen(agent, label) for label in ("user", "project", "flag")] == [["Bash"]] * 3


BAD = {
    "NoSuchEvent": command_hook("echo unknown"),
    "PostToolUse": {"matcher": "Bash"},
    "PreToolUse": [{"matcher": "Bash", "hooks": {"type": "command", "command": "echo not a list"}},
                   {"matcher": "Bash", "hooks": [{"type": "prompt", "prompt": "Is this safe?"}]},
                   {"matcher": "Bash", "hooks": [{"type": "command", "command": LOG_INPUT, "timeout": "soon"}]}],
}


def test_configuration_that_cannot_be_used_is_one_warning_each(agent):
    hooks_settings(agent, BAD)
    agent.script(call("Bash", command="touch ran.txt"), text("done"))
    run = agent.run("Go.")
    assert run.exit_code == 0 and (agent.workspace / "ran.txt").exists()
    assert len(seen_inputs(agent)) == 1  # the hook with a bad timeout runs with the default one
    problems = ["'NoSuchEvent': not an event", "hooks.PostToolUse in", "hooks.PreToolUse[0]", "of type 'prompt'",
                "timeout 'soon'"]
    lines = run.stderr.splitlines()
    assert [sum(problem in line for line in lines) for problem in problems] == [1] * len(problems), run.stderr
    assert "Traceback" not in run.stderr


def test_a_command_hook_without_a_timeout_gets_claude_codes_600_seconds():
    [group] = read_hooks({"Stop": command_hook("echo done")}, "settings.json").groups
    assert DEFAULT_TIMEOUT_S == 600 and group.hooks[0].timeout == 600
    [group] = read_hooks({"Stop": command_hook("echo done", timeout=5)}, "settings.json").groups
    assert group.hooks[0].timeout == 5

"""Hook firings in the cassette tools: `cassette show` lists each in place (text, --json, the HTML
report), `cassette check` and `check --update` keep them, `cassette record` records a hooks
session again byte for byte, and a cassette whose firings are malformed is refused in one line.
Both wire formats; the sessions are those of test_hook_replay."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from agent import cli
from browser import CHROMIUM, rendered
from conftest import BASES, CASSETTES, KEYS
from scripted_model import ScriptedModel, call, text
from test_cassette_reading import cassette
from test_hook_replay import (BLOCKING_GUARD, GUARD, LOGGER, every_result, in_order, json_hook, recorded_context,
                              recorded_guard)
from test_hooks import command_hook, hooks_settings
from test_outcomes import agent_log_kept  # noqa: F401 (autouse: `cassette check` in-process quiets the agent's log)

SUBAGENT_CONTEXT = json_hook("SubagentStart", additionalContext="work quietly")
READ_CHECKED = json_hook("PostToolUse", additionalContext="the output was checked")


def recorded_with_a_subagent(agent):
    """A session whose guard blocked a delete, then whose subagent read a file; hooks fired at
    every moment, the subagent's included."""
    agent.write(".claude/hooks/guard.sh", BLOCKING_GUARD, mode=0o755)
    agent.write("keep.txt", "precious")
    hooks_settings(agent, {"SessionStart": command_hook("echo branch main is green"),
                           "UserPromptSubmit": command_hook(LOGGER), "PreToolUse": command_hook(GUARD, "Bash"),
                           "PostToolUse": command_hook(READ_CHECKED, "Read"),
                           "SubagentStart": command_hook(SUBAGENT_CONTEXT), "SubagentStop": command_hook(LOGGER),
                           "Stop": command_hook(LOGGER)})
    agent.script(call("Bash", command="rm -f keep.txt"),
                 call("Agent", description="Read it", prompt="Read keep.txt and report.", subagent_type="general-purpose", run_in_background=False),
                 text("Done."))
    agent.route("Read keep.txt and report.", call("Read", file_path="keep.txt"), text("keep.txt says precious."))
    run = agent.run("Clean up, then have keep.txt read.")
    assert (run.exit_code, run.stdout) == (0, "Done.\n"), run.stderr
    return run


def test_cassette_show_lists_each_hook_firing_in_place(agent, capsys):
    recorded_with_a_subagent(agent)
    path = str(agent.cassette_path(1))
    code, out, err = cassette(capsys, "show", path)
    assert (code, err) == (0, "")
    logger = f"[{LOGGER}] exit 0 · no effect"
    in_order(out, [
        "\n\nhook SessionStart:startup · main · [echo branch main is green] exit 0 · added context\n"
        f"hook UserPromptSubmit · main · {logger}\nrequest 1 · main · ",
        '  → Bash(command="rm -f keep.txt")\n'
        f"    hook PreToolUse:Bash · main · [{GUARD}] exit 2 · blocked: no deleting here\n    ← error: ",
        "\n\nrequest 2 · main · ", "  → Agent(",
        "\n\nhook SubagentStart:general-purpose · general-purpose · [echo '{\"hookSpecificOutput\": ",
        "] exit 0 · added context\nrequest 3 · subagent general-purpose · ",
        '  → Read(file_path="keep.txt")\n    ← precious',
        "    hook PostToolUse:Read · general-purpose · [echo '{\"hookSpecificOutput\": ", "] exit 0 · added context",
        "\n\nrequest 4 · subagent general-purpose · ", "  keep.txt says precious.\n"
        f"hook SubagentStop:general-purpose · general-purpose · {logger}",
        "\n\nrequest 5 · main · ", f"  Done.\nhook Stop · main · {logger}\n\nanswer    Done.",
    ])

    code, out, _ = cassette(capsys, "show", path, "--json")
    session = json.loads(out)
    first, subagent = session["requests"][0], session["requests"][2]
    assert [shown["moment"] for shown in first["hooks_before"]] == ["SessionStart:startup", "UserPromptSubmit"]
    (blocked,) = first["tool_calls"][0]["hooks"]
    assert blocked["runs"] == [{"command": GUARD, "exit_code": 2, "stderr": "no deleting here\n",
                                "decided": "blocked: no deleting here"}]
    assert blocked["input"]["tool_input"] == {"command": "rm -f keep.txt"} and blocked["agent"] == "main"
    assert [shown["event"] for shown in subagent["hooks_before"]] == ["SubagentStart"]
    assert session["requests"][-1]["hooks_after"][0]["event"] == "Stop" and "hooks_at_end" not in session

    report = agent.workspace.parent / "report.html"
    assert cassette(capsys, "show", path, "--html", str(report))[0] == 0
    page = report.read_text()
    in_order(page, ['data-event="SessionStart"', 'id="request-1"', 'data-event="PreToolUse"',
                    "exit 2 · blocked: no deleting here", 'data-event="SubagentStart"', 'id="request-3"',
                    'data-event="PostToolUse"', 'id="request-4"', 'data-event="SubagentStop"', 'id="request-5"',
                    'data-event="Stop"', 'id="answer"'])
    assert "$CLAUDE_PROJECT_DIR" in page and "<script>" not in page.split("<body>")[1].split("<script>")[0]
    if CHROMIUM:  # as a browser shows it: the block under the Bash call, the subagent's hooks in its block
        shown = rendered(report)
        bash = shown.find("div", "call", data_tool="Bash")
        assert bash.find("div", "hook", data_event="PreToolUse").text.endswith("exit 2 · blocked: no deleting here")
        (subagent,) = shown.find_all("details", "sub", data_agent="general-purpose")
        assert [hook.attrs["data-event"] for hook in subagent.find_all("div", "hook")] == [
            "SubagentStart", "PostToolUse", "SubagentStop"]


def test_check_is_ok_on_a_hooks_cassette_and_an_update_keeps_every_firing(agent, tmp_path, capsys):
    recorded_context(agent)
    copy = tmp_path / "ci" / "hooks.yaml"
    copy.parent.mkdir()
    shutil.copy(agent.cassette_path(1), copy)
    before = yaml.safe_load(copy.read_text())
    assert cassette(capsys, "check", str(copy))[:2] == (0, f"ok    {copy}\n")

    agent.write("CLAUDE.md", "Answer in one line.\n")  # what every request is sent changes
    code, out, _ = cassette(capsys, "check", str(copy))
    assert code == 1 and out.startswith(f"drift {copy}: ")
    code, out, err = cassette(capsys, "check", "--update", str(copy))
    assert code == 0 and out.startswith(f"updated {copy}: 2 requests changed"), (out, err)
    after = yaml.safe_load(copy.read_text())
    assert after["tool_runs"] == before["tool_runs"] and after["setup"] == before["setup"]
    assert cassette(capsys, "check", str(copy))[:2] == (0, f"ok    {copy}\n")


SCENARIOS = {  # how each session is recorded, and the scripted model's part in it
    "guard": (recorded_guard, lambda model: model.script(
        call("Bash", command="rm -f keep.txt"), call("Read", file_path="keep.txt"), every_result)),
    "context": (recorded_context, lambda model: model.script(call("Bash", command="echo original"), every_result)),
    "subagent": (recorded_with_a_subagent, lambda model: (
        model.script(call("Bash", command="rm -f keep.txt"), call(
            "Agent", description="Read it", prompt="Read keep.txt and report.", subagent_type="general-purpose",
            run_in_background=False), text("Done.")),
        model.route("Read keep.txt and report.", call("Read", file_path="keep.txt"), text("keep.txt says precious.")))),
}


def record_again(agent, monkeypatch, capsys, path: Path, replies) -> tuple[int, str, str]:
    """`cassette record PATH` against a new scripted model (its ids count from 1 again)."""
    served = ScriptedModel()
    try:
        replies(served)
        monkeypatch.setenv(BASES[agent.provider], served.base + ("/api/v1/" if agent.provider == "openrouter" else ""))
        monkeypatch.setenv(KEYS[agent.provider], "dummy-key")  # each run takes the key out of the environment
        return cassette(capsys, "record", str(path))
    finally:
        served.close()


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_a_re_recording_of_a_hooks_cassette_is_byte_for_byte_the_same(agent, tmp_path, capsys, monkeypatch, scenario):
    """What a hook reads that changes every run (session id, transcript paths, durations, agent
    ids) stays out of the cassette: recorded again, it is the same file."""
    record, replies = SCENARIOS[scenario]
    record(agent)
    copy = tmp_path / "hooks.yaml"
    shutil.copy(agent.cassette_path(1), copy)
    assert not any(name.encode() in copy.read_bytes() for name in ("session_id", "transcript_path", "duration_ms", "agent_id"))
    # the scripted model counts tokens in what it receives, folders included: recorded in another
    # folder than the committed cassette, its token counts (and a subagent's, in its report) may differ
    assert record_again(agent, monkeypatch, capsys, copy, replies)[0] == 0
    before = copy.read_bytes()
    code, out, err = record_again(agent, monkeypatch, capsys, copy, replies)
    assert (code, out) == (0, f"recorded {copy}: unchanged\n"), err
    assert copy.read_bytes() == before


def test_each_prompts_hooks_are_shown_before_its_request_in_a_session_of_two_prompts(agent, tmp_path, capsys, monkeypatch):
    hooks_settings(agent, {"UserPromptSubmit": command_hook(LOGGER), "Stop": command_hook(LOGGER)})
    agent.script(text("one"))
    assert agent.run("First?").exit_code == 0
    turns = tmp_path / "turns.yaml"  # as an interactive session of two prompts records it
    turns.write_text(agent.cassette_path(1).read_text().replace("  - First?\n", "  - First?\n  - Second?\n", 1))
    code, out, err = record_again(agent, monkeypatch, capsys, turns, lambda model: model.script(text("one"), text("two")))
    assert code == 0, err
    code, out, _ = cassette(capsys, "show", str(turns))
    logger = f"[{LOGGER}] exit 0 · no effect"
    in_order(out, [f"\n\nhook UserPromptSubmit · main · {logger}\nrequest 1 · main", f"  one\nhook Stop · main · {logger}",
                   f"\n\nhook UserPromptSubmit · main · {logger}\nrequest 2 · main", f"  two\nhook Stop · main · {logger}\n"])
    requests = json.loads(cassette(capsys, "show", str(turns), "--json")[1])["requests"]
    assert [turn["hooks_before"][0]["input"]["prompt"] for turn in requests] == ["First?", "Second?"]


# --- a hostile cassette -----------------------------------------------------------------------------

def _firing(change):
    def tamper(data):
        firing = next(entry for entry in data["tool_runs"] if "hook" in entry)
        change(firing)
    return tamper


MALFORMED_FIRINGS = {
    "runs as text": (_firing(lambda f: f.update(runs="rm -rf /")), "(a hook firing): `runs` must be a list of mappings"),
    "a run as a list": (_firing(lambda f: f.update(runs=[["a"]])), "(a hook firing): `runs` must be a list of mappings"),
    "exit code as text": (_firing(lambda f: f["runs"][0].update(exit_code="2")), "each run's `exit_code` must be a number"),
    "exit code true": (_firing(lambda f: f["runs"][0].update(exit_code=True)), "each run's `exit_code` must be a number"),
    "a command as a number": (_firing(lambda f: f["runs"][0].update(command=7)), "each run's `command` must be text"),
    "stderr as a mapping": (_firing(lambda f: f["runs"][0].update(stderr={"a": 1})), "`stdout` and `stderr` must be text"),
    "the event as a number": (_firing(lambda f: f.update(hook=5)), "`hook` must be the event's name"),
    "input as a list": (_firing(lambda f: f.update(input=[1])), "`input` must be a mapping of JSON data"),
    "a firing that is a tool run too": (_firing(lambda f: f.update(tool="Bash", output={"a": 1})),
                                        "is both a hook firing (`hook`) and a tool run (`tool`)"),
    "input nested past the limit": (_firing(lambda f: f.update(input="NESTED")), "nests deeper than"),
}


@pytest.mark.parametrize("case", list(MALFORMED_FIRINGS))
def test_a_malformed_hook_firing_is_one_line_and_exit_2(agent, tmp_path, capsys, case):
    """Tampered copies of the guard session's cassette: each is refused before anything runs."""
    change, problem = MALFORMED_FIRINGS[case]
    seed = CASSETTES / "hook_replay" / f"test_replay_tools_runs_no_hook_and_reproduces_the_block_here_and_in_an_empty_folder-{agent.provider}.yaml"
    data = yaml.safe_load(seed.read_text())
    change(data)
    tampered = tmp_path / "tampered.yaml"
    written = yaml.safe_dump(data, sort_keys=False)
    tampered.write_text(written.replace("input: NESTED", "input: " + "{a: " * 5000 + "}" * 5000, 1))
    for argv in (["--replay", str(tampered)], ["--replay", str(tampered), "--replay-tools"],
                 ["cassette", "show", str(tampered)], ["cassette", "show", str(tampered), "--json"]):
        capsys.readouterr()
        code = cli.main(argv)
        out, err = capsys.readouterr()
        assert (code, out) == (2, "") and err.count("\n") == 1, (argv, err)
        assert problem in err and str(tampered) in err, (argv, err)
    code, out, _ = cassette(capsys, "check", str(tampered))
    assert code == 1 and out.startswith(f"error {tampered}: ") and problem in out, out

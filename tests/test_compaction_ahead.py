"""Compaction ahead of time, as Claude Code 2.1.332 does it: only with a window set
(CLAUDE_CODE_AUTO_COMPACT_WINDOW or --autocompact <tokens>), once the last reply's reported
context reaches the window minus 33,000 (CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: a percentage of it,
when lower); never by default in -p, and never with DISABLE_AUTO_COMPACT."""

from __future__ import annotations

import pytest

from agent import cli

from compaction_replies import summary, without_model
from scripted_model import call, costing, text

SUMMARY_ASKED = "9. Optional Next Step"
CONTINUED = "This session is being continued from a previous conversation"


def _reported(agent, tokens: int, *, compacts: bool) -> None:
    replies = [costing(call("Bash", command="echo large-output"), tokens, 20)]
    if compacts:
        replies.append(summary("SUMMARY-AHEAD"))
    agent.script(*replies, text("All done."))


def test_the_window_variable_compacts_once_the_threshold_is_reached(agent, monkeypatch):
    monkeypatch.setenv("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "100000")
    _reported(agent, 67_100, compacts=True)
    run = agent.run("Run the command")
    assert run.exit_code == 0, run.stderr
    assert run.stdout.strip() == "All done."
    bodies = run.bodies
    assert len(bodies) == 3
    assert SUMMARY_ASKED in bodies[1] and "large-output" in bodies[1]
    assert CONTINUED in bodies[2] and "SUMMARY-AHEAD" in bodies[2]
    assert agent.replay().exit_code == 0


def test_below_the_threshold_nothing_is_compacted(agent, monkeypatch):
    monkeypatch.setenv("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "100000")
    _reported(agent, 66_000, compacts=False)
    run = agent.run("Run the command")
    assert run.exit_code == 0, run.stderr
    assert len(run.bodies) == 2 and not any(SUMMARY_ASKED in body for body in run.bodies)


def test_autocompact_flag_sets_the_window(agent):
    _reported(agent, 167_100, compacts=True)
    run = agent.run("Run the command", "--autocompact", "200000")
    assert run.exit_code == 0, run.stderr
    assert SUMMARY_ASKED in run.bodies[1] and CONTINUED in run.bodies[2]


def test_by_default_reported_usage_alone_never_compacts(agent):
    _reported(agent, 199_000, compacts=False)
    run = agent.run("Run the command")
    assert run.exit_code == 0, run.stderr
    assert len(run.bodies) == 2


def test_the_percentage_override_compacts_earlier(agent, monkeypatch):
    monkeypatch.setenv("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "200000")
    monkeypatch.setenv("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "50")
    _reported(agent, 100_500, compacts=True)
    run = agent.run("Run the command")
    assert run.exit_code == 0, run.stderr
    assert SUMMARY_ASKED in run.bodies[1]


def test_disable_auto_compact_wins_over_the_window(agent, monkeypatch):
    monkeypatch.setenv("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "100000")
    monkeypatch.setenv("DISABLE_AUTO_COMPACT", "1")
    _reported(agent, 90_000, compacts=False)
    run = agent.run("Run the command")
    assert run.exit_code == 0, run.stderr
    assert len(run.bodies) == 2


@pytest.mark.parametrize("value", ["99999", "lots"])
def test_a_bad_autocompact_value_is_a_usage_error(value, tmp_path, monkeypatch, capsys):
    without_model(tmp_path, monkeypatch)
    assert cli.main(["-p", "hi", "--autocompact", value]) == 2  # before any request: no model is reached
    err = capsys.readouterr().err
    assert err == f"error: --autocompact must be auto or a number of tokens from 100,000 to 1,000,000, not {value!r}\n"

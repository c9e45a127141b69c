"""A request the provider refuses as too long is compacted and sent again, as Claude Code 2.1.332
does (claude-code-everyday-observed.md §9): the summary request carries the older part of the
conversation with the summary prompt appended to its last user message, the next request starts
from the summary, keeps the newest messages verbatim and attaches the files read before it again.
DISABLE_AUTO_COMPACT ends the run instead ("Prompt is too long", exit 1)."""

from __future__ import annotations

import json

from compaction_replies import OPENAI_TOO_LONG, summary, too_long
from scripted_model import call, raw, text

CONTINUED = "This session is being continued from a previous conversation that ran out of context."


def _script_three_steps(agent):
    agent.write("alpha.txt", "ALPHA-CONTENT\n")
    agent.write("beta.txt", "BETA-CONTENT\n")
    agent.script(call("Read", file_path=str(agent.workspace / "alpha.txt")),
                 call("Bash", command="echo middle-step"),
                 call("Read", file_path=str(agent.workspace / "beta.txt")),
                 too_long(agent.provider),
                 summary("1. Primary Request and Intent: read two files (SUMMARY-WORDS)"),
                 text("Both files are read."))


def test_a_request_refused_as_too_long_is_summarised_and_sent_again(agent):
    _script_three_steps(agent)
    run = agent.run("Read alpha.txt, echo a step, then read beta.txt")
    assert run.exit_code == 0, run.stderr
    assert run.stdout.strip() == "Both files are read."
    bodies = run.bodies
    assert len(bodies) == 6
    refused, asked, continued = bodies[3], bodies[4], bodies[5]
    assert bodies[4] != refused and "middle-step" in refused
    # the summary request: the same system prompt and tools, the older part only, the prompt appended
    assert json.loads(asked).get("tools") == json.loads(refused).get("tools")
    assert "ALPHA-CONTENT" in asked and "middle-step" not in asked and "BETA-CONTENT" not in asked
    assert "<analysis>" in asked and "9. Optional Next Step" in asked and "Compact Instructions" in asked
    # the next request: the summary, the newest messages verbatim, alpha.txt read again
    assert CONTINUED in continued and "SUMMARY-WORDS" in continued
    assert "<tools-used-before-summary>Read</tools-used-before-summary>" in continued
    assert "middle-step" in continued and "BETA-CONTENT" in continued
    assert "Called the Read tool with the following input:" in continued and "ALPHA-CONTENT" in continued
    assert "kept verbatim" in continued
    assert agent.replay().exit_code == 0


def test_openai_wording_of_a_too_long_prompt_is_recognised(agent):
    agent.script(call("Bash", command="echo first"),
                 raw(OPENAI_TOO_LONG, status=400),
                 summary("SUMMARY-OF-FIRST"),
                 text("Done after compacting."))
    run = agent.run("Echo something")
    assert run.exit_code == 0, run.stderr
    assert run.stdout.strip() == "Done after compacting."
    assert CONTINUED in run.bodies[3] and "SUMMARY-OF-FIRST" in run.bodies[3]


def _bodies(agent, prompt: str, count: int, *replies) -> list[str]:
    """The `count` requests of a run of `prompt` that the model answers with `replies` (it succeeds)."""
    agent.script(*replies)
    run = agent.run(prompt)
    assert run.exit_code == 0, run.stderr
    assert len(run.bodies) == count
    return run.bodies


def test_still_too_long_after_the_summary_compacts_a_second_time(agent):
    bodies = _bodies(agent, "Echo three things", 8, *(call("Bash", command=f"echo {n}") for n in ("one", "two", "three")),
                     too_long(agent.provider), summary("FIRST-SUMMARY"), too_long(agent.provider),
                     summary("SECOND-SUMMARY"), text("Finished."))
    assert "FIRST-SUMMARY" in bodies[6] and "<analysis>" in bodies[6]  # the summary of the summary
    assert "SECOND-SUMMARY" in bodies[7] and "FIRST-SUMMARY" not in bodies[7]


def test_disable_auto_compact_ends_the_run_with_prompt_is_too_long(agent, monkeypatch):
    monkeypatch.setenv("DISABLE_AUTO_COMPACT", "1")
    agent.script(call("Bash", command="echo one"), too_long(agent.provider))
    run = agent.run("Echo one thing", "--output-format", "json")
    assert run.exit_code == 1
    result = json.loads(run.stdout)
    assert result["result"] == "Prompt is too long" and result["terminal_reason"] == "prompt_too_long"
    assert result["is_error"] is True and result["subtype"] == "success"
    assert len(run.bodies) == 2
    assert "compaction is off" in run.stderr


def test_a_summary_request_too_long_itself_leaves_out_its_oldest_exchanges(agent):
    bodies = _bodies(agent, "Echo eight steps", 12, *(call("Bash", command=f"echo step-{n}") for n in range(8)),
                     too_long(agent.provider), too_long(agent.provider), summary("SUMMARY-OF-THE-REST"),
                     text("Finished after dropping."))
    first_try, second_try = bodies[9], bodies[10]
    assert "step-0" in first_try and "step-1" in first_try and "9. Optional Next Step" in first_try
    assert "step-0" not in second_try and "Echo eight steps" in second_try and "step-1" in second_try
    assert "SUMMARY-OF-THE-REST" in bodies[11]

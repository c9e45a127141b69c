"""Subagents compact too (seed audit K6): a subagent's loop is the main one, so a subagent whose
definition sets `autoCompactWindow` compacts within that window, one refused as too long
compacts and goes on, and the compact_boundary goes into the subagent's own transcript."""

from __future__ import annotations

import json

from compaction_replies import summary, too_long
from scripted_model import call, costing, text

TASK = "WORKER-TASK: count the files"
BODY = "You are the worker agent."
CONTINUED = "This session is being continued from a previous conversation"


def _start_worker():
    return call("Agent", description="count files", prompt=TASK, subagent_type="worker", run_in_background=False)


def _subagent_boundaries(agent) -> list[dict]:
    found = []
    for path in (agent.home / ".claude" / "projects").glob("*/*/subagents/agent-*.jsonl"):
        found += [json.loads(line) for line in path.read_text().splitlines() if '"compact_boundary"' in line]
    return found


def test_a_subagent_with_auto_compact_window_compacts_within_it(agent):
    agent.agent_file("worker.md", "worker", "Counts files.", BODY, "autoCompactWindow: 100000", user=True)
    agent.script(_start_worker(), text("The worker counted them."))
    agent.route(TASK, costing(call("Bash", command="echo counting-files"), 67_500, 20),
                summary(f"{TASK} (summarised): counted so far"),
                text("WORKER-REPORT: 3 files"))
    run = agent.run("Have the worker count the files")
    assert run.exit_code == 0, run.stderr
    assert run.stdout.strip() == "The worker counted them."
    worker = [body for body in run.bodies if BODY in body]
    assert len(worker) == 3
    assert "9. Optional Next Step" in worker[1] and "counting-files" in worker[1]
    assert CONTINUED in worker[2] and "counted so far" in worker[2]
    assert "WORKER-REPORT: 3 files" in run.bodies[-1]  # its report reached the main conversation
    [boundary] = _subagent_boundaries(agent)
    assert boundary["compactMetadata"]["trigger"] == "auto" and boundary["isSidechain"] is True
    assert boundary["agentType"] == "worker"


def test_a_subagent_refused_as_too_long_compacts_and_goes_on(agent):
    agent.agent_file("worker.md", "worker", "Counts files.", BODY, user=True)
    agent.script(_start_worker(), text("Done."))
    agent.route(TASK, call("Bash", command="echo step-one"), too_long(agent.provider),
                summary(f"{TASK} (summarised)"), text("WORKER-REPORT: after compacting"))
    run = agent.run("Have the worker count the files")
    assert run.exit_code == 0, run.stderr
    assert "WORKER-REPORT: after compacting" in run.bodies[-1]
    assert len(_subagent_boundaries(agent)) == 1


def test_a_bad_auto_compact_window_is_ignored_with_a_warning(agent):
    agent.agent_file("worker.md", "worker", "Counts files.", BODY, "autoCompactWindow: 5000", user=True)
    agent.script(_start_worker(), text("Done."))
    agent.route(TASK, costing(call("Bash", command="echo step"), 90_000, 20), text("WORKER-REPORT: no compaction"))
    run = agent.run("Have the worker count the files")
    assert run.exit_code == 0, run.stderr
    assert "autoCompactWindow must be auto or a number of tokens from 100,000 to 1,000,000, not '5000'" in run.stderr
    assert not any("9. Optional Next Step" in body for body in run.bodies)

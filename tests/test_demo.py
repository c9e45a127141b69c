"""The demo `make demo` replays: the agent's main job, fixing a failing test in a small project."""

import json
import os
import re
import shutil
import subprocess

from conftest import REPO
from scripted_model import call, text

DEMO_WORKSPACE = REPO / "cassettes" / "demo" / "workspace"
DEMO_PROMPT = "Fix the failing test"


def test_fix_the_failing_test(agent):
    shutil.copytree(DEMO_WORKSPACE, agent.workspace, dirs_exist_ok=True)
    agent.settings({})  # no bypass: the workspace's own .claude/settings.json must be enough
    agent.trust()  # as `make demo` trusts the sample project it ships (--trust-workspace)
    agent.script(
        call("Bash", "I'll run the checks first.", command="python3 test_stats.py"),
        call("Read", file_path="stats.py"),
        call(
            "Edit",
            file_path="stats.py",
            old_string="return total(numbers) / (len(numbers) - 1)",
            new_string="return total(numbers) / len(numbers)",
        ),
        call("Bash", command="python3 test_stats.py"),
        lambda request: text(
            "Fixed `average` in stats.py: it divided by `len(numbers) - 1` instead of `len(numbers)`.\n"
            f"The checks now report: {request.tool_results()[0].splitlines()[-1]}"
        ),
    )
    run = agent.run(DEMO_PROMPT, "--output-format", "json")
    assert run.exit_code == 0 and json.loads(run.stdout)["permission_denials"] == []
    run.stdout = json.loads(run.stdout)["result"]
    assert "return total(numbers) / len(numbers)" in (agent.workspace / "stats.py").read_text()
    assert "3 passed, 0 failed" in run.stdout
    assert "FAIL: average([2, 4, 6]) == 4" in str(run.payloads[1])


ON_CALL_PROMPT = "Who is on the on-call rotation right now?"


def test_on_call_skill_runs_in_a_subagent(agent):
    """The seed's example: the model picks the forked on-call skill; only its answer comes back."""
    shutil.copytree(DEMO_WORKSPACE, agent.workspace, dirs_exist_ok=True)
    agent.settings({})  # no bypass: the workspace's own .claude/settings.json must be enough
    agent.trust()  # as `make demo` trusts the sample project it ships (--trust-workspace)
    agent.script(
        call("Skill", skill="on-call"),
        text("This week (48) blueberry is on call, with kumquat as backup."),
        lambda request: text(
            "The on-call engineer this week is {}, with {} as backup.".format(
                *re.search(r"(\w+) is on call, with (\w+)", request.tool_results()[0]).groups()
            )
        ),
    )
    run = agent.run(ON_CALL_PROMPT)
    assert run.exit_code == 0 and "blueberry" in run.stdout
    assert run.some_request(["week 48: blueberry (primary)"], [ON_CALL_PROMPT])  # the subagent: body only
    assert not run.some_request([ON_CALL_PROMPT, "week 48"])  # the main conversation never sees the body


REVIEW_PROMPT = "Use the reviewer agent to review stats.py"


def test_reviewer_agent_reviews_in_its_own_context(agent):
    """A project subagent with read-only tools reviews the code; the main agent relays its report."""
    shutil.copytree(DEMO_WORKSPACE, agent.workspace, dirs_exist_ok=True)
    agent.settings({})  # no bypass: the workspace's own .claude/settings.json must be enough
    agent.script(
        call("Agent", description="Review stats.py", prompt="Review stats.py for bugs and report them.", subagent_type="reviewer", run_in_background=False),
        call("Read", file_path="stats.py"),
        text(
            "- stats.py:11: `average` divides by `len(numbers) - 1`; the mean needs `len(numbers)`.\n"
            "- stats.py:14: `spread([])` raises a bare ValueError from max(); check for an empty list as `average` does."
        ),
        lambda request: text("The reviewer found:\n" + request.tool_results()[0].split("\n\n<usage>")[0]),
    )
    run = agent.run(REVIEW_PROMPT)
    assert run.exit_code == 0 and "stats.py:11" in run.stdout
    reviewer = [p for p in run.payloads if "careful code reviewer" in json.dumps(p)]
    assert reviewer and all(REVIEW_PROMPT not in json.dumps(p) for p in reviewer)


def test_make_demo_replays_offline_whatever_the_environment_and_says_the_replies_are_scripted():
    """The demo under an environment set up for other work: another model and subagent model, only
    an Anthropic key, a base URL nowhere. The cassettes carry their setup, so none of it matters."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENROUTER_", "ANTHROPIC_", "AGENT_", "CLAUDE_"))}
    env.update(AGENT_MODEL="openai/gpt-5.2-pro", CLAUDE_CODE_SUBAGENT_MODEL="opus", ANTHROPIC_API_KEY="not-a-key",
               OPENROUTER_BASE_URL="http://127.0.0.1:9/nowhere", MAKEFLAGS="")
    done = subprocess.run(["make", "-s", "demo"], cwd=REPO, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "3 passed, 0 failed" in done.stdout and "blueberry" in done.stdout and "stats.py:11" in done.stdout
    narrated = [line for line in done.stderr.splitlines() if "replaying" in line]
    assert len(narrated) == 3
    assert all("cassettes/demo/test_" in line and "recorded by agent" in line
               and "against the scripted model (its replies were written by a test, not by a model)" in line
               for line in narrated)

"""The demo `make demo` replays: the agent's main job, fixing a failing test in a small project."""

import shutil

from conftest import REPO
from scripted_model import call, text

DEMO_WORKSPACE = REPO / "cassettes" / "demo" / "workspace"
DEMO_PROMPT = "Fix the failing test"


def test_fix_the_failing_test(agent):
    shutil.copytree(DEMO_WORKSPACE, agent.workspace, dirs_exist_ok=True)
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
    run = agent.run(DEMO_PROMPT)
    assert run.exit_code == 0
    assert "return total(numbers) / len(numbers)" in (agent.workspace / "stats.py").read_text()
    assert "3 passed, 0 failed" in run.stdout
    assert "FAIL: average([2, 4, 6]) == 4" in str(run.payloads[1])

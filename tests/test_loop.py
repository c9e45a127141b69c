"""The agent loop end to end on both wire formats: more tools, several calls in one reply, tool
errors the model recovers from, and the turn limit."""

import json
import os

from scripted_model import Call, call, calls, raw_call, text


def test_edit_fixes_a_file(agent):
    agent.write("calc.py", "def add(a, b):\n    return a - b\n")
    agent.script(
        call("Read", file_path="calc.py"),
        call("Edit", file_path="calc.py", old_string="return a - b", new_string="return a + b"),
        text("Fixed add()."),
    )
    run = agent.run("Fix the bug in calc.py")
    assert (run.exit_code, run.stdout) == (0, "Fixed add().\n")
    assert (agent.workspace / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"


def test_glob_lists_matches_newest_first(agent):
    for age, name in enumerate(["app/new.py", "app/old.py", "app/sub/older.py", "notes.txt"]):
        path = agent.write(name, "x = 1\n")
        os.utime(path, (1_700_000_000 - age * 100, 1_700_000_000 - age * 100))
    agent.script(call("Glob", pattern="**/*.py"), lambda request: text(request.tool_results()[0]))
    run = agent.run("List the Python files, newest first.")
    assert run.stdout.split() == ["app/new.py", "app/old.py", "app/sub/older.py"]


def test_grep_content_mode(agent):
    agent.write("src/a.py", "import os\nTODO = 'fix me'\n")
    agent.write("src/b.py", "print('nothing here')\n")
    agent.script(
        call("Grep", pattern="fix me", output_mode="content"),
        lambda request: text(request.tool_results()[0]),
    )
    run = agent.run("Where is 'fix me'?")
    assert run.stdout.strip() == "src/a.py:2:TODO = 'fix me'"


def test_three_tool_calls_in_one_reply_all_run_in_order(agent):
    agent.write("a.txt", "alpha")
    agent.write("b.txt", "beta")
    agent.script(
        calls(Call("Read", {"file_path": "a.txt"}), Call("Read", {"file_path": "b.txt"}), Call("Bash", {"command": "echo gamma"})),
        lambda request: text(" ".join(r.split()[-1] for r in request.tool_results())),
    )
    run = agent.run("Read a.txt and b.txt and echo gamma.")
    assert run.stdout == "alpha beta gamma\n"
    second = run.payloads[1]
    if "system" in second:  # Messages API: one user turn holding every result, in call order
        results = second["messages"][-1]["content"]
        calls_made = second["messages"][-2]["content"]
        assert [r["tool_use_id"] for r in results] == [c["id"] for c in calls_made]
    else:  # chat: one tool message per call, each bound to its id
        tool_messages = second["messages"][-3:]
        assistant = second["messages"][-4]
        assert [m["tool_call_id"] for m in tool_messages] == [c["id"] for c in assistant["tool_calls"]]


def test_model_recovers_from_tool_errors(agent):
    agent.write("real.txt", "found it")
    agent.script(
        call("Read", file_path="missing.txt"),
        call("Teleport", destination="mars"),
        raw_call("Read", '{"file_path": "real.txt"'),
        call("Read", file_path="real.txt"),
        lambda request: text(request.tool_results()[0]),
    )
    run = agent.run("What does real.txt say?")
    assert (run.exit_code, run.stdout) == (0, "found it\n")
    errors = json.dumps(run.payloads[1:4])
    assert "does not exist" in errors
    assert "unknown tool 'Teleport'" in errors
    assert "JSON" in errors


def test_max_turns_ends_a_runaway_run(agent):
    agent.script(*[call("Bash", command="echo again") for _ in range(3)])
    run = agent.run("Loop forever.", "--max-turns", "3", "--output-format", "json")
    assert run.exit_code == 1
    result = json.loads(run.stdout)
    assert (result["subtype"], result["is_error"], result["num_turns"]) == ("error_max_turns", True, 3)
    assert "turn limit" in run.stderr
    assert len(run.bodies) == 3


def test_empty_final_reply_prints_nothing_and_succeeds(agent):
    agent.script(text(""))
    run = agent.run("Say nothing.")
    assert (run.exit_code, run.stdout) == (0, "")


def test_final_text_is_stripped(agent):
    agent.script(text("\n\n  42  \n\n"))
    run = agent.run("What is six times seven? Respond with only a number.")
    assert run.stdout == "42\n"

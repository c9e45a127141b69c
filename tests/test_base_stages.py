"""The six public base stages of the CodeCrafters tester (yy2, aq1, md6, ff2, oz7, oq5), each on
both wire formats, with the tester's own checks on stdout and files."""

import re

from scripted_model import call, text


def test_yy2_communicate_with_the_llm(agent):
    agent.script(text("63"))
    run = agent.run("What does 9*7 equal? Respond with only a number.")
    assert (run.exit_code, run.stdout) == (0, "63\n")
    assert run.payloads[0]["model"] in ("anthropic/claude-haiku-4.5", "claude-haiku-4-5")


def test_aq1_advertise_the_read_tool(agent):
    agent.script(lambda request: text(str(len(request.body["tools"]))))
    run = agent.run("How many tools are available to you in this request? Respond with only a number.")
    assert run.exit_code == 0
    assert int(run.stdout.strip().splitlines()[-1]) >= 1
    assert run.some_request(['"Read"', "file_path"])


def test_md6_execute_the_read_tool(agent):
    agent.write("banana.py", "print('Hello, World!')")
    agent.script(call("Read", file_path="banana.py"), lambda request: text(request.tool_results()[0]))
    run = agent.run("What is the content of `banana.py`? Respond only with file contents without backticks.")
    assert (run.exit_code, run.stdout) == (0, "print('Hello, World!')\n")


def test_ff2_implement_the_agent_loop(agent):
    agent.write(
        "README.md",
        "This is a simple python project.\n- The starting point of this project is app/main.py.\n"
        "- The file app/expiry.py contains chemical properties.\n",
    )
    agent.write("app/expiry.py", "chemical_expiry_period = 17  # months\n")
    agent.write("app/main.py", "from expiry import chemical_expiry_period\nprint(chemical_expiry_period)\n")

    def answer(request):
        return text(re.search(r"= (\d+)", request.tool_results()[0]).group(1))

    agent.script(call("Read", file_path="README.md"), call("Read", file_path="app/expiry.py"), answer)
    run = agent.run("Use README.md to determine the chemical expiry period in months. Respond with only a number.")
    assert (run.exit_code, run.stdout) == (0, "17\n")
    assert len(run.bodies) == 3


def test_oz7_implement_the_write_tool(agent):
    agent.write(
        "README.md",
        'This is a very simple python project.\nThis should print "Hello world"\n'
        "This project should contain only one file: app/start.py.\n",
    )
    (agent.workspace / "app").mkdir()
    agent.script(
        call("Read", file_path="README.md"),
        call("Write", file_path="app/start.py", content='print("Hello world")\n'),
        text("Created the file"),
    )
    run = agent.run("Read README.md and create the required file. File should have 1 line. Reply with `Created the file`")
    assert run.exit_code == 0
    assert (agent.workspace / "app/start.py").read_text().strip() == 'print("Hello world")'


def test_oq5_implement_the_bash_tool(agent):
    main_js = "async function main() {\n  const r = await fetch('https://example.com');\n}\nmain();\n"
    agent.write("app/main.js", main_js)
    agent.write("README.md", "# My Project\nUses async js to demonstrate web fetch.\nEntry point: app/\n")
    agent.write("README_old.md", "# My project\nUses javascript promise api.\nEntry point: app/\n")
    agent.script(
        call("Bash", command="ls"),
        call("Bash", command="rm README_old.md"),
        text("Deleted old readme file."),
    )
    run = agent.run("List files using ls and delete the old readme file.")
    assert run.exit_code == 0
    assert not (agent.workspace / "README_old.md").exists()
    assert (agent.workspace / "app/main.js").read_text() == main_js
    assert (agent.workspace / "README.md").exists()
    assert "README_old.md" in run.payloads[1]["messages"][-1]["content"].__str__()

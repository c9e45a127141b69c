"""The instruction files of --add-dir folders, on both wire formats, as Claude Code loads them: not
at all by default; with CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD=1, each folder's CLAUDE.md,
.claude/CLAUDE.md, .claude/rules/ and CLAUDE.local.md after the working folder's, its rules with
`paths` and its subfolders' CLAUDE.md waiting for a file of that folder."""

import json

from scripted_model import call, text

VARIABLE = "CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD"


def shared_library(agent):
    lib = agent.home / "lib"  # outside the workspace; its paths reach the cassette as {{home}}/lib
    (lib / ".claude" / "rules").mkdir(parents=True)
    (lib / "CLAUDE.md").write_text("LIB-RULES.\n")
    (lib / ".claude" / "rules" / "always.md").write_text("LIB-ALWAYS.\n")
    (lib / ".claude" / "rules" / "python.md").write_text("---\npaths: \"**/*.py\"\n---\nLIB-PYTHON.\n")
    (lib / "sub").mkdir()
    (lib / "sub" / "CLAUDE.md").write_text("LIB-SUB.\n")
    (lib / "sub" / "util.py").write_text("x = 1\n")
    agent.write("CLAUDE.md", "APP-RULES.\n")
    return lib


def test_an_added_folders_files_load_only_when_the_variable_asks(agent, monkeypatch):
    lib = shared_library(agent)
    agent.script(text("ok"))
    plain = json.dumps(agent.run("Hello.", "--add-dir", "../home/lib").payloads[0])
    assert "APP-RULES." in plain and "LIB-RULES." not in plain and "LIB-ALWAYS." not in plain
    monkeypatch.setenv(VARIABLE, "1")
    agent.script(call("Read", file_path="../home/lib/sub/util.py"), text("read"))
    run = agent.run("Read the library.", "--add-dir", "../home/lib")
    assert run.exit_code == 0, run.stderr
    start, after = (json.dumps(payload) for payload in run.payloads)
    assert start.index("APP-RULES.") < start.index("LIB-RULES.") < start.index("LIB-ALWAYS.")
    assert "LIB-PYTHON." not in start and "LIB-PYTHON." in after  # its path rule waits for a file it matches
    assert "LIB-SUB." not in start and "LIB-SUB." in after  # as a subfolder's CLAUDE.md does  # its path rule waits for a file it matches

"""Rules files read as data from a repository someone else wrote: their `paths` globs (a text, a
comma list, a YAML list, `{a,b}` alternatives) decide which files attach them, a glob built to
make a backtracking matcher take forever still answers at once, and a folder of thousands of rule
files is read only in part, with one warning."""

import time
from pathlib import Path

from agent.conversation import ToolCall
from agent.memory import load_levels
from agent.tools.instructions import Instructions


def write(path: Path, content: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    return path


def attached_for(cwd: Path, home: Path, relative: str) -> str:
    """The texts a Read of `relative` (in a fresh conversation in `cwd`) is followed by."""
    instructions = Instructions(home, ("user", "project", "local"), None)
    instructions.at_start(cwd)
    call = ToolCall("t1", "Read", {"file_path": str(cwd / relative)})
    result = {"type": "tool_result", "tool_use_id": "t1", "content": "x"}
    return "".join(block["text"] for block in instructions.attached(cwd, [], [call], [result]))


def test_paths_forms_choose_the_files_a_rule_is_attached_for(cwd, home):
    write(cwd / ".claude/rules/web.md", "---\npaths: \"src/**/*.{ts,tsx}, docs/*.md\"\n---\nWEB.\n")
    write(cwd / ".claude/rules/list.md", "---\npaths:\n  - lib/*.py\n  - \"**/Makefile\"\n---\nLIST.\n")
    assert "WEB." in attached_for(cwd, home, "src/a/b.tsx") and "WEB." in attached_for(cwd, home, "docs/x.md")
    assert "WEB." not in attached_for(cwd, home, "src/a/b.py") and "WEB." not in attached_for(cwd, home, "docs/a/x.md")
    assert "LIST." in attached_for(cwd, home, "lib/x.py") and "LIST." in attached_for(cwd, home, "a/b/Makefile")
    assert "LIST." not in attached_for(cwd, home, "lib/sub/x.py")
    assert [rule.path.name for rule in load_levels(cwd, home).waiting] == ["list.md", "web.md"]


def test_a_hostile_glob_answers_at_once(cwd, home):
    write(cwd / ".claude/rules/slow.md", "---\npaths: \"" + "*a" * 40 + "*b\"\n---\nSLOW.\n")
    write(cwd / ".claude/rules/braces.md", "---\npaths: \"" + "{a,b}" * 30 + "\"\n---\nBRACES.\n")
    started = time.monotonic()
    text = attached_for(cwd, home, "a" * 5000 + ".txt")
    assert time.monotonic() - started < 2 and "SLOW." not in text and "BRACES." not in text


def test_thousands_of_rule_files_are_read_in_part_with_one_warning(cwd, home, warnings):
    for number in range(250):
        write(cwd / f".claude/rules/r{number:03}.md", f"RULE-{number:03}.\n")
    files = load_levels(cwd, home).files
    assert len(files) == 200 and files[-1].text == "RULE-199.\n"
    assert [line for line in warnings if "more than 200 rule files" in line] != []

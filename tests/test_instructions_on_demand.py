"""Instructions loaded on demand, on both wire formats, as Claude Code 2.1.332 attaches them: a
Read, Edit or Write of a file below the workspace is followed, after the tool results, by one
`<system-reminder>` block per CLAUDE.md of the folders between (outer first, imports after their
file) and per rule whose `paths` match, each file once per conversation; a subagent (Explore too)
keeps its own account. Files outside a folder's fence are skipped, and the blocks replay byte for
byte."""

import json

from scripted_model import call, text


def write(path, content):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    return path


def attached(payload):
    """The texts sent after the latest tool results: Anthropic's text blocks in that user message,
    or the user message the OpenAI-compatible wire sends after the tool messages (blocks joined)."""
    last = payload["messages"][-1]
    if isinstance(last["content"], list):
        return [block["text"] for block in last["content"] if block.get("type") == "text"]
    previous = payload["messages"][-2]
    return [last["content"]] if last["role"] == "user" and previous["role"] == "tool" else []


def reminder(path, content):
    return f"<system-reminder>\nContents of {path}:\n\n{content}\n</system-reminder>"


def joined(agent, blocks):
    """What the blocks read as on the test's wire: Anthropic keeps them apart (each but the last
    ending in a line break); the OpenAI-compatible wire joins them in one user message."""
    texts = [block + "\n" for block in blocks[:-1]] + blocks[-1:]
    return texts if agent.provider == "anthropic" else ["\n\n".join(texts)]


def project(agent):
    agent.write("src/CLAUDE.md", "SRC-MD.\n@imp.md\n<!-- for people only -->\n")
    agent.write("src/imp.md", "SRC-IMPORT.\n")
    agent.write("src/deep/CLAUDE.md", "DEEP-MD without a line break")
    agent.write("src/deep/x.py", "print(1)\n")
    agent.write("src/.claude/rules/always.md", "SRC-RULE.\n")
    agent.write(".claude/rules/python.md", "---\npaths:\n  - \"src/**/*.py\"\n---\nRULE-PYTHON.\n")
    agent.write(".claude/rules/lib.md", "---\npaths: \"lib/*.{txt,md}\"\n---\nRULE-LIB.\n")
    agent.write("lib/l.txt", "lib text\n")
    agent.write("CLAUDE.md", "ROOT-MD.\n")


def test_a_read_below_the_workspace_attaches_its_folders_files_and_matching_rules_once(agent):
    project(agent)
    x, lib = str(agent.workspace / "src/deep/x.py"), str(agent.workspace / "lib/l.txt")
    agent.script(call("Read", file_path=x), call("Read", file_path=x), call("Read", file_path=lib), text("done"))
    run = agent.run("Read them.")
    assert run.exit_code == 0 and run.stdout.strip() == "done"
    first, again, other = (attached(payload) for payload in run.payloads[1:4])
    assert first == joined(agent, [
        reminder("{{workspace}}/src/CLAUDE.md", "SRC-MD.\n@imp.md\n"),
        reminder("{{workspace}}/src/imp.md", "SRC-IMPORT.\n"),
        reminder("{{workspace}}/src/.claude/rules/always.md", "SRC-RULE.\n"),
        reminder("{{workspace}}/src/deep/CLAUDE.md", "DEEP-MD without a line break"),
        reminder("{{workspace}}/.claude/rules/python.md", "RULE-PYTHON.\n"),
    ])
    assert again == []  # each file once per conversation
    assert other == joined(agent, [reminder("{{workspace}}/.claude/rules/lib.md", "RULE-LIB.\n")])
    messages = run.payloads[1]["messages"]
    later = messages[[message["role"] for message in messages].index("user") + 1:]
    assert "ROOT-MD." not in json.dumps(later)  # the workspace's own came at the start
    replayed = agent.replay()
    assert replayed.exit_code == 0 and replayed.stdout.strip() == "done", replayed.stderr


def test_edits_and_writes_attach_too_failures_and_files_outside_the_workspace_do_not(agent):
    agent.write("e/CLAUDE.md", "E-MD.\n")
    agent.write("e/e.txt", "eee\n")
    agent.write("w/CLAUDE.md", "W-MD.\n")
    agent.write("gone/CLAUDE.md", "GONE-MD.\n")
    write(agent.home / "outside/CLAUDE.md", "OUTSIDE-MD.\n")  # home: a folder the cassette names as {{home}}
    write(agent.home / "outside/o.txt", "o\n")
    e = str(agent.workspace / "e/e.txt")
    agent.script(call("Read", file_path=str(agent.workspace / "gone/missing.txt")),
                 call("Read", file_path=str(agent.home / "outside/o.txt")),
                 call("Read", file_path=e),
                 call("Edit", file_path=e, old_string="eee", new_string="fff"),
                 call("Write", file_path=str(agent.workspace / "w/new.txt"), content="new\n"),
                 text("done"))
    run = agent.run("Work.")
    assert run.exit_code == 0 and (agent.workspace / "w/new.txt").read_text() == "new\n"
    missing, outside, read, edit, written = (attached(payload) for payload in run.payloads[1:6])
    assert missing == [] and outside == [] and "OUTSIDE-MD" not in run.bodies[-1]
    assert read == joined(agent, [reminder("{{workspace}}/e/CLAUDE.md", "E-MD.\n")]) and edit == []
    assert written == joined(agent, [reminder("{{workspace}}/w/CLAUDE.md", "W-MD.\n")])


def test_each_subagent_keeps_its_own_account_explore_included(agent):
    project(agent)
    agent.write("m/CLAUDE.md", "M-MD.\n")
    agent.write("m/m.txt", "m\n")
    x, m = str(agent.workspace / "src/deep/x.py"), str(agent.workspace / "m/m.txt")
    agent.script(
        call("Read", file_path=x),
        call("Agent", description="help", prompt="Read x and m.", subagent_type="general-purpose", run_in_background=False),
        call("Read", file_path=x), call("Read", file_path=m), text("helped"),
        call("Agent", description="look", prompt="Read x.", subagent_type="Explore", run_in_background=False),
        call("Read", file_path=x), text("looked"),
        call("Read", file_path=m),
        text("done"),
    )
    run = agent.run("Delegate.")
    assert run.exit_code == 0 and run.stdout.strip() == "done"
    by_agent = {}
    for payload in run.payloads:
        system = json.dumps(payload.get("system") or payload["messages"][0])
        who = "gp" if "general-purpose agent" in system else "explore" if "read-only exploration" in system else "main"
        by_agent.setdefault(who, []).append(payload)
    src = "{{workspace}}/src/CLAUDE.md"
    for who in ("main", "gp", "explore"):  # each reads x first, and each is given src/CLAUDE.md itself
        assert reminder(src, "SRC-MD.\n@imp.md\n") in attached(by_agent[who][1])[0]
    assert attached(by_agent["gp"][2]) == joined(agent, [reminder("{{workspace}}/m/CLAUDE.md", "M-MD.\n")])
    assert attached(by_agent["main"][-1]) == joined(agent, [reminder("{{workspace}}/m/CLAUDE.md", "M-MD.\n")])


def test_a_subfolders_files_stay_inside_their_folder(agent, tmp_path):
    write(tmp_path / "secret.txt", "TOP-SECRET\n")
    agent.write("a/a.txt", "a\n")
    (agent.workspace / "a/CLAUDE.md").symlink_to(tmp_path / "secret.txt")
    agent.write("b/CLAUDE.md", "B-MD.\n@../../secret.txt\n@~/.ssh/id_rsa\n")
    write(agent.home / ".ssh/id_rsa", "PRIVATE-KEY\n")
    agent.write("b/b.txt", "b\n")
    agent.script(call("Read", file_path=str(agent.workspace / "a/a.txt")),
                 call("Read", file_path=str(agent.workspace / "b/b.txt")), text("done"))
    run = agent.run("Read.")
    assert run.exit_code == 0
    assert attached(run.payloads[1]) == []
    assert attached(run.payloads[2]) == joined(agent, [reminder("{{workspace}}/b/CLAUDE.md", "B-MD.\n@../../secret.txt\n@~/.ssh/id_rsa\n")])
    assert "TOP-SECRET" not in run.bodies[-1] and "PRIVATE-KEY" not in run.bodies[-1]
    assert "a/CLAUDE.md: it leads to" in run.stderr and "id_rsa: it leads to" in run.stderr


def test_a_bash_command_reading_a_file_with_cat_head_tail_sed_or_grep_attaches_too(agent):
    for folder in ("c1", "c2", "c3", "c4", "c5", "c6"):
        agent.write(f"{folder}/CLAUDE.md", f"{folder.upper()}-MD.\n")
        agent.write(f"{folder}/f.txt", "x\n")
    commands = ["head -n 1 c1/f.txt", "cat c2/f.txt | tr x y", "wc -l c3/f.txt", "cat c4/f.txt && echo hi",
                "cd c5 && cat f.txt", "grep -c x c6/f.txt c6/missing.txt || true"]
    agent.script(*[call("Bash", command=command) for command in commands], text("done"))
    run = agent.run("Look.")
    assert run.exit_code == 0 and run.stdout.strip() == "done"
    after = [attached(payload) for payload in run.payloads[1:7]]
    assert after[0] == joined(agent, [reminder("{{workspace}}/c1/CLAUDE.md", "C1-MD.\n")])
    assert after[3] == joined(agent, [reminder("{{workspace}}/c4/CLAUDE.md", "C4-MD.\n")])
    assert after[1] == after[2] == after[4] == after[5] == []  # a pipe, wc, a file read after cd, an operator

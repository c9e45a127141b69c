"""What an agent starts with, on both wire formats: its own memory (`memory: user|project|local`:
the folder Claude Code 2.1.332 uses, MEMORY.md's first 200 lines or 25,000 characters with Claude
Code's warning, the instructions, Read/Write/Edit given whatever `tools` says, writes there
without asking in a trusted workspace), memory turned off, and the 32-skill preload cap."""

import json
import os

from scripted_model import call, text


def system_of(payload):
    """A request's system prompt, as text, on either wire."""
    system = payload["system"] if "system" in payload else payload["messages"][0]["content"]
    return system if isinstance(system, str) else "".join(block["text"] for block in system)


def tool_names(payload):
    return [t.get("name") or t["function"]["name"] for t in payload.get("tools", [])]


def subagent_request(run, marker):
    """The first request whose system prompt holds `marker` (a subagent's body)."""
    return next(p for p in run.payloads if marker in system_of(p))


def tool_result_texts(payload):
    """The texts of the tool results answering a request's latest assistant turn, on either wire."""
    messages = payload["messages"]
    if messages[-1]["role"] == "tool":
        return [m["content"] for m in messages if m["role"] == "tool"][-1:]
    last = messages[-1]["content"]
    return [b["content"] if isinstance(b["content"], str) else json.dumps(b["content"])
            for b in (last if isinstance(last, list) else []) if b.get("type") == "tool_result"]


def delegate(task, kind):
    return call("Agent", description=task[:20], prompt=task, subagent_type=kind, run_in_background=False)


def test_project_memory_loads_the_first_200_lines_with_claude_codes_warning_and_the_memory_tools(agent):
    agent.agent_file("keeper.md", "keeper", "Keeps notes.", "KEEPER BODY", "memory: project\ntools: Bash")
    agent.write(".claude/agent-memory/keeper/MEMORY.md", "".join(f"project line {i}\n" for i in range(1, 301)))
    agent.script(delegate("Recall.", "keeper"), text("recalled"), text("done"))
    run = agent.run("Ask the keeper.")
    assert run.exit_code == 0
    sub = subagent_request(run, "KEEPER BODY")
    system = system_of(sub)
    assert system.startswith("KEEPER BODY\n\n# Persistent Agent Memory\n")
    assert "memory folder at `{{workspace}}/.claude/agent-memory/keeper/`" in system
    assert "## MEMORY.md\n\nproject line 1\nproject line 2\n" in system
    assert ("project line 200\n\n> WARNING: MEMORY.md is 300 lines (limit: 200). Only part of it was loaded: 100 of "
            "300 lines were cut off, starting at line 201 (\"project line 201\"). Keep index entries to one line under "
            "~200 chars; move detail into topic files.") in system
    assert "project line 202" not in system
    assert sorted(tool_names(sub)) == ["Bash", "Edit", "Read", "Write"]
    assert "Persistent Agent Memory" not in system_of(run.payloads[0])


def test_user_and_local_memory_live_where_claude_code_keeps_them_under_a_safe_folder_name(agent):
    agent.agent_file("mine.md", "../mine", "Mine.", "MINE BODY", "memory: user\ntools: Read")
    agent.agent_file("here.md", "here.v2", "Here.", "HERE BODY", "memory: local")
    agent.write(".claude/agent-memory-local/here-v2/MEMORY.md", "- [Build](build.md) — how the build is run\n")
    agent.script(delegate("One.", "../mine"), text("one"), delegate("Two.", "here.v2"), text("two"), text("done"))
    run = agent.run("Ask both.")
    assert run.exit_code == 0
    mine, here = system_of(subagent_request(run, "MINE BODY")), system_of(subagent_request(run, "HERE BODY"))
    assert "memory folder at `{{home}}/.claude/agent-memory/---mine/`" in mine
    assert "## MEMORY.md\n\nYour MEMORY.md is currently empty. When you save new memories, they will appear here." in mine
    assert "memory folder at `{{workspace}}/.claude/agent-memory-local/here-v2/`" in here
    assert "## MEMORY.md\n\n- [Build](build.md) — how the build is run" in here and "WARNING" not in here
    assert sorted(tool_names(subagent_request(run, "MINE BODY"))) == ["Edit", "Read", "Write"]


def test_a_memory_over_25000_characters_is_cut_at_a_line_with_claude_codes_warning(agent):
    agent.agent_file("wide.md", "wide", "Wide notes.", "WIDE BODY", "memory: project")
    agent.agent_file("long.md", "long", "One long line.", "LONG BODY", "memory: project")
    agent.write(".claude/agent-memory/wide/MEMORY.md", "".join(f"L{i:03d} " + "x" * 395 + "\n" for i in range(100)))
    agent.write(".claude/agent-memory/long/MEMORY.md", "y" * 30000 + "\n")
    agent.script(delegate("Wide.", "wide"), text("one"), delegate("Long.", "long"), text("two"), text("done"))
    run = agent.run("Ask both.")
    wide, long = system_of(subagent_request(run, "WIDE BODY")), system_of(subagent_request(run, "LONG BODY"))
    assert "L061 " in wide and "\nL062 " not in wide
    assert ('> WARNING: MEMORY.md is 39.2KB (limit: 24.4KB) — index entries are too long. Only part of it was loaded: '
            f'38 of 100 lines were cut off, starting at line 63 ("L062 {"x" * 74}…"). Keep index entries') in wide
    assert "y" * 25000 + "\n\n> WARNING: MEMORY.md is 29.3KB (limit: 24.4KB) — index entries are too long. Only part " \
           "of it was loaded: everything after the first 25000 characters of line 1 was cut off." in long
    assert "y" * 25001 not in long


def test_a_trusted_agent_writes_its_memory_without_asking_and_nothing_else(agent):
    agent.settings({})  # default mode: writes ask, and -p has nobody to ask
    agent.trust()
    agent.agent_file("keeper.md", "keeper", "Keeps notes.", "KEEPER BODY", "memory: project\ntools: Read")
    notes = agent.workspace / ".claude/agent-memory/keeper/notes.md"
    agent.script(delegate("Remember.", "keeper"), call("Write", file_path=str(notes), content="the build uses make\n"),
                 call("Write", file_path="other.txt", content="x\n"), text("saved"), text("done"))
    run = agent.run("Ask the keeper.")
    assert run.exit_code == 0
    assert notes.read_text() == "the build uses make\n"
    assert not (agent.workspace / "other.txt").exists()


def test_an_untrusted_projects_agent_remembers_but_its_writes_ask(agent):
    agent.settings({})
    agent.agent_file("keeper.md", "keeper", "Keeps notes.", "KEEPER BODY", "memory: project\ntools: Read")
    notes = agent.workspace / ".claude/agent-memory/keeper/notes.md"
    agent.script(delegate("Remember.", "keeper"), call("Write", file_path=str(notes), content="planted\n"),
                 text("could not"), text("done"))
    run = agent.run("Ask the keeper.")
    assert run.exit_code == 0
    assert not notes.exists()
    assert "Persistent Agent Memory" in system_of(subagent_request(run, "KEEPER BODY"))
    assert [line for line in run.stderr.splitlines() if "The memory of the project agent 'keeper' loads" in line]


def test_memory_turned_off_by_the_variable_or_the_setting_gives_no_memory_nor_its_tools(agent, monkeypatch):
    agent.agent_file("keeper.md", "keeper", "Keeps notes.", "KEEPER BODY", "memory: project\ntools: Bash")
    agent.write(".claude/agent-memory/keeper/MEMORY.md", "- secret plan\n")
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")
    agent.script(delegate("Recall.", "keeper"), text("nothing"), text("done"))
    off = agent.run("Ask the keeper.")
    monkeypatch.delenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY")
    agent.settings({"permissions": {"defaultMode": "bypassPermissions"}, "autoMemoryEnabled": False})
    agent.script(delegate("Recall.", "keeper"), text("nothing"), text("done"))
    setting = agent.run("Ask the keeper.")
    for run in (off, setting):
        sub = subagent_request(run, "KEEPER BODY")
        assert "Persistent Agent Memory" not in system_of(sub) and "secret plan" not in json.dumps(sub)
        assert tool_names(sub) == ["Bash"]


def test_a_memory_file_leading_out_of_the_workspace_is_not_read(agent, tmp_path):
    outside = tmp_path / "id_rsa"
    outside.write_text("PRIVATE KEY\n")
    agent.agent_file("keeper.md", "keeper", "Keeps notes.", "KEEPER BODY", "memory: project")
    link = agent.workspace / ".claude/agent-memory/keeper/MEMORY.md"
    link.parent.mkdir(parents=True)
    os.symlink(outside, link)
    agent.script(delegate("Recall.", "keeper"), text("nothing"), text("done"))
    run = agent.run("Ask the keeper.")
    assert "PRIVATE KEY" not in json.dumps(run.payloads)
    assert "Your MEMORY.md is currently empty." in system_of(subagent_request(run, "KEEPER BODY"))
    assert [line for line in run.stderr.splitlines() if "skipping" in line and "MEMORY.md" in line]


def test_an_agent_preloads_the_first_32_distinct_skills_it_names(agent):
    for number in range(1, 35):
        agent.skill(f"s{number}", f"Skill {number}.", f"BODY-S{number}-END",
                    extra="disable-model-invocation: true" if number == 2 else "")
    names = ", ".join(["missing", "s1", "s2", "s1", *(f"s{number}" for number in range(3, 35))])
    agent.agent_file("capper.md", "capper", "Many skills.", "CAPPER BODY", f"skills: {names}")
    agent.script(delegate("Go.", "capper"), text("went"), text("done"))
    run = agent.run("Ask the capper.")
    system = system_of(subagent_request(run, "CAPPER BODY"))
    loaded = [number for number in range(1, 35) if f"BODY-S{number}-END" in system]
    assert loaded == [1, *range(3, 32)]  # missing, s1, s2 and s3..s31 are the first 32 distinct names

"""Unit tests of subagent definitions: discovery, precedence, --agents JSON and tool filtering."""

from __future__ import annotations

import json
import logging
import random
from pathlib import Path

import pytest

from agent.subagents.definitions import BUILTIN_AGENTS, AgentDefinition, filter_tools
from agent.subagents.discovery import discover_agents, parse_cli_agents, read_agent
from agent.errors import UsageError
from agent.skills.frontmatter import FrontmatterError

TOOLS = ["Bash", "Read", "Write", "Edit", "Glob", "Grep", "Agent"]


def write_agent(root: Path, relative: str, frontmatter: str, body: str = "Body.\n") -> Path:
    path = root / ".claude" / "agents" / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{frontmatter}\n---\n\n{body}")
    return path


def warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


def definition(tools=None, disallowed=(), name="probe") -> AgentDefinition:
    return AgentDefinition(name, "d", "p", tools=tools, disallowed_tools=disallowed)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "outside" / "repo"
    (path / ".git").mkdir(parents=True)
    return path


# Discovery

def test_builtins_only_when_there_are_no_files(repo, home):
    agents = discover_agents(repo, home)
    assert agents == BUILTIN_AGENTS
    assert agents["Explore"].tools is None  # every tool but these, as Claude Code's Explore
    assert agents["Explore"].disallowed_tools == ("Agent", "Edit", "Write", "NotebookEdit")
    assert agents["general-purpose"].tools is None
    assert all(a.source == "builtin" and a.prompt for a in agents.values())


def test_recursive_discovery_in_nested_folders_with_body_as_prompt(repo, home):
    path = write_agent(repo, "team/review/deep.md", "name: deep\ndescription: Deep one.", "\n\n  You review.\n\n")
    write_agent(repo, "top.md", "name: top\ndescription: Top one.")
    (repo / ".claude" / "agents" / "notes.txt").write_text("not an agent")
    agents = discover_agents(repo, home)
    assert list(agents) == ["Explore", "Plan", "deep", "general-purpose", "top"]
    deep = agents["deep"]
    assert (deep.description, deep.prompt, deep.source, deep.path) == ("Deep one.", "You review.", "project", path)


def test_parent_folders_up_to_the_repo_root_nearest_wins(repo, home, caplog):
    cwd = repo / "pkg" / "sub"
    cwd.mkdir(parents=True)
    write_agent(repo, "a.md", "name: shared\ndescription: From the root.")
    write_agent(repo, "b.md", "name: rooted\ndescription: Only at the root.")
    write_agent(repo / "pkg", "a.md", "name: shared\ndescription: From pkg.")
    write_agent(cwd, "x.md", "name: local\ndescription: In cwd.")
    write_agent(repo.parent, "above.md", "name: above\ndescription: Above the repo root.")
    with caplog.at_level(logging.INFO, logger="agent"):
        agents = discover_agents(cwd, home)
    assert agents["shared"].description == "From pkg."
    assert agents["rooted"].source == agents["local"].source == "project"
    assert "above" not in agents
    assert "shadows" in caplog.text


def test_without_a_repository_only_cwd_is_searched(tmp_path, home):
    cwd = tmp_path / "loose" / "dir"
    cwd.mkdir(parents=True)
    write_agent(tmp_path / "loose", "p.md", "name: parent\ndescription: Parent folder.")
    write_agent(cwd, "c.md", "name: here\ndescription: Here.")
    assert "parent" not in discover_agents(cwd, home) and "here" in discover_agents(cwd, home)


def test_project_shadows_user_and_cli_beats_both(repo, home, caplog):
    write_agent(home, "h.md", "name: helper\ndescription: User helper.", "USER")
    write_agent(home, "u.md", "name: mine\ndescription: Only mine.")
    write_agent(repo, "h.md", "name: helper\ndescription: Project helper.", "PROJECT")
    write_agent(repo, "t.md", "name: tester\ndescription: Project tester.")
    cli = json.dumps({"tester": {"description": "CLI tester.", "prompt": "CLI", "tools": ["Bash"]}})
    with caplog.at_level(logging.INFO, logger="agent"):
        agents = discover_agents(repo, home, cli)
    assert (agents["helper"].prompt, agents["helper"].source) == ("PROJECT", "project")
    assert agents["mine"].source == "user"
    tester = agents["tester"]
    assert (tester.description, tester.tools, tester.source) == ("CLI tester.", ("Bash",), "cli")
    assert "the project agent in" in caplog.text and "overrides the user agent in" in caplog.text


def test_cli_json_file_relative_to_cwd_beats_files(repo, home):
    write_agent(repo, "e.md", "name: Explore\ndescription: Project explore.")
    (repo / "agents.json").write_text(json.dumps({"Explore": {"description": "CLI explore.", "prompt": "P"}}))
    agents = discover_agents(repo, home, "agents.json")
    assert (agents["Explore"].description, agents["Explore"].source) == ("CLI explore.", "cli")


def test_builtins_can_be_overridden_by_files(repo, home):
    write_agent(home, "gp.md", "name: general-purpose\ndescription: Mine.\ntools: Read")
    agents = discover_agents(repo, home)
    assert (agents["general-purpose"].description, agents["general-purpose"].tools) == ("Mine.", ("Read",))


def test_home_inside_the_repository_is_not_loaded_twice(repo, caplog):
    write_agent(repo, "a.md", "name: once\ndescription: Once.")
    with caplog.at_level(logging.INFO, logger="agent"):
        agents = discover_agents(repo, repo)
    assert agents["once"].source == "project" and "overrides" not in caplog.text


# a broken agent file is one warning; what Claude Code skips silently is named only under --verbose
LOUD, QUIET = True, False


@pytest.mark.parametrize("content, reason, warned", [
    ("---\nname: broken\ndescription: d\ntools:\n  - Read\n - Grep\n---\nBody\n", "invalid YAML frontmatter at line 6, column 2",
     LOUD),
    # YAML a lenient reading could repair (a skill's would be): an agent file is never guessed at
    ("---\nname: b\ndescription: [unclosed\n---\n", "invalid YAML frontmatter at line 4, column 1", LOUD),
    ("---\nname: b\ndescription: Three: with colon\n---\n", "invalid YAML frontmatter at line 3, column 19", LOUD),
    ("---\nname: b\ndescription: \"unterminated\n---\n", "invalid YAML frontmatter", LOUD),
    ("---\nname: b\n\tdescription: tab\n---\n", "invalid YAML frontmatter at line 3", LOUD),
    ("---\n- a list\n---\n", "not a mapping", LOUD),
    ("---\nname: x\ndescription: d\ntools: {Read: yes}\n---\n", "tools must be", LOUD),
    ("---\ndescription: No name.\n---\n", "no name (read as documentation)", QUIET),
    ("---\nname: nameless\n---\n", "no description", QUIET),
    ("---\nname: x\ndescription: ''\n---\n", "no description", QUIET),
    ("Just documentation.\n", "no frontmatter", QUIET),
    ("\n---\nname: late\ndescription: d\n---\n", "no frontmatter", QUIET),
    ("---\nname: plug:in\ndescription: d\n---\n", "contains ':'", QUIET),
    ("---\nname: -dash\ndescription: d\n---\n", "starts with '-'", QUIET),
    (f"---\nname: {'n' * 257}\ndescription: d\n---\n", "longer than 256 characters", QUIET),
])
def test_unusable_file_is_skipped_with_its_reason_and_others_load(repo, home, caplog, content, reason, warned):
    write_agent(repo, "good.md", "name: good\ndescription: Good.")
    broken = repo / ".claude" / "agents" / "broken.md"
    broken.write_text(content)
    with caplog.at_level(logging.INFO, logger="agent"):
        agents = discover_agents(repo, home)
    assert "good" in agents and len(agents) == len(BUILTIN_AGENTS) + 1
    [skipped] = [r.getMessage() for r in caplog.records if r.getMessage().startswith(f"skipping {broken}: ")]
    assert reason in skipped and warnings(caplog) == ([skipped] if warned else [])


def test_tools_fields_as_string_and_list(tmp_path):
    text = ("---\nname: t\ndescription: d\ntools: Read, Bash(git add *) Grep\n"
            "disallowedTools: [Write, 'Bash(rm *)']\nmodel: sonnet\nmaxTurns: 7\nskills: alpha, beta alpha\n---\nP")
    parsed = read_agent(text, tmp_path / "t.md")
    assert parsed.tools == ("Read", "Bash(git add *)", "Grep")
    assert parsed.disallowed_tools == ("Write", "Bash(rm *)")
    assert (parsed.model, parsed.max_turns, parsed.skills, parsed.prompt) == ("sonnet", 7, ("alpha", "beta"), "P")
    text = "---\nname: t\ndescription: d\ntools: [Read, Glob]\nskills: [one, two]\n---\n"
    listed = read_agent(text, tmp_path / "t.md")
    assert (listed.tools, listed.skills, listed.model, listed.max_turns) == (("Read", "Glob"), ("one", "two"), None, None)


@pytest.mark.parametrize("value", ["0", "-3", "many", "2.5", "true", "[1]", "'99999999999'"])
def test_bad_max_turns_warns_and_is_ignored(tmp_path, caplog, value):
    with caplog.at_level(logging.WARNING, logger="agent"):
        parsed = read_agent(f"---\nname: m\ndescription: d\nmaxTurns: {value}\n---\n", tmp_path / "m.md")
    assert parsed.max_turns is None
    [warning] = warnings(caplog)
    assert "maxTurns should be a positive whole number" in warning


def test_unknown_fields_are_listed_at_info(tmp_path, caplog):
    with caplog.at_level(logging.INFO, logger="agent"):
        read_agent("---\nname: u\ndescription: d\ncolor: red\nautoCompactWindow: 5\nsparkle: yes\n---\n", tmp_path / "u.md")
    assert [r.getMessage() for r in caplog.records] == [
        f"agent 'u' ({tmp_path / 'u.md'}): ignoring unknown fields sparkle",
        f"agent 'u' ({tmp_path / 'u.md'}): autoCompactWindow must be auto or a number of tokens from 100,000 to "
        "1,000,000, not '5'; ignoring it"]


# --agents

@pytest.mark.parametrize("value, message", [
    ("{not json", "invalid JSON"),
    ("[1, 2]", "must be a JSON object"),
    ('{"a": "text"}', "must be a JSON object"),
    ('{"a": {"prompt": "p"}}', "has no description"),
    ('{"a": {"description": "d"}}', "has no prompt"),
    ('{"a": {"description": "d", "prompt": 5}}', "has no prompt"),
    ('{"a:b": {"description": "d", "prompt": "p"}}', "contains ':'"),
    ('{"-a": {"description": "d", "prompt": "p"}}', "starts with '-'"),
    ('{"a": {"description": "d", "prompt": "p", "tools": {"x": 1}}}', "tools must be"),
    ("missing.json", "neither a JSON object nor a readable file"),
    ("[" * 100000, "invalid JSON"),
])
def test_cli_agents_errors_are_one_line_usage_errors(tmp_path, value, message):
    with pytest.raises(UsageError) as caught:
        parse_cli_agents(value, tmp_path)
    assert message in str(caught.value) and "\n" not in str(caught.value)
    assert caught.value.exit_code == 2


def test_cli_agents_fields(tmp_path):
    value = json.dumps({"rev": {"description": "R.", "prompt": " Body ", "tools": "Read, Grep",
                                "disallowedTools": ["Bash"], "model": "opus", "maxTurns": 3, "skills": ["s"]}})
    [(name, parsed)] = parse_cli_agents(value, tmp_path).items()
    assert parsed == AgentDefinition("rev", "R.", "Body", ("Read", "Grep"), ("Bash",), "opus", 3, ("s",), "cli")


# Tool filtering

def test_filter_tools_cases():
    assert filter_tools(TOOLS, definition()) == TOOLS
    assert filter_tools(TOOLS, definition(("Grep", "Read"))) == ["Read", "Grep"]
    without_bash = definition(disallowed=("Bash(git push *)", "Write"))
    assert filter_tools(TOOLS, without_bash) == ["Read", "Edit", "Glob", "Grep", "Agent"]
    assert filter_tools(TOOLS, definition(("Read", "Bash"), ("Bash",))) == ["Read"]
    assert filter_tools(TOOLS, definition(("Bash(git *)", "Read(src/**)"))) == ["Bash", "Read"]
    assert filter_tools(TOOLS, definition(("Task",))) == ["Agent"]
    assert filter_tools(TOOLS, definition(disallowed=("Task(Explore)",))) == TOOLS[:-1]
    assert filter_tools(TOOLS, definition(("Read", "Nope"))) == ["Read"]
    assert filter_tools(TOOLS, definition(())) == []


def test_filter_tools_refuses_a_list_that_names_nothing_available():
    with pytest.raises(ValueError) as caught:
        filter_tools(TOOLS, definition(("Grpe", "read"), name="typo"))
    assert str(caught.value) == (
        "Agent 'typo' would be spawned with zero tools: its tools list resolved to nothing "
        "(unrecognized: Grpe, read). Fix the agent's tools field or use a different subagent_type.")


# Robustness

def _random_yaml(rng: random.Random) -> str:
    keys = ["name", "description", "tools", "disallowedTools", "model", "maxTurns", "skills", "color", "? [a]"]
    values = ["x", "-x", "a:b", "''", "[Read, Bash(git *)]", "{a: b}", "Read, Grep", "7", "0", "-1", "2.5", "yes",
              "null", "&a [x]", "*a", "*missing", "!!python/object:os.system", "9" * 5000, "|\n  multi\n  line",
              "[" * 200, "'unclosed", "2020-13-45", "\x00", "\ufeffé", "Task", "[[nested], {}]", ""]
    lines = [f"{rng.choice(keys)}: {rng.choice(values)}" for _ in range(rng.randint(0, 3))]
    # Mostly well-formed name and description, so the field coercions behind them are reached too.
    if rng.random() < 0.8:
        lines = [f"name: {rng.choice(['ok', 'ok', 'x-1', '-x', 'a:b', '[x]'])}", "description: Does it.", *lines]
    if rng.random() < 0.2:
        lines.insert(rng.randint(0, len(lines)), rng.choice(["---", "- item", "%YAML 1.1", "\t", "key"]))
    return "---\n" + "\n".join(lines) + "\n---\nBody"


def _random_cli_value(rng: random.Random) -> str:
    atoms = ["d", "", "a:b", "-a", 5, -1, 0, 2.5, True, None, [], ["Read", "Bash(git *)"], {"x": 1}, "9" * 50]
    fields = ["description", "prompt", "tools", "disallowedTools", "model", "maxTurns", "skills", "color"]
    data = {rng.choice(["a", "b", "-c", "d:e", " ", "Explore"]): rng.choice([
        {rng.choice(fields): rng.choice(atoms) for _ in range(rng.randint(0, 7))},
        {"description": "d", "prompt": "p", rng.choice(fields): rng.choice(atoms)},
        rng.choice(atoms),
    ]) for _ in range(rng.randint(0, 3))}
    text = json.dumps(data if rng.random() < 0.9 else rng.choice(atoms))
    return text[:rng.randint(0, len(text))] if rng.random() < 0.2 else text


def test_random_input_raises_only_our_own_errors(tmp_path):
    rng = random.Random(20240601)
    outcomes = {"loaded": 0, "refused": 0}
    for _ in range(300):
        try:
            parsed = read_agent(_random_yaml(rng), tmp_path / "r.md")
        except FrontmatterError as error:
            assert "\n" not in str(error)
            outcomes["refused"] += 1
        else:
            assert parsed.name and parsed.description
            outcomes["loaded"] += 1
            try:
                filter_tools(TOOLS, parsed)
            except ValueError as error:
                assert str(error).startswith(f"Agent '{parsed.name}' would be spawned with zero tools")
        try:
            agents = parse_cli_agents(_random_cli_value(rng), tmp_path)
        except UsageError as error:
            assert "\n" not in str(error)
            outcomes["refused"] += 1
        else:
            assert all(a.description and a.prompt and a.source == "cli" for a in agents.values())
            outcomes["loaded"] += 1
    assert min(outcomes.values()) > 50  # both paths are really exercised


def test_tools_we_do_not_have_are_one_warning_and_left_out(repo, home, caplog):
    write_agent(repo, "web.md", "name: web\ndescription: Browses.\ntools: Read, MultiEdit, LS")
    write_agent(repo, "mcp.md", "name: mcp\ndescription: Files issues.\ntools:\n  - Grep\n  - mcp__tracker__create_issue")
    write_agent(repo, "fine.md", "name: fine\ndescription: Fine.\ntools: Read, Agent(web), SendMessage")
    with caplog.at_level(logging.INFO, logger="agent"):
        agents = discover_agents(repo, home)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    # MCP tools are looked for among the servers' tools when the agent runs (tests/test_mcp_agents.py)
    assert warnings == ["1 agent definition names tools this agent does not have (LS, MultiEdit); "
                        "they are left out (--verbose lists which agent names which)"]
    assert "agent 'web': leaving out tools this agent does not have: LS, MultiEdit" in caplog.text
    assert "agent 'mcp'" not in caplog.text
    assert filter_tools(["Read", "Grep", "Agent"], agents["web"]) == ["Read"]
    assert agents["fine"].spawnable_types == ("web",)


@pytest.mark.parametrize("tools, types", [
    (None, None), (("Read",), None), (("Agent",), None), (("Task",), None), (("Agent(a, b)",), ("a", "b")),
    (("Agent(a)", "Agent(b, a)"), ("a", "b")), (("Agent()",), ()), (("Agent(a)", "Agent"), None),
])
def test_spawnable_types(tools, types):
    assert AgentDefinition("x", "X.", "Body", tools=tools).spawnable_types == types

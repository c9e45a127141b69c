"""Unit tests of skill discovery, rendering, slash parsing and the catalog (no model, no cassettes)."""

from __future__ import annotations

import logging
import random
import time
from pathlib import Path

import pytest

from agent.skills import render as skill_render
from agent.skills.catalog import CATALOG_HEADER, CATALOG_INSTRUCTION, MAX_ENTRY_CHARS, catalog_section
from agent.skills.render import render, split_arguments, substitute
from agent.skills.discovery import Skill, SkillError, discover_skills, read_skill
from agent.skills.slash import SlashInvocation, parse_slash, refused_user_invocation


def write_skill(root: Path, name: str, frontmatter: str, body: str = "Body.\n") -> Path:
    folder = root / ".claude" / "skills" / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(f"---\n{frontmatter}\n---\n\n{body}")
    return folder


def skill(name: str, description: str = "Does things.", **fields) -> Skill:
    return Skill(name=name, description=description, **fields)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    return path


# Discovery

def test_discovers_project_and_user_skills_sorted_with_project_winning(project, home, caplog):
    write_skill(project, "zephyr", "name: zephyr\ndescription: Deploys the billing service to production.")
    write_skill(project, "atlas", "name: atlas\ndescription: Project atlas.")
    write_skill(home, "atlas", "description: User atlas.")
    write_skill(home, "beacon", "description: User beacon.")
    (project / ".claude" / "skills" / "no-skill-file").mkdir()
    with caplog.at_level(logging.INFO, logger="agent"):
        skills = discover_skills(project, home)
    assert [s.name for s in skills] == ["atlas", "beacon", "zephyr"]
    atlas, beacon, zephyr = skills
    assert (atlas.description, atlas.source) == ("Project atlas.", "project")
    assert (beacon.source, beacon.folder) == ("user", home / ".claude" / "skills" / "beacon")
    assert zephyr.description == "Deploys the billing service to production."
    assert zephyr.declared_name == "zephyr"
    assert "overrides the user skill" in caplog.text


def test_no_skill_folders_means_no_skills(project, home):
    assert discover_skills(project, home) == []


def test_home_equal_to_cwd_loads_each_skill_once(project):
    write_skill(project, "onyx", "description: Once.")
    assert [s.name for s in discover_skills(project, project)] == ["onyx"]


@pytest.mark.parametrize("content, reason", [
    ("---\ndescription: [unclosed\n---\nBody\n", "invalid YAML"),
    ("---\n- a list\n---\nBody\n", "not a mapping"),
    ("---\nname: x\n---\nBody\n", "no description"),
    ("---\ndescription: ''\n---\nBody\n", "no description"),
    ("Just a body, no frontmatter.\n", "no frontmatter"),
    ("---\ndescription: never closed\n", "no frontmatter"),
    ("\n---\ndescription: late fence\n---\n", "no frontmatter"),
    ("---\ndate: 2020-13-45\ndescription: d\n---\n", "invalid YAML"),
])
def test_broken_skill_is_skipped_with_one_warning_and_others_still_load(project, home, caplog,
                                                                       content, reason):
    write_skill(project, "good", "description: Good one.")
    broken = project / ".claude" / "skills" / "broken"
    broken.mkdir()
    (broken / "SKILL.md").write_text(content)
    with caplog.at_level(logging.WARNING, logger="agent"):
        skills = discover_skills(project, home)
    assert [s.name for s in skills] == ["good"]
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert warnings[0].startswith(f"skipping {broken / 'SKILL.md'}: ")
    assert reason in warnings[0]


def test_unknown_keys_are_logged_at_info_and_ignored(project, home, caplog):
    write_skill(project, "lumen", "description: D.\nlicense: MIT\nfancy: 1")
    with caplog.at_level(logging.INFO, logger="agent"):
        [lumen] = discover_skills(project, home)
    assert lumen.description == "D."
    assert "ignoring frontmatter fields fancy, license" in caplog.text


@pytest.mark.parametrize("word, expected", [
    ("true", True), ("True", True), ("yes", True), ("'YES'", True), ("on", True), ("1", True), ("'1'", True),
    ("false", False), ("No", False), ("'off'", False), ("0", False), ("'0'", False),
])
def test_booleans_accept_yaml_and_string_spellings(word, expected, tmp_path):
    text = f"---\ndescription: d\ndisable-model-invocation: {word}\nuser-invocable: {word}\n---\n"
    parsed = read_skill(text, tmp_path / "s")
    assert parsed.model_invocable is not expected
    assert parsed.user_invocable is expected


def test_unrecognised_boolean_keeps_the_default(tmp_path):
    parsed = read_skill("---\ndescription: d\nuser-invocable: maybe\n---\n", tmp_path / "s")
    assert parsed.user_invocable is True


def test_all_fields_are_parsed(tmp_path):
    text = ("---\nname: Display Name\ndescription: Full text.\nwhen_to_use: When asked.\n"
            "argument-hint: '[issue]'\narguments: issue branch\nmodel: some-model\ncontext: fork\n"
            "agent: Explore\nallowed-tools: Bash(git add *), Read Grep\n---\n")
    parsed = read_skill(text, tmp_path / "kestrel", "user")
    assert parsed == Skill(
        name="kestrel", description="Full text.", when_to_use="When asked.", argument_hint="[issue]",
        arguments=("issue", "branch"), model="some-model", fork=True, agent="Explore",
        allowed_tools=("Bash(git add *)", "Read", "Grep"), folder=tmp_path / "kestrel", source="user",
        declared_name="Display Name")


def test_list_fields_and_odd_values(tmp_path):
    text = ("---\ndescription: 123\narguments: [first, second]\nallowed-tools: [Read, 'Bash(ls)']\n"
            "model: inherit\ncontext: inline\nagent: {a: b}\n---\n")
    parsed = read_skill(text, tmp_path / "s")
    assert parsed.description == "123"
    assert parsed.arguments == ("first", "second")
    assert parsed.allowed_tools == ("Read", "Bash(ls)")
    assert (parsed.model, parsed.fork, parsed.agent) == (None, False, None)


def test_body_is_read_on_demand_without_frontmatter_or_blank_lines(project, home):
    folder = write_skill(project, "nimbus", "description: d", "\n\n  Indented first line\n\nLast.\n\n")
    [nimbus] = discover_skills(project, home)
    assert nimbus.body() == "  Indented first line\n\nLast."
    (folder / "SKILL.md").write_text("---\ndescription: d\n---\nChanged.")
    assert nimbus.body() == "Changed."
    (folder / "SKILL.md").unlink()
    with pytest.raises(SkillError):
        nimbus.body()


# Substitution

def test_positional_placeholders_go_by_index_not_arrival_order():
    assert substitute("Respond with exactly: $1 $0", "a b") == "Respond with exactly: b a"


def test_dollar_ten_is_not_dollar_one_followed_by_zero():
    args = " ".join(f"v{i}" for i in range(11))
    assert substitute("$1|$10|$ARGUMENTS[10]|$1x", args) == "v1|v10|v10|$1x"


def test_indexed_all_and_missing_arguments():
    assert substitute("[$ARGUMENTS[2]] [$ARGUMENTS] [$5] [$ARGUMENTS[9]]", "  x y z  ") == "[z] [x y z] [] []"
    assert substitute("t-$ARGUMENTS\n\nKeep it.", "") == "t-\n\nKeep it."


def test_named_arguments_match_exact_names_longest_first():
    body = "$issue/$issue_id/$issues/$branch/$other"
    assert substitute(body, "12 main", ("issue", "branch")) == "12/$issue_id/$issues/main/$other"
    assert substitute("$issue $issue_id", "1 2", ("issue", "issue_id")) == "1 2"
    assert substitute("[$branch]", "1", ("issue", "branch")) == "[]"


def test_skill_dir_placeholder():
    assert substitute("cd ${CLAUDE_SKILL_DIR}/x", "", skill_dir="/s/d") == "cd /s/d/x"


def test_arguments_are_appended_only_when_the_body_has_no_placeholder():
    assert substitute("Do it.", " 42 ") == "Do it.\n\nARGUMENTS: 42"
    assert substitute("Do it.", "   ") == "Do it."
    assert substitute("Do $0.", "42") == "Do 42."
    assert substitute("Do $who.", "42", ("who",)) == "Do 42."
    assert substitute("In ${CLAUDE_SKILL_DIR}.", "42", skill_dir="/d") == "In /d.\n\nARGUMENTS: 42"


def test_substituted_values_are_not_rescanned():
    assert substitute("$0 $1 $0", "$1 $ARGUMENTS") == "$1 $ARGUMENTS $1"


def test_split_arguments_ignores_quotes():
    assert split_arguments(' "a b"  c\td\n') == ['"a', 'b"', "c", "d"]


# Rendering

def test_render_header_is_relative_inside_the_workspace(project, home):
    write_skill(project, "harbor", "description: d", "Run `scripts/checksum.sh`.\n")
    [harbor] = discover_skills(project, home)
    assert render(harbor, "", project) == (
        "Skill: harbor (located at .claude/skills/harbor)\n"
        "Paths in the instructions below are relative to that folder.\n\n"
        "Run `scripts/checksum.sh`.")


def test_render_header_is_absolute_outside_the_workspace(project, home):
    write_skill(home, "quartz", "description: d", "Say $0.\n")
    [quartz] = discover_skills(project, home)
    rendered = render(quartz, "hi", project)
    assert rendered.startswith(f"Skill: quartz (located at {home / '.claude' / 'skills' / 'quartz'})\n")
    assert rendered.endswith("\n\nSay hi.")


def test_render_appends_arguments_unless_told_not_to(project, home):
    write_skill(project, "lumen", "description: d", "No placeholder.\n")
    [lumen] = discover_skills(project, home)
    assert render(lumen, "7", project).endswith("\n\nNo placeholder.\n\nARGUMENTS: 7")
    assert render(lumen, "7", project, append_arguments=False).endswith("\n\nNo placeholder.")


def test_dynamic_context_runs_in_the_skill_folder(project, home):
    folder = write_skill(project, "falcon", "description: d",
                         "Dir: !`pwd`\nData: !`cat data.txt`\nArg: !`echo $0`\nCode: x!`pwd`\n")
    (folder / "data.txt").write_text("kumquat damson\n")
    [falcon] = discover_skills(project, home)
    body = render(falcon, "medlar", project).split("\n\n", 1)[1]
    assert body == f"Dir: {folder}\nData: kumquat damson\nArg: medlar\nCode: x!`pwd`"


def test_argument_text_never_becomes_a_command_and_output_is_not_rescanned(project, home):
    write_skill(project, "onyx", "description: d", "A: $ARGUMENTS\nB: !`printf '%s' '$0'`\n")
    [onyx] = discover_skills(project, home)
    body = render(onyx, "!`touch pwned`", project).split("\n\n", 1)[1]
    assert body == "A: !`touch pwned`\nB: !`touch"
    assert not (onyx.folder / "pwned").exists()


def test_failing_command_is_reported_in_place(project, home):
    write_skill(project, "cinder", "description: d", "Before\n!`echo oops >&2; exit 3`\nAfter\n")
    [cinder] = discover_skills(project, home)
    body = render(cinder, "", project).split("\n\n", 1)[1]
    assert body == "Before\n[command failed (exit 3): echo oops >&2; exit 3]\noops\nAfter"


def test_timed_out_command_is_killed_with_its_group_and_reported(project, home, monkeypatch):
    monkeypatch.setattr(skill_render, "COMMAND_TIMEOUT_S", 0.3)
    write_skill(project, "jasper", "description: d", "!`echo started >&2; sleep 5 & sleep 5`\n")
    [jasper] = discover_skills(project, home)
    started = time.monotonic()
    body = render(jasper, "", project).split("\n\n", 1)[1]
    assert time.monotonic() - started < 3
    assert body == "[command failed (timed out after 0.3 s): echo started >&2; sleep 5 & sleep 5]\nstarted"


# Slash commands

SKILLS = {name: skill(name) for name in ("a", "b", "c", "d", "e", "f", "g", "h")}


@pytest.mark.parametrize("prompt, names, arguments", [
    ("/a", ["a"], ""),
    ("  /a 4127 /b", ["a"], "4127 /b"),
    ("/a /nonexistent 4127", ["a"], "/nonexistent 4127"),
    ("/a /b 4127", ["a", "b"], "4127"),
    ("/a /b\t 12  34 ", ["a", "b"], "12  34"),
    ("/a /b /c /d /e /f /g /h 1", ["a", "b", "c", "d", "e", "f"], "/g /h 1"),
])
def test_parse_slash_expands_the_leading_run(prompt, names, arguments):
    invocation = parse_slash(prompt, SKILLS)
    assert [s.name for s in invocation.skills] == names
    assert invocation.arguments == arguments


@pytest.mark.parametrize("prompt", ["", "a /b", "/nonexistent /a", "/ a", "//a", "please /a"])
def test_parse_slash_needs_a_leading_known_skill(prompt):
    assert parse_slash(prompt, SKILLS) is None


def test_forked_skill_ends_the_run():
    skills = {"a": skill("a"), "f": skill("f", fork=True), "b": skill("b")}
    assert parse_slash("/a /f /b 7", skills) == SlashInvocation((skills["a"], skills["f"]), "/b 7")


def test_user_invocable_false_cannot_start_or_continue_a_run():
    skills = {"a": skill("a"), "hidden": skill("hidden", user_invocable=False)}
    assert parse_slash("/hidden 1", skills) is None
    assert parse_slash("/a /hidden 1", skills) == SlashInvocation((skills["a"],), "/hidden 1")
    assert refused_user_invocation("  /hidden 1", skills) == "hidden"
    assert refused_user_invocation("/a", skills) is None
    assert refused_user_invocation("hidden", skills) is None


# Catalog

def test_catalog_lists_model_invocable_skills_with_full_descriptions():
    skills = [skill("zephyr", "Summarizes recent incidents for the payments team."),
              skill("atlas", "Deploys the billing service to production.", when_to_use="Say deploy."),
              skill("manual", "Only by hand.", model_invocable=False)]
    assert catalog_section(skills) == "\n".join([
        "You have access to the following skills:",
        "",
        "- atlas: Deploys the billing service to production. Say deploy.",
        "- zephyr: Summarizes recent incidents for the payments team.",
        "",
        CATALOG_INSTRUCTION,
    ])
    assert CATALOG_HEADER == "You have access to the following skills:"


def test_catalog_is_empty_without_model_invocable_skills():
    assert catalog_section([]) == ""
    assert catalog_section([skill("manual", model_invocable=False)]) == ""


def test_catalog_cuts_a_long_entry():
    [line] = [l for l in catalog_section([skill("s", "x" * 5000)]).splitlines() if l.startswith("- ")]
    assert line == "- s: " + "x" * (MAX_ENTRY_CHARS - 1) + "…"


def test_catalog_over_budget_drops_descriptions_from_the_end_and_keeps_names():
    skills = [skill(f"s{i}", f"Description number {i}.") for i in range(5)]
    text = catalog_section(skills, budget=80)
    lines = text.splitlines()
    assert lines[2:7] == ["- s0: Description number 0.", "- s1: Description number 1.",
                          "- s2", "- s3", "- s4"]
    assert lines[7] == "(3 skill descriptions omitted to save space; call Skill with a name to load one.)"
    assert sum(len(line) + 1 for line in lines[2:7]) <= 80


# Robustness over random input

FRAGMENTS = ["---", "\n", " ", ":", "description: ", "arguments: ", "context: fork", "user-invocable: ",
             "allowed-tools: ", "- ", "[", "]", "{", "}", "&a ", "*a", "!!binary ", "!!python/object ",
             "|", ">", "'", '"', "#", "%", "@", "`", "!`", "$", "$0", "$10", "$ARGUMENTS", "[1]", "/a",
             "/b", "/", "yes", "0x" + "f" * 4000, "2020-13-45", "? ", "~", "\t", "\ufeff", "é", "\x00"]


def random_text(rng: random.Random) -> str:
    return "".join(rng.choice(FRAGMENTS) for _ in range(rng.randint(0, 30)))


KEYS = ["name", "description", "when_to_use", "argument-hint", "arguments", "disable-model-invocation",
        "user-invocable", "model", "context", "agent", "allowed-tools", "other"]


def random_fields(rng: random.Random) -> str:
    """Frontmatter lines `key: value` with known keys, so that some random files do parse."""
    lines = [f"{rng.choice(KEYS)}: {random_text(rng).replace(chr(10), ' ')}" for _ in range(rng.randint(0, 6))]
    return "\n".join(lines + [f"description: word{random_text(rng)[:3]}"])


def test_random_input_never_raises_unexpected_errors(tmp_path):
    rng = random.Random(20240607)
    skills = {"a": skill("a", fork=True), "b": skill("b"), "h": skill("h", user_invocable=False)}
    parsed_count = 0
    for _ in range(400):
        text = random_text(rng)
        shape = rng.random()
        inner = random_fields(rng) if shape < 0.5 else text
        frontmatter = text if shape > 0.85 else f"---\n{inner}\n---\n{random_text(rng)}"
        try:
            parsed = read_skill(frontmatter, tmp_path / "s")
        except SkillError:
            pass
        else:
            assert parsed.description and isinstance(parsed.description, str)
            parsed_count += 1
        parse_slash(text, skills)
        refused_user_invocation(text, skills)
        named = tuple(rng.sample(["x", "xy", "ARGUMENTS", "a_b"], rng.randint(0, 4)))
        assert isinstance(substitute(text, random_text(rng), named, "/d"), str)
    assert parsed_count > 20  # the seed is fixed; this guards against a generator that never parses

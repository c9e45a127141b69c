"""Unit tests of skill discovery, rendering, slash parsing and the catalog (no model, no cassettes)."""

from __future__ import annotations

import logging
import random
import time
from pathlib import Path

import pytest

from agent.permissions.settings import load_policy
from agent.skills import commands as skill_commands
from agent.skills.arguments import split_arguments, substitute
from agent.skills.catalog import (
    CATALOG_BUDGET_CHARS, CATALOG_HEADER, CATALOG_INSTRUCTION, MAX_ENTRY_CHARS, catalog_section, fit, search, skill_entry,
)
from agent.skills.commands import CommandContext
from agent.skills.render import render
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
    ("---\n\tdescription: tab-indented\n---\nBody\n", "invalid YAML frontmatter at line 2, column 1 (found character that cannot start any token)"),
    ("---\n- a list\n---\nBody\n", "not a mapping"),
    ("---\nname: x\n---\nBody\n", "no description"),
    ("---\ndescription: ''\n---\nBody\n", "no description"),
    ("Just a body, no frontmatter.\n", "no frontmatter"),
    ("---\ndescription: never closed\n", "no frontmatter"),
    ("\n---\ndescription: late fence\n---\n", "no frontmatter"),
    ("---\ndescription: d\nlist:\n  - a\n - b\n---\n", "invalid YAML frontmatter at line 5, column 2 (did not find expected key)"),
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


def test_unknown_keys_are_one_verbose_line_and_metadata_is_silent(project, home, caplog):
    write_skill(project, "lumen", "description: D.\nlicense: MIT\nversion: 2\nmetadata:\n  owner: ops\nfancy: 1\neffort: high")
    with caplog.at_level(logging.INFO, logger="agent"):
        [lumen] = discover_skills(project, home)
    assert lumen.description == "D."
    assert [r.getMessage() for r in caplog.records] == [
        "skill 'lumen': ignoring effort (Claude Code fields this agent does not implement)",
        "skill 'lumen': ignoring unknown fields fancy"]


@pytest.mark.parametrize("frontmatter, description, line", [
    ("name: gdpr\ndescription: Reviews data handling. Triggers on: 'GDPR', 'CCPA'\nmodel: inherit", "Reviews data handling. Triggers on: 'GDPR', 'CCPA'", 3),
    ("description: Use when: the user asks #now\ndate: 2020-13-45", "Use when: the user asks #now", 2),
    ("description: Quotes \"inside\" and: a colon", 'Quotes "inside" and: a colon', 2),
    ("description: d\nargument-hint: [pr-number] [priority]", "d", 3),
])
def test_one_line_values_yaml_rejects_are_read_as_text_with_a_warning(project, home, caplog, frontmatter, description, line):
    write_skill(project, "gdpr", frontmatter)
    with caplog.at_level(logging.WARNING, logger="agent"):
        [gdpr] = discover_skills(project, home)
    assert gdpr.description == description
    [warning] = [r.getMessage() for r in caplog.records]
    path = project / ".claude" / "skills" / "gdpr" / "SKILL.md"
    assert warning.startswith(f"{path}: invalid YAML at line {line}, column ")
    assert warning.endswith("read with its one-line values taken as plain text")


def test_multi_line_descriptions_folded_and_literal(project, home):
    write_skill(project, "folded", "description: >\n  Builds release notes\n  from merged pull requests.\nname: folded")
    write_skill(project, "literal", "description: |\n  First line.\n  Second line.\n")
    write_skill(project, "plain", "description: Starts here\n  and continues: with a colon\n")
    skills = {s.name: s for s in discover_skills(project, home)}
    assert skills["folded"].description == "Builds release notes from merged pull requests."
    assert skills["literal"].description == "First line.\nSecond line."
    assert "plain" not in skills  # a continued plain value holding ': ' is invalid YAML we cannot safely repair


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
    assert (parsed.model, parsed.fork, parsed.agent) == ("inherit", False, None)  # kept: FORCE leaves a forked skill's inherit on the main model


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
    # explicit forms become empty when missing; a bare $N with no N-th argument stays as written
    assert substitute("[$ARGUMENTS[2]] [$ARGUMENTS] [$5] [$ARGUMENTS[9]]", "  x y z  ") == "[z] [x y z] [$5] []"
    assert substitute("t-$ARGUMENTS\n\nKeep it.", "") == "t-\n\nKeep it."


PRICE_TABLE = "| Plan | Price |\n| Basic | $5.00 |\n| Team | $25.00 |"


@pytest.mark.parametrize("body, args, expected", [
    (PRICE_TABLE, "", PRICE_TABLE),
    (PRICE_TABLE, "monthly", PRICE_TABLE + "\n\nARGUMENTS: monthly"),
    ("awk '{print $1, $5}' data.tsv", "", "awk '{print $1, $5}' data.tsv"),
    ("awk '{print $1, $5}' on $ARGUMENTS", "q3.tsv", "awk '{print $1, $5}' on q3.tsv"),
    ("Total in $B$6, rate in $C$2.", "", "Total in $B$6, rate in $C$2."),
    ("Total in $B$6 for $0.", "march", "Total in $B$6 for march."),
    ("Costs $10 to $20 per seat, for $1.", "a b", "Costs $10 to $20 per seat, for b."),
])
def test_dollars_the_author_did_not_mean_as_placeholders_survive(body, args, expected):
    assert substitute(body, args) == expected


def test_backslash_escapes_a_placeholder_and_nothing_else():
    assert substitute(r"Literal \$1 and \$ARGUMENTS, real $0.", "a b") == "Literal $1 and $ARGUMENTS, real a."
    assert substitute(r"echo \$HOME \$PATH", "") == r"echo \$HOME \$PATH"
    assert substitute(r"cd \${CLAUDE_SKILL_DIR}", "", skill_dir="/d") == "cd ${CLAUDE_SKILL_DIR}"


def test_quoted_arguments_are_one_word_each():
    assert substitute("[$0] [$1]", '"hello world" second') == "[hello world] [second]"
    assert substitute("[$ARGUMENTS]", '"hello world" second') == '["hello world" second]'
    assert substitute("[$0] [$1]", "it's fine") == "[it's] [fine]"  # unbalanced quote: whitespace split


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


def test_split_arguments_is_shell_style_with_a_whitespace_fallback():
    assert split_arguments(' "a b"  c\td\n') == ["a b", "c", "d"]
    assert split_arguments("'x y' z\\ w") == ["x y", "z w"]
    assert split_arguments('unbalanced "quote here') == ["unbalanced", '"quote', "here"]


# Rendering

def test_render_header_is_relative_inside_the_workspace(project, home):
    write_skill(project, "harbor", "description: d", "Run `scripts/checksum.sh`.\n")
    [harbor] = discover_skills(project, home)
    assert render(harbor, "", CommandContext(project)) == (
        "Skill: harbor (located at .claude/skills/harbor)\n"
        "Paths in the instructions below are relative to that folder.\n\n"
        "Run `scripts/checksum.sh`.")


def test_render_header_is_absolute_outside_the_workspace(project, home):
    write_skill(home, "quartz", "description: d", "Say $0.\n")
    [quartz] = discover_skills(project, home)
    rendered = render(quartz, "hi", CommandContext(project))
    assert rendered.startswith(f"Skill: quartz (located at {home / '.claude' / 'skills' / 'quartz'})\n")
    assert rendered.endswith("\n\nSay hi.")


def test_render_appends_arguments_unless_told_not_to(project, home):
    write_skill(project, "lumen", "description: d", "No placeholder.\n")
    [lumen] = discover_skills(project, home)
    assert render(lumen, "7", CommandContext(project)).endswith("\n\nNo placeholder.\n\nARGUMENTS: 7")
    assert render(lumen, "7", CommandContext(project), append_arguments=False).endswith("\n\nNo placeholder.")


def test_dynamic_context_runs_in_the_workspace(project, home):
    folder = write_skill(project, "falcon", "description: d",
                         "Dir: !`pwd`\nData: !`cat ${CLAUDE_SKILL_DIR}/data.txt`\nArg: !`echo $0`\nCode: x!`pwd`\n")
    (folder / "data.txt").write_text("kumquat damson\n")
    [falcon] = discover_skills(project, home)
    body = render(falcon, "medlar", CommandContext(project)).split("\n\n", 1)[1]
    assert body == f"Dir: {project}\nData: kumquat damson\nArg: medlar\nCode: x!`pwd`"


def test_fenced_block_runs_as_one_script(project, home):
    write_skill(project, "atlas", "description: d", "Before\n```!\necho one\necho two `echo x`\n```\nAfter !`echo three`\n")
    [atlas] = discover_skills(project, home)
    body = render(atlas, "", CommandContext(project)).split("\n\n", 1)[1]
    assert body == "Before\none\ntwo x\nAfter three"


def test_argument_text_never_becomes_a_command_and_output_is_not_rescanned(project, home):
    write_skill(project, "onyx", "description: d", "A: $ARGUMENTS\nB: !`printf '%s' $0`\n")
    [onyx] = discover_skills(project, home)
    body = render(onyx, "'!`touch pwned`'", CommandContext(project)).split("\n\n", 1)[1]
    assert body == "A: '!`touch pwned`'\nB: !`touch pwned`"
    assert not (project / "pwned").exists() and not (onyx.folder / "pwned").exists()


@pytest.mark.parametrize("args", ["x; touch INJECTED", "$(touch INJECTED)", "`touch INJECTED`", "a && touch INJECTED",
                                  "'; touch INJECTED; '", "x | tee INJECTED", "x > INJECTED"])
def test_arguments_are_shell_quoted_inside_commands(project, home, args):
    write_skill(project, "kestrel", "description: d", "Listing: !`ls -d $ARGUMENTS . 2>/dev/null; true`\nFirst: !`echo $0`\n"
                "Double: !`echo \"$0 and $ARGUMENTS\"`\nSingle: !`echo '$0'`\n")
    [kestrel] = discover_skills(project, home)
    render(kestrel, args, CommandContext(project))
    assert not (project / "INJECTED").exists()


def test_a_command_the_policy_does_not_approve_is_not_run_and_is_recorded(project, home):
    write_skill(project, "beacon", "description: d", "Status: !`touch made && echo done`\nRest.\n")
    [beacon] = discover_skills(project, home)
    denials = []
    context = CommandContext(project, load_policy(project, home), lambda *entry: denials.append(entry))
    body = render(beacon, "", context).split("\n\n", 1)[1]
    assert body == ("Status: [command not run: touch made && echo done needs permission: add Bash(touch:*) "
                    "to allowed-tools or an allow rule]\nRest.")
    assert not (project / "made").exists()
    assert denials == [("Bash", None, {"command": "touch made && echo done"})]


def test_allowed_tools_approve_a_command_and_a_deny_rule_still_wins(project, home):
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text('{"permissions": {"deny": ["Bash(rm:*)"]}}')
    write_skill(project, "nimbus", "description: d\nallowed-tools: Bash(echo:*) Bash(rm:*)",
                "A: !`echo approved`\nB: !`rm -f anything`\n")
    [nimbus] = discover_skills(project, home)
    body = render(nimbus, "", CommandContext(project, load_policy(project, home))).split("\n\n", 1)[1]
    assert body.startswith("A: approved\nB: [command not run: Bash command 'rm -f anything' is denied by the permission rule 'Bash(rm:*)'")


@pytest.mark.parametrize("args", ["$(echo injected)", "x;echo injected", "it's \"q\" `echo injected`", "a\\ b"])
def test_an_argument_reads_back_exactly_whatever_the_quoting_around_it(project, home, args):
    write_skill(project, "wren", "description: d",
                "A: !`printf '[%s]' $0`\nB: !`printf '[%s]' \"$0\"`\nC: !`printf '[%s]' '$0'`\n"
                "D: !`printf '[%s]' \"${CLAUDE_SKILL_DIR}\"`\nE: !`echo \\$1`\n")
    [wren] = discover_skills(project, home)
    first = split_arguments(args)[0]
    lines = render(wren, args, CommandContext(project)).split("\n\n", 1)[1].splitlines()
    assert lines == [f"A: [{first}]", f"B: [{first}]", f"C: [{first}]", f"D: [{wren.folder}]", "E: $1"]


@pytest.mark.parametrize("command", ["echo ok; touch made", "echo ok && touch made", "false || touch made",
                                     "echo ok | tee made", "echo $(touch made)", "echo `touch made`"])
def test_compound_commands_are_checked_part_by_part(project, home, command):
    write_skill(project, "atlas", "description: d\nallowed-tools: Bash(echo:*) Bash(false) Bash(true)",
                f"Out:\n```!\n{command}\n```\n")
    [atlas] = discover_skills(project, home)
    body = render(atlas, "", CommandContext(project, load_policy(project, home))).split("\n\n", 1)[1]
    assert body.startswith("Out:\n[command not run: ")
    assert not (project / "made").exists()


def test_allowed_tools_may_name_the_skill_folder(project, home):
    folder = write_skill(project, "quartz", "description: d\nallowed-tools: Bash(${CLAUDE_SKILL_DIR}/run.sh)",
                         "Out: !`${CLAUDE_SKILL_DIR}/run.sh`\n")
    (folder / "run.sh").write_text("#!/bin/sh\necho from-script\n")
    (folder / "run.sh").chmod(0o755)
    [quartz] = discover_skills(project, home)
    body = render(quartz, "", CommandContext(project, load_policy(project, home))).split("\n\n", 1)[1]
    assert body == "Out: from-script"


def test_failing_command_is_reported_in_place(project, home):
    write_skill(project, "cinder", "description: d", "Before\n!`echo oops >&2; exit 3`\nAfter\n")
    [cinder] = discover_skills(project, home)
    body = render(cinder, "", CommandContext(project)).split("\n\n", 1)[1]
    assert body == "Before\n[command failed (exit 3): echo oops >&2; exit 3]\noops\nAfter"


def test_timed_out_command_is_killed_with_its_group_and_reported(project, home, monkeypatch):
    monkeypatch.setattr(skill_commands, "COMMAND_TIMEOUT_S", 0.3)
    write_skill(project, "jasper", "description: d", "!`echo started >&2; sleep 5 & sleep 5`\n")
    [jasper] = discover_skills(project, home)
    started = time.monotonic()
    body = render(jasper, "", CommandContext(project)).split("\n\n", 1)[1]
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


def test_a_forked_skill_is_never_expanded_together_with_another():
    skills = {"a": skill("a"), "f": skill("f", fork=True), "b": skill("b")}
    assert parse_slash("/f /a /b 7", skills) == SlashInvocation((skills["f"],), "/a /b 7")  # first: it ends the run
    assert parse_slash("/a /f /b 7", skills) == SlashInvocation((skills["a"],), "/f /b 7")  # later: arguments start
    assert parse_slash("/a /b /f 7", skills) == SlashInvocation((skills["a"], skills["b"]), "/f 7")


def test_user_invocable_false_cannot_start_or_continue_a_run():
    skills = {"a": skill("a"), "hidden": skill("hidden", user_invocable=False)}
    assert parse_slash("/hidden 1", skills) is None
    assert parse_slash("/a /hidden 1", skills) == SlashInvocation((skills["a"],), "/hidden 1")
    assert refused_user_invocation("  /hidden 1", skills) == "hidden"
    assert refused_user_invocation("/a", skills) is None
    assert refused_user_invocation("hidden", skills) is None


# Catalog

def section(skills, budget=CATALOG_BUDGET_CHARS):
    lines, shortened = fit([skill_entry(s) for s in skills if s.model_invocable], budget)
    return catalog_section(lines, shortened)


def test_catalog_lists_model_invocable_skills_with_full_descriptions():
    skills = [skill("atlas", "Deploys the billing service to production.", when_to_use="Say deploy."),
              skill("manual", "Only by hand.", model_invocable=False),
              skill("zephyr", "Summarizes recent incidents for the payments team.")]
    assert section(skills) == "\n".join([
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
    assert section([skill("manual", model_invocable=False)]) == ""


def test_catalog_cuts_a_long_entry_and_flattens_multi_line_descriptions():
    assert skill_entry(skill("s", "x" * 5000)).description == "x" * (MAX_ENTRY_CHARS - 1) + "…"
    assert skill_entry(skill("f", "Folded\n  over lines.\n\nAnd a paragraph.")).description == "Folded over lines. And a paragraph."


def test_over_budget_every_description_is_shortened_fairly_whole_sentences_first():
    skills = [skill(f"s{i}", f"Handles task {i}. It also does a great many other things that take room.") for i in range(5)]
    lines = section(skills, budget=120).splitlines()
    assert lines[2:7] == [f"- s{i}: Handles task {i}." for i in range(5)]
    assert lines[7].startswith("(Descriptions here are shortened to fit. To read them in full, call Skill with `search`")


def test_a_first_sentence_too_long_is_cut_at_a_word_and_a_tiny_budget_keeps_names():
    skills = [skill(f"s{i}", "Reads every configuration file in the repository and reports drift") for i in range(3)]
    lines = section(skills, budget=110).splitlines()[2:5]
    assert all(line.endswith("…") and len(line) <= 36 for line in lines), lines
    assert section(skills, budget=10).splitlines()[2:5] == ["- s0", "- s1", "- s2"]


def test_search_finds_full_descriptions_by_every_word():
    entries = [skill_entry(skill("csv-audit", "Audits CSV exports. Flags rows with bad dates.")),
               skill_entry(skill("deploy", "Deploys the CSV service."))]
    assert search(entries, "csv dates", "skills") == "1 skills match 'csv dates':\n- csv-audit: Audits CSV exports. Flags rows with bad dates."
    assert search(entries, "csv", "skills").splitlines()[1:] == [  # a hit in the name ranks first
        "- csv-audit: Audits CSV exports. Flags rows with bad dates.", "- deploy: Deploys the CSV service."]


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

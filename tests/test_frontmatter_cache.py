"""The frontmatter cache: a second start reads no YAML, a changed file is read again, and a broken
or unwritable cache never stops a run."""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path

import pytest

from agent.skills.cache import FrontmatterCache, cache_path, read_head
from agent.skills.discovery import discover_skills
from agent.subagents.discovery import discover_agents


def old_file(path: Path, text: str) -> Path:
    """A file last modified an hour ago (fresher files are not cached: see RACY_SECONDS)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    then = time.time() - 3600
    os.utime(path, (then, then))
    return path


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "project"
    old_file(root / ".claude/skills/notes/SKILL.md", "---\ndescription: Takes notes.\n---\nBody\n")
    old_file(root / ".claude/agents/helper.md", "---\nname: helper\ndescription: Helps.\n---\nHELPER BODY\n")
    return root


def discover(project, home, cache_file):
    cache = FrontmatterCache(cache_file)
    skills = discover_skills(project, home, cache)
    agents = discover_agents(project, home, None, cache)
    cache.report()
    cache.save()
    return skills, agents


def test_the_cache_is_used_until_the_file_changes(project, home, tmp_path):
    cache_file = tmp_path / "cache" / "frontmatter.json"
    [notes], _ = discover(project, home, cache_file)
    assert notes.description == "Takes notes."
    # Prove the second start reads the cache, not the file: doctor the cached description.
    data = json.loads(cache_file.read_text())
    key = os.path.abspath(project / ".claude/skills/notes/SKILL.md")
    data["entries"][key]["fields"]["description"] = "From the cache."
    cache_file.write_text(json.dumps(data))
    [notes], agents = discover(project, home, cache_file)
    assert notes.description == "From the cache."
    assert agents["helper"].prompt == "HELPER BODY"  # the body is read from the file when used
    old_file(project / ".claude/skills/notes/SKILL.md", "---\ndescription: Takes better notes.\n---\nBody\n")
    [notes], _ = discover(project, home, cache_file)
    assert notes.description == "Takes better notes."


def test_a_cached_warning_and_a_cached_error_are_reported_again(project, home, tmp_path, caplog):
    old_file(project / ".claude/skills/loose/SKILL.md", "---\ndescription: Handles this: and that\n---\n")
    old_file(project / ".claude/skills/broken/SKILL.md", "---\n\tdescription: tab\n---\n")
    cache_file = tmp_path / "frontmatter.json"
    for _ in range(2):
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="agent"):
            skills, _ = discover(project, home, cache_file)
        assert [s.name for s in skills] == ["loose", "notes"]
        messages = [r.getMessage() for r in caplog.records]
        assert any("loose/SKILL.md: invalid YAML at line 2" in m for m in messages)
        assert any(m.startswith(f"skipping {project / '.claude/skills/broken/SKILL.md'}: invalid YAML") for m in messages)


@pytest.mark.parametrize("content", ["not json", "[]", '{"version": 3, "entries": {"x": 1}}', '{"version": 2, "entries": {}}'])
def test_a_broken_cache_is_ignored(project, home, tmp_path, content):
    cache_file = tmp_path / "frontmatter.json"
    cache_file.write_text(content)
    [notes], _ = discover(project, home, cache_file)
    assert notes.description == "Takes notes."
    assert json.loads(cache_file.read_text())["version"] == 3  # rewritten whole


def test_an_unwritable_cache_folder_is_not_an_error(project, home, tmp_path):
    blocker = tmp_path / "file-not-folder"
    blocker.write_text("")
    [notes], _ = discover(project, home, blocker / "frontmatter.json")
    assert notes.description == "Takes notes."


def test_fresh_files_are_not_cached(tmp_path, home):
    project = tmp_path / "p"
    (project / ".claude/skills/new").mkdir(parents=True)
    (project / ".claude/skills/new/SKILL.md").write_text("---\ndescription: Just written.\n---\n")
    cache_file = tmp_path / "frontmatter.json"
    discover(project, home, cache_file)
    assert not cache_file.exists()


def test_only_the_frontmatter_is_read_at_start(tmp_path):
    path = tmp_path / "SKILL.md"
    path.write_text("---\ndescription: d\n---\n" + "body line\n" * 100_000)
    assert len(read_head(path)) <= 8192
    unclosed = tmp_path / "UNCLOSED.md"
    unclosed.write_text("---\ndescription: d\n" + "x: y\n" * 5000)
    assert len(read_head(unclosed)) == unclosed.stat().st_size


def test_the_cache_lives_under_xdg_cache_home_or_home(tmp_path):
    assert cache_path(tmp_path, {}) == tmp_path / ".cache" / "agent" / "frontmatter.json"
    assert cache_path(tmp_path, {"XDG_CACHE_HOME": "/var/c"}) == Path("/var/c/agent/frontmatter.json")
    assert cache_path(tmp_path, {"XDG_CACHE_HOME": "relative"}) == tmp_path / ".cache" / "agent" / "frontmatter.json"


def test_an_alias_bomb_is_refused_with_one_warning(tmp_path, home, warnings):
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n" \
           "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
    project = tmp_path / "p"
    old_file(project / ".claude/skills/bomb/SKILL.md", f"---\ndescription: Big.\n{bomb}---\n")
    old_file(project / ".claude/skills/small/SKILL.md", "---\ndescription: Small.\nx: &x [1, 2]\ny: *x\n---\n")
    cache_file = tmp_path / "frontmatter.json"
    skills, _ = discover(project, home, cache_file)
    assert [skill.name for skill in skills] == ["small"]  # a few aliases are fine
    assert warnings == [f"skipping {project}/.claude/skills/bomb/SKILL.md: the frontmatter has aliases that "
                        "expand to more than 10,000 nodes"]


def test_many_lenient_files_are_one_warning_and_each_a_verbose_line(tmp_path, home, caplog):
    project = tmp_path / "p"
    for name in ("one", "two", "three"):
        old_file(project / f".claude/skills/{name}/SKILL.md", f"---\ndescription: Handles {name}: fast\n---\n")
    with caplog.at_level(logging.INFO, logger="agent"):
        skills, _ = discover(project, home, tmp_path / "frontmatter.json")
    assert len(skills) == 3
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    infos = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO and "read with its one-line" in r.getMessage()]
    assert len(infos) == 3 and len(warnings) == 1
    assert warnings[0].startswith("3 definition files have YAML that was read leniently, the first: ")
    assert warnings[0].endswith("(--verbose lists them all)")

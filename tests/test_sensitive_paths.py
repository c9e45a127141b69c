"""Writes judged where they land: sensitive paths always ask (only bypassPermissions or an allow
rule naming the path approves), and a symlink never carries a write out of the allowed folders.
The Policy is the real one, on real files and links in a temporary workspace."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent.permissions.policy import Policy
from agent.permissions.sensitive import names_entry

from test_approvals import Person, run, session_for


def policy(cwd: Path, home: Path, mode: str = "acceptEdits", allow=(), directories=()) -> Policy:
    return Policy(mode=mode, allow=tuple(allow), deny=(), ask=(), cwd=cwd, home=home, directories=tuple(directories))


def write(p: Policy, path: str, tool: str = "Write"):
    return p.check(tool, {"file_path": path, "content": "x"}, read_only=False)


@pytest.mark.parametrize("path, sensitive", [
    (".git/config", True),
    (".git/hooks/pre-commit", True),
    (".git", True),  # a worktree's or submodule's `.git` file
    ("vendor/lib/.git/config", True),  # a nested repository
    (".claude/settings.json", True),
    (".claude/settings.local.json", True),
    (".claude/skills/x/SKILL.md", True),
    (".claude/agents/reviewer.md", True),
    ("packages/api/.claude/commands/deploy.md", True),
    (".mcp.json", True),
    ("tools/.mcp.json", True),
    (".vscode/tasks.json", True),
    (".idea/workspace.xml", True),
    ("~/.bashrc", True),
    ("~/.bash_profile", True),
    ("~/.profile", True),
    ("~/.zshrc", True),
    ("~/.zprofile", True),
    ("~/.gitconfig", True),
    ("~/.config/fish/config.fish", True),
    ("~/.ssh/authorized_keys", True),
    ("~/.claude/settings.json", True),
    ("~/.claude/skills/x/SKILL.md", True),
    # look-alikes that are ordinary files
    ("src/app.py", False),
    (".gitignore", False),
    (".github/workflows/ci.yml", False),
    ("docs/.bashrc", False),  # a start-up file only in the home folder itself
    ("git/config", False),
    ("claude/settings.json", False),
    ("mcp.json", False),
    ("~/.config/nvim/init.lua", False),
    ("~/notes.txt", False),
])
def test_the_table_of_sensitive_paths(cwd, home, path, sensitive):
    for mode in ("acceptEdits", "default"):
        for allow in ([], ["Edit"], ["Edit(*)"], ["Edit(**)"], ["Edit(//**)"], ["Edit(~/**)"]):
            decision = write(policy(cwd, home, mode, allow), path)
            assert (decision.kind == "sensitive") is sensitive, (path, mode, allow, decision.reason)
    assert write(policy(cwd, home, "bypassPermissions"), path).allowed


def test_the_refusal_says_sensitive_and_how_to_allow_it(cwd, home):
    decision = write(policy(cwd, home), ".claude/settings.local.json")
    assert not decision.allowed and decision.kind == "sensitive"
    assert decision.reason == (
        "Write of '.claude/settings.local.json' is refused: it is a sensitive file (in '.claude', where a change "
        "can run commands or grant permissions), which always needs approval, and none can be given in -p mode; "
        "the user can allow it only with an allow rule naming that path (such as --allowedTools "
        "'Edit(./.claude/settings.local.json)') or --permission-mode bypassPermissions.")
    assert "--allowedTools 'Edit(~/.bashrc)'" in write(policy(cwd, home), "~/.bashrc").reason


@pytest.mark.parametrize("rule, path, allowed", [
    ("Edit(./.claude/settings.json)", ".claude/settings.json", True),
    ("Edit(./.claude/settings.json)", ".claude/settings.local.json", False),  # names .claude, matches not
    ("Edit(.git/**)", ".git/config", True),
    ("Edit(.git/**)", ".git/hooks/pre-commit", True),
    ("Edit(**/.git/**)", "vendor/lib/.git/config", True),
    ("Edit(.claude/skills/**)", ".claude/skills/x/SKILL.md", True),
    ("Edit(~/.bashrc)", "~/.bashrc", True),
    ("Edit(~/.config/fish/**)", "~/.config/fish/config.fish", True),
    ("Edit(~/.config/**)", "~/.config/fish/config.fish", False),  # does not name fish
    ("Edit(.mcp.json)", ".mcp.json", True),
    ("Edit(*.json)", ".mcp.json", False),
    ("Edit(.*/**)", ".git/config", False),
    ("Edit(src/**)", ".git/config", False),
    ("Edit(**)", ".vscode/tasks.json", False),
    ("Edit", ".idea/workspace.xml", False),
    ("Read(.git/**)", ".git/config", False),  # a Read rule approves no write
])
def test_only_an_allow_rule_naming_the_path_approves_it(cwd, home, rule, path, allowed):
    for mode in ("default", "acceptEdits"):
        decision = write(policy(cwd, home, mode, [rule]), path)
        assert decision.allowed is allowed, (rule, path, mode, decision.reason)
        assert allowed or decision.kind == "sensitive"


@pytest.mark.parametrize("spec, entry, named", [
    (".git/**", ".git", True), ("./.git", ".git", True), ("**/.git/hooks/*", ".git", True),
    ("~/.config/fish/*", ".config/fish", True), ("~/.config/**", ".config/fish", False),
    ("fish/**", ".config/fish", False), (".gitx/**", ".git", False), ("*", ".git", False),
])
def test_what_names_an_entry(spec, entry, named):
    assert names_entry(spec, entry) is named


def test_a_symlink_to_a_sensitive_file_is_sensitive(cwd, home):
    (cwd / ".git").mkdir()
    (cwd / ".git" / "config").write_text("[core]\n")
    os.symlink(".git/config", cwd / "notes")
    os.symlink(home, cwd / "homelink")
    for path in ("notes", "homelink/.bashrc"):
        decision = write(policy(cwd, home, allow=["Edit(./notes)", "Edit(homelink/**)"]), path)
        assert decision.kind == "sensitive", path
    assert write(policy(cwd, home, "bypassPermissions"), "notes").allowed


def test_a_write_is_judged_at_its_real_target(cwd, home, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "file.txt").write_text("theirs")
    (cwd / "src").mkdir()
    os.symlink(outside / "file.txt", cwd / "link")
    os.symlink(outside, cwd / "dirlink")
    os.symlink(outside, cwd / "src" / "deep")
    accept = policy(cwd, home)
    for path in ("link", "dirlink/new.txt", "dirlink/sub/new.txt", "src/deep/file.txt", "link/../link"):
        decision = write(accept, path)
        assert not decision.allowed and decision.kind == "approval", path
        assert "(its real path, through a symlink, is outside the workspace)" in decision.reason
        assert decision.suggestion == ""  # no narrow rule covers both the path and its real target
    for path in ("link", "dirlink/new.txt"):  # an allow rule must cover the real path too
        assert not write(policy(cwd, home, "default", ["Edit(./link)", "Edit(dirlink/**)"]), path).allowed
    assert write(accept, "src/new.txt").allowed
    assert write(policy(cwd, home, directories=[outside]), "dirlink/new.txt").allowed  # an added folder


def test_a_symlink_inside_the_workspace_stays_an_inside_write(cwd, home):
    (cwd / "real").mkdir()
    os.symlink("real", cwd / "alias")
    assert write(policy(cwd, home), "alias/file.txt").allowed


def test_redirection_targets_are_judged_like_writes(cwd, home, tmp_path):
    """What the Bash analysis asks of the policy for each `> target` of an allowed command."""
    os.symlink(tmp_path / "outside.txt", cwd / "link")
    os.symlink("/tmp", cwd / "dirlink")
    os.symlink(".git/config", cwd / "notes")
    p = policy(cwd, home, "default")
    assert [p._harmless_write(word) for word in ("out.txt", "sub dir/out.txt", "/dev/null")] == [True, True, True]
    for word in ("link", "dirlink/x", ".git/config", "notes", ".claude/settings.local.json", "../x", "~/.bashrc"):
        assert not p._harmless_write(word), word
    assert [p.sensitive_write(word) for word in (".git/config", "notes", ".claude/x", "out.txt", "~/.bashrc")] == [
        ".git", ".git", ".claude", None, ".bashrc"]
    assert p.write_problem(None) == ("uncertain", "which is decided at run time")  # `> $X`
    assert p.write_problem(None, sensitive_only=True) is None
    named = policy(cwd, home, "default", ["Edit(.git/**)"])
    assert named._harmless_write(".git/config") and named.sensitive_write(".git/config") is None


def test_interactively_a_sensitive_write_is_asked_each_time(tmp_path, warnings):
    person = Person("always", "once", "no")
    session, (main, helper) = session_for(tmp_path, person)
    for agent, content in ((main, "a"), (helper, "b"), (main, "c")):
        run(agent, "Write", file_path=".claude/settings.local.json", content=content)
    assert person.asked == [".claude/settings.local.json"] * 3 and session.approved == ()
    assert (tmp_path / ".claude" / "settings.local.json").read_text() == "b"
    assert any("changes a sensitive file, so it is asked about every time" in line for line in warnings)

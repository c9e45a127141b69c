"""Rules read the way Claude Code reads them (issue 11): for each point a rule, a call it must match
and a call it must not, as a deny rule (in bypass mode, where only deny rules refuse) and as an allow
rule (in default mode, where only allow rules approve); the settings keys; a warning for each rule
Claude Code would skip; and a property: a denied command stays denied behind a prefix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agent.permissions.policy import Decision, Policy
from agent.permissions.settings import load_policy


def decide(p: Policy, call: tuple[str, str]) -> Decision:
    """One call written as (tool, its main argument)."""
    tool, value = call
    key = {"Bash": "command", "Agent": "subagent_type", "Glob": "path", "Grep": "path"}.get(tool, "file_path")
    return p.check(tool, {key: value, "pattern": "x", "prompt": "p"}, read_only=tool in ("Read", "Glob", "Grep"))


DENY = [  # point, rule, a call it must deny, a call it must let through
    ("1 env prefix", "Bash(rm -rf *)", ("Bash", "DEBUG=1 rm -rf build"), ("Bash", "DEBUG=1 rm -r build")),
    ("1 wrapper", "Bash(rm -rf *)", ("Bash", "timeout 10 rm -rf build"), ("Bash", "timeout 10 ls build")),
    ("1 wrapper chain", "Bash(rm:*)", ("Bash", "nohup nice -n 5 sudo -u me rm x"), ("Bash", "nohup nice -n 5 ls")),
    ("1 xargs", "Bash(rm:*)", ("Bash", "find . -name '*.o' | xargs -0 rm"), ("Bash", "find . | xargs ls")),
    ("1 sh -c", "Bash(rm -rf *)", ("Bash", "bash -c 'cd b && rm -rf x'"), ("Bash", "bash -c 'ls x'")),
    ("1 find -exec", "Bash(rm:*)", ("Bash", "find . -exec rm {} \\;"), ("Bash", "find . -exec ls {} \\;")),
    ("1 folder", "Bash(rm -rf *)", ("Bash", "/bin/rm -rf x"), ("Bash", "/bin/ls -rf x")),
    ("2 ./ at depth", "Read(./.env)", ("Read", "packages/api/.env"), ("Read", "packages/api/.env.example")),
    ("2 name/**", "Read(./secrets/**)", ("Read", "lib/secrets/key"), ("Read", "lib/secrets.txt")),
    ("2 Grep", "Read(./.env)", ("Grep", "api/.env"), ("Grep", "api")),
    ("3 escapes", 'Bash(python3 -c "print\\(1\\)")', ("Bash", 'python3 -c "print(1)"'), ("Bash", 'python3 -c "print(2)"')),
    ("3 backslash", "Bash(echo a\\\\b)", ("Bash", "echo a\\b"), ("Bash", "echo a/b")),
    ("4 whole line", "Bash(cd api && npm run verify:api)", ("Bash", "cd api && npm run verify:api"),
     ("Bash", "cd web && npm run verify:api")),
    ("5 Tool(*)", "Edit(*)", ("Edit", "/elsewhere/notes.txt"), ("Read", "/elsewhere/notes.txt")),
    ("6 redirection", "Bash(npm test)", ("Bash", "npm test > out.txt 2>&1"), ("Bash", "npm tests > out.txt")),
    ("7 one star", "Bash(docker * run *)", ("Bash", "docker x run y"), ("Bash", "docker x run")),
    ("7 blanks", "Bash( npm test )", ("Bash", "npm test"), ("Bash", "npm tests")),
    ("7 Write path", "Write(.env)", ("Edit", "config/.env"), ("Edit", "env.txt")),
    ("7 Grep path", "Grep(secrets/**)", ("Read", "secrets/key"), ("Read", "public/key")),
    ("7 Task", "Task(Explore)", ("Agent", "Explore"), ("Agent", "Plan")),
    ("7 lower case", "bash(rm:*)", ("Bash", "rm x"), ("Bash", "ls x")),
    ("7 tool pattern", "Web*", ("WebFetch", "u"), ("Bash", "ls")),
    ("7 bad :*", "Bash(git push:* --force)", ("Bash", "git push origin --force"), ("Bash", "git push origin")),
]

ALLOW = [  # point, rule, a call it must approve, a call it must leave needing approval
    ("1 harmless variable", "Bash(npm test)", ("Bash", "NODE_ENV=test npm test"), ("Bash", "EVIL=1 npm test")),
    ("1 harmless wrapper", "Bash(npm test)", ("Bash", "timeout 120 npm test"), ("Bash", "sudo npm test")),
    ("2 ./ at depth", "Edit(./.env)", ("Edit", "packages/api/.env"), ("Edit", "packages/api/.envrc")),
    ("2 name/** stays here", "Edit(src/**)", ("Write", "src/a/b.py"), ("Write", "lib/src/b.py")),
    ("3 escapes", 'Bash(python3 -c "print\\(1\\)")', ("Bash", 'python3 -c "print(1)"'), ("Bash", 'python3 -c "print(2)"')),
    ("4 whole line", "Bash(cd api && npm run verify:api)", ("Bash", "cd api && npm run verify:api"),
     ("Bash", "cd web && npm run verify:api")),
    ("5 Tool(*)", "Edit(*)", ("Write", "/elsewhere/notes.txt"), ("Bash", "ls")),
    ("6 redirection", "Bash(npm test)", ("Bash", "npm test > out.txt 2>&1"), ("Bash", "npm test > /etc/out.txt")),
    ("6 redirection target", "Bash(echo:*)", ("Bash", "echo hi >> logs/run.log"), ("Bash", "echo hi > ~/.bashrc")),
    ("7 one star", "Bash(docker * run *)", ("Bash", "docker x run y"), ("Bash", "docker x run")),
    ("7 trailing star", "Bash(ls *)", ("Bash", "ls"), ("Bash", "lsof")),
    ("7 blanks in a pattern", "Bash( npm *)", ("Bash", "npm test"), ("Bash", "pnpm test")),
    ("7 Edit covers Write", "Edit(src/**)", ("Write", "src/a.py"), ("Write", "docs/a.md")),
]


@pytest.mark.parametrize("point, rule, matching, other", DENY, ids=[row[0] for row in DENY])
def test_deny_rules_read_as_claude_code_reads_them(cwd, home, point, rule, matching, other):
    p = Policy(mode="bypassPermissions", allow=(), deny=(rule,), ask=(), cwd=cwd, home=home)
    refused = decide(p, matching)
    assert not refused.allowed and f"'{rule}'" in refused.reason
    assert decide(p, other).allowed
    asked = Policy(mode="default", allow=("Bash", "Edit", "Read", "WebFetch"), deny=(), ask=(rule,), cwd=cwd, home=home)
    assert not decide(asked, matching).allowed and decide(asked, other).allowed  # ask rules read alike


@pytest.mark.parametrize("point, rule, matching, other", ALLOW, ids=[row[0] for row in ALLOW])
def test_allow_rules_read_as_claude_code_reads_them(cwd, home, point, rule, matching, other):
    p = Policy(mode="default", allow=(rule,), deny=(), ask=(), cwd=cwd, home=home)
    assert decide(p, matching).allowed
    assert not decide(p, other).allowed


@pytest.mark.parametrize("rule", ["Bash()", "Bash(:*)", "Bash(git push:* --force)", "Write(src/**)", "Glob(src/**)",
                                  "bash(ls)", "Web*", "Bash (ls)", "Bash(echo (a)", "Read(.env:*)"])
def test_allow_rules_claude_code_skips_approve_nothing(cwd, home, rule):
    p = Policy(mode="default", allow=(rule,), deny=(), ask=(), cwd=cwd, home=home)
    for call in (("Bash", "ls"), ("Bash", "git push origin --force"), ("Bash", "echo (a"),
                 ("Write", "src/a.py"), ("WebFetch", "u")):
        assert not decide(p, call).allowed, call


def test_edit_deny_rules_guard_redirection_targets(cwd, home):
    p = Policy(mode="default", allow=("Bash(echo:*)",), deny=("Edit(.env)",), ask=("Edit(*.lock)",), cwd=cwd, home=home)
    assert decide(p, ("Bash", "echo hi > notes.txt")).allowed
    assert not decide(p, ("Bash", "echo KEY=1 >> config/.env")).allowed
    assert not decide(p, ("Bash", "echo x > yarn.lock")).allowed
    assert not decide(p, ("Bash", 'echo x > "$TARGET"')).allowed  # a target we cannot read
    assert "--allowedTools 'Bash'" in decide(p, ("Bash", "echo x > /etc/motd")).reason


def test_a_symlink_does_not_sidestep_a_read_deny(cwd, home):
    (cwd / ".env").write_text("secret")
    (cwd / "innocent.txt").symlink_to(cwd / ".env")
    p = Policy(mode="bypassPermissions", allow=(), deny=("Read(.env)",), ask=(), cwd=cwd, home=home)
    assert not decide(p, ("Read", "innocent.txt")).allowed
    assert not Policy(mode="default", allow=("Edit(innocent.txt)",), deny=(), ask=(), cwd=cwd,
                      home=home).check("Edit", {"file_path": "innocent.txt"}, False).allowed


# --- the property ------------------------------------------------------------------------------------

WORD = st.one_of(
    st.from_regex(r"[A-Za-z0-9_./:=+,@%*-]{1,8}", fullmatch=True),
    st.from_regex(r"'[^'\n]{0,8}'", fullmatch=True),
    st.from_regex(r'"[^"\\$`\n]{0,8}"', fullmatch=True),
)


@settings(max_examples=300, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(words=st.lists(WORD, min_size=1, max_size=5), cut=st.integers(0, 5), form=st.sampled_from(["exact", "prefix", "wildcard"]))
@example(words=["rm", "-rf", "build"], cut=2, form="wildcard")
@example(words=["git", "push", "--force"], cut=2, form="prefix")
def test_a_denied_command_stays_denied_behind_a_prefix(words, cut, form, tmp_path_factory):
    command = " ".join(words)
    head = " ".join(words[:max(1, min(cut, len(words)))])
    rule = {"exact": f"Bash({command})", "prefix": f"Bash({head}:*)", "wildcard": f"Bash({head} *)"}[form]
    folder = tmp_path_factory.getbasetemp()
    p = Policy(mode="bypassPermissions", allow=(), deny=(rule,), ask=(), cwd=folder, home=folder)
    if decide(p, ("Bash", command)).allowed:
        return  # the rule does not match this command (e.g. its words hold a `*` or parentheses)
    for variant in (f"VAR=x {command}", f"timeout 5 {command}", f"true && {command}"):
        assert not decide(p, ("Bash", variant)).allowed, (rule, variant)


# --- settings keys and warnings ----------------------------------------------------------------------

def write_settings(folder: Path, name: str, permissions) -> Path:
    (folder / ".claude").mkdir(exist_ok=True)
    path = folder / ".claude" / name
    path.write_text(json.dumps({"permissions": permissions}))
    return path


@pytest.mark.parametrize("flags", [{"skip_permissions": True}, {"mode": "bypassPermissions"}, {}])
def test_disable_bypass_in_any_file_prevents_bypass(cwd, home, warnings, flags):
    write_settings(home, "settings.json", {"disableBypassPermissionsMode": "disable"})
    write_settings(cwd, "settings.local.json", {"defaultMode": "bypassPermissions"})
    p = load_policy(cwd, home, **flags, trusted=True)
    assert p.mode == "default"
    assert any("disableBypassPermissionsMode" in line and str(home) in line for line in warnings)
    assert not p.check("Bash", {"command": "ls"}, False).allowed


def test_disable_bypass_falls_back_to_the_next_mode(cwd, home, warnings):
    write_settings(cwd, "settings.json", {"disableBypassPermissionsMode": True, "defaultMode": "acceptEdits"})
    assert load_policy(cwd, home, skip_permissions=True).mode == "acceptEdits"
    assert any('"disable"' in line for line in warnings)  # true is read as "disable", and said so
    write_settings(cwd, "settings.json", {"disableBypassPermissionsMode": "no"})
    assert load_policy(cwd, home, skip_permissions=True).mode == "bypassPermissions"


def test_additional_directories_are_edited_like_the_workspace(cwd, home, tmp_path, warnings):
    (tmp_path / "shared").mkdir()
    write_settings(cwd, "settings.json", {"additionalDirectories": ["../shared", "~/notes", 3]})
    p = load_policy(cwd, home, mode="acceptEdits", trusted=True)
    assert p.check("Write", {"file_path": str(tmp_path / "shared" / "a.txt")}, False).allowed
    assert p.check("Edit", {"file_path": "~/notes/todo.md"}, False).allowed
    assert not p.check("Write", {"file_path": str(tmp_path / "other" / "a.txt")}, False).allowed
    assert len(warnings) == 1 and "additionalDirectories" in warnings[0]


@pytest.mark.parametrize("mode", ["dontAsk", "auto"])
def test_dont_ask_and_auto_decide_as_default(cwd, home, warnings, mode):
    write_settings(cwd, "settings.json", {"defaultMode": mode, "allow": ["Bash(ls:*)"]})
    p = load_policy(cwd, home, trusted=True)
    assert p.mode == mode
    assert p.check("Bash", {"command": "ls -la"}, False).allowed
    assert not p.check("Bash", {"command": "rm x"}, False).allowed
    assert p.check("Read", {"file_path": "a"}, True).allowed
    assert [line for line in warnings if "defaultMode" in line] == []
    assert load_policy(cwd, home, mode=mode).mode == mode


def test_each_rule_claude_code_would_skip_is_one_warning(cwd, home, warnings):
    path = write_settings(cwd, "settings.json", {
        "allow": ["Bash(npm test)", "Bash()", "Write(src/**)", "mcp__github__get_issue", "WebFetch(domain:x.org)"],
        "deny": ["Read(./.env)", "Bash(rm -rf", "bash(rm *)", "Web*"],
        "ask": ["Bash(git push:* --force)"],
    })
    load_policy(cwd, home, allowed=["Edit(*) Bash(:*)"], trusted=True)
    assert len(warnings) == 6, warnings
    assert all(str(path) in line for line in warnings[:5]) and "--allowedTools" in warnings[5]
    assert all("\n" not in line for line in warnings)
    assert "'Bash()'" in warnings[0] and "empty parentheses" in warnings[0] and "ignored" in warnings[0]
    assert "'Write(src/**)'" in warnings[1] and "Edit" in warnings[1]
    assert "'Bash(rm -rf'" in warnings[2] and "permissions.deny" in warnings[2]
    assert "'bash(rm *)'" in warnings[3] and "any letter case" in warnings[3]
    assert "read as Bash(git push * --force)" in warnings[4] and "permissions.ask" in warnings[4]
    assert "'Bash(:*)'" in warnings[5]


def test_a_rule_with_many_stars_from_someone_elses_settings_cannot_hang_the_check(cwd, home):
    """A backtracking regex took hours over these; a project's deny rules apply even untrusted."""
    stars = "*a" * 40 + "b"
    write_settings(cwd, "settings.json", {"deny": [f"Bash({stars})", f"Read({stars})"]})
    p = load_policy(cwd, home)
    assert p.check("Bash", {"command": "echo " + "a" * 200}, False).kind != "deny"
    assert p.check("Read", {"file_path": "a" * 200}, True).allowed
    assert p.check("Read", {"file_path": "a" * 50 + "b"}, True).kind == "deny"

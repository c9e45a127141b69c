"""claudeMdExcludes, on both wire formats, as Claude Code's setting reads: glob patterns against
each instruction file's absolute path, merged from every settings file, leaving those files out at
the start and on demand (CLAUDE.md, CLAUDE.local.md, rules). A repository's own settings leave out
only the repository's files (never the user's ~/.claude/CLAUDE.md), the organisation's files are
never left out, and a malformed value is one warning."""

import json

from agent.memory import MANAGED_VARIABLE
from scripted_model import call, text


def monorepo(agent):
    agent.write("CLAUDE.md", "ROOT-RULES.\n")
    agent.write(".claude/rules/style.md", "STYLE-RULE.\n")
    agent.write("packages/web/CLAUDE.md", "WEB-RULES.\n")
    agent.write("packages/web/app.py", "web = 1\n")
    agent.write("packages/api/CLAUDE.md", "API-RULES.\n")
    agent.write("packages/api/app.py", "api = 1\n")
    (agent.home / ".claude").mkdir(parents=True, exist_ok=True)
    (agent.home / ".claude" / "CLAUDE.md").write_text("USER-RULES.\n")


def test_excluded_files_are_left_out_at_the_start_and_on_demand(agent):
    monorepo(agent)
    agent.settings({"claudeMdExcludes": ["**/packages/web/**"]}, where="local")
    agent.settings({"claudeMdExcludes": ["**/.claude/rules/style.md"]}, where="project")
    agent.script(call("Read", file_path="packages/web/app.py"), call("Read", file_path="packages/api/app.py"),
                 text("Read both."))
    run = agent.run("Read the two apps.")
    assert run.exit_code == 0, run.stderr
    start, after_web, after_api = (json.dumps(payload) for payload in run.payloads)
    assert "ROOT-RULES." in start and "USER-RULES." in start and "STYLE-RULE." not in start  # the lists merge
    assert "WEB-RULES." not in after_web and "API-RULES." in after_api  # on demand too


def test_a_repository_cannot_leave_out_the_users_own_instructions(agent):
    monorepo(agent)
    agent.settings({"claudeMdExcludes": ["**/CLAUDE.md"]}, where="project")
    agent.script(text("ok"))
    run = agent.run("Hello.")
    assert run.exit_code == 0, run.stderr
    start = json.dumps(run.payloads[0])
    assert "USER-RULES." in start and "ROOT-RULES." not in start


def test_the_users_settings_may_leave_out_any_file_and_a_bad_value_is_one_warning(agent):
    monorepo(agent)
    agent.settings({"claudeMdExcludes": ["~/.claude/CLAUDE.md", "**/.claude/rules/**"]})
    agent.settings({"claudeMdExcludes": "**/packages/**"}, where="local")
    agent.script(text("ok"))
    run = agent.run("Hello.")
    assert run.exit_code == 0, run.stderr
    start = json.dumps(run.payloads[0])
    assert "USER-RULES." not in start and "STYLE-RULE." not in start and "ROOT-RULES." in start
    assert "ignoring claudeMdExcludes in " in run.stderr and "it must be a list of glob patterns" in run.stderr


def test_the_organisations_files_are_never_left_out(agent, monkeypatch):
    managed = agent.home / "org"
    (managed / ".claude" / "rules").mkdir(parents=True)
    (managed / "CLAUDE.md").write_text("ORG-RULES.\n")
    (managed / ".claude" / "rules" / "policy.md").write_text("ORG-POLICY.\n")
    monkeypatch.setenv(MANAGED_VARIABLE, str(managed))
    agent.settings({"claudeMdExcludes": ["**/CLAUDE.md", "**/*.md"]})
    agent.write("CLAUDE.md", "ROOT-RULES.\n")
    agent.script(text("ok"))
    run = agent.run("Hello.")
    assert run.exit_code == 0, run.stderr
    start = json.dumps(run.payloads[0])
    assert "ORG-RULES." in start and "ORG-POLICY." in start and "ROOT-RULES." not in start

"""A subagent that has the Skill tool gets the listing of the skills it may invoke, as Claude Code
2.1.332 gives it one: a `<system-reminder>` opening its first message ("The following skills are
available for use with the Skill tool:" and one `- name: description` line each), before its
CLAUDE.md block; skills the model may not invoke are not listed, and an agent without the Skill
tool gets no listing. Both wire formats."""

import json

from scripted_model import call, text

from agent.subagents.startup import SKILLS_INTRO

GP_TASK, READER_TASK = "TASK: lint with a skill.", "TASK: only read."


def first_blocks(payload) -> list[str]:
    """The texts of a request's first user message, block by block."""
    first = [m for m in payload["messages"] if m["role"] == "user"][0]["content"]
    return [first] if isinstance(first, str) else [block.get("text", "") for block in first]


def test_a_subagent_with_the_skill_tool_gets_the_skill_listing(agent):
    agent.skill("lint", "Lints the code base.", "Run the linter.")
    agent.skill("deploy", "Deploys to production.", "Deploy it.", extra="disable-model-invocation: true")
    agent.write("CLAUDE.md", "Project rule: be brief.\n")
    agent.agent_file("reader.md", "reader", "Only reads.", "READER BODY", "tools: Read")
    agent.script(call("Agent", description="lint", prompt=GP_TASK, subagent_type="general-purpose",
                      run_in_background=False),
                 call("Agent", description="read", prompt=READER_TASK, subagent_type="reader", run_in_background=False),
                 text("Both done."))
    agent.route(GP_TASK, text("linted"))
    agent.route(READER_TASK, text("read"))
    run = agent.run("Lint, then read.")
    assert run.exit_code == 0 and run.stdout == "Both done.\n", run.stderr
    (gp,) = [p for p in run.payloads if GP_TASK in json.dumps(first_blocks(p))]
    first = "\n".join(first_blocks(gp))  # one text on the chat wire, a block each on the Messages API
    listing = f"<system-reminder>\n{SKILLS_INTRO}\n\n- lint: Lints the code base.\n</system-reminder>"
    assert first.count(SKILLS_INTRO) == 1 and listing in first
    assert first.index(listing) < first.index("Project rule: be brief.") and first.strip().endswith(GP_TASK)
    (reader,) = [p for p in run.payloads if READER_TASK in json.dumps(first_blocks(p))]
    assert SKILLS_INTRO not in json.dumps(reader)

"""Skills end to end on both wire formats: the seven public skills stages (vh1, jd8, wd2, sk5,
tq1, gq2, mj2) with the tester's checks, plus forks by slash, arguments through a fork,
disable-model-invocation, a broken SKILL.md, user-level skills and `!`command``."""

import hashlib
import re

from scripted_model import call, text

INERT = "Follow the project's conventions and report what you did."
MARKER = "Do not add any other text, punctuation, or formatting"


def token_body(token: str) -> str:
    """The tester's RespondWithTokenBody."""
    return f"Respond with exactly one word: {token}\n\n{MARKER}."


def answer_with_token(request):
    """A scripted model that obeys the latest 'Respond with exactly one word: X' it was given."""
    found = re.findall(r"one word: (\w+)", request.raw)
    return text(found[-1])


def test_vh1_advertise_skills(agent):
    skills = {
        "atlas": "Deploys the billing service to production.",
        "beacon": "Runs the search test suite and reports failures.",
        "cinder": "Rotates credentials for the notification database.",
    }
    for name, description in skills.items():
        agent.skill(name, description, INERT)
    agent.script(text("beacon"))
    run = agent.run("Which skill would help me run the search test suite? Respond with only the skill name.")
    assert (run.exit_code, run.stdout) == (0, "beacon\n")
    assert run.some_request([*skills, *skills.values()])
    assert not run.some_request([INERT])


def test_vh1_older_variant_counts_skills(agent):
    for name in ("atlas", "beacon"):
        agent.skill(name, f"Does the {name} thing.", INERT)
    agent.script(lambda request: text(str(request.raw.count("Does the "))))
    run = agent.run("How many skills are available to you? Respond with only a number.")
    assert int(run.stdout.strip().splitlines()[-1]) >= 2


def test_jd8_invoke_a_skill_by_name(agent):
    agent.skill("falcon", "Deploys the billing service to production.", token_body("tangerine"))
    agent.skill("harbor", "Summarizes recent incidents for the payments team.", token_body("damson"))
    agent.script(answer_with_token)
    run = agent.run("/falcon")
    assert (run.exit_code, run.stdout) == (0, "tangerine\n")
    assert run.some_request(["tangerine"], ["damson"])
    first_user = run.payloads[0]["messages"][-1]["content"]  # the body, in place of the raw prompt
    assert first_user.startswith("Skill: falcon (located at .claude/skills/falcon)")


def test_wd2_pass_arguments_to_a_skill(agent):
    agent.skill("jasper", "Generates release notes for the analytics project.", f"Respond with exactly: $ARGUMENTS\n\n{MARKER}.")
    agent.skill("kestrel", "Runs the search test suite and reports failures.", f"Respond with exactly: $1 $0\n\n{MARKER}.")
    agent.script(lambda request: text(re.findall(r"Respond with exactly: (.*)", request.raw.replace("\\n", "\n"))[-1]))
    first = agent.run("/jasper 4821")
    assert first.exit_code == 0 and "4821" in first.stdout
    agent.script(lambda request: text(re.findall(r"Respond with exactly: (.*)", request.raw.replace("\\n", "\n"))[-1]))
    second = agent.run("/kestrel soursop jujube")
    assert second.exit_code == 0 and "jujube soursop" in second.stdout
    assert second.some_request(["Respond with exactly: jujube soursop"])


def test_sk5_stack_multiple_skills(agent):
    for name, token in (("lumen", "kumquat"), ("nimbus", "medlar"), ("onyx", "physalis")):
        agent.skill(name, f"Adds the {token} line.", f"Add this exact line to your response: {token}-$ARGUMENTS\n\nDo not modify the line.")
    agent.script(
        lambda request: text("\n".join(re.findall(r"response: (\w+-\d+)", request.raw)))
    )
    run = agent.run("/lumen /nimbus 7304")
    assert "kumquat-7304" in run.stdout and "medlar-7304" in run.stdout
    assert "physalis" not in run.stdout.lower()
    assert not run.some_request(["physalis-"])
    user_messages = [m for m in run.payloads[0]["messages"] if m["role"] == "user"]
    assert len(user_messages) == 2


def test_tq1_run_a_script_bundled_with_a_skill(agent):
    body = (
        "Run `scripts/checksum.sh` using the Bash tool. Run the script itself rather than reimplementing "
        "what it does.\n\nRespond with only the value it prints, and nothing else."
    )
    skill = agent.skill("quartz", "Generates release notes for the analytics project.", body)
    data = "tangerine damson kumquat medlar jujube soursop"
    (skill.parent / "data.txt").write_text(data)
    script = skill.parent / "scripts" / "checksum.sh"
    script.parent.mkdir()
    script.write_text('#!/usr/bin/env bash\ncd "$(dirname "$0")/.."\nsha256sum data.txt | cut -c1-8\n')
    script.chmod(0o755)
    agent.script(
        call("Bash", command=".claude/skills/quartz/scripts/checksum.sh"),
        lambda request: text(request.tool_results()[0].split()[-1]),
    )
    run = agent.run("/quartz")
    assert (run.exit_code, run.stdout) == (0, hashlib.sha256(data.encode()).hexdigest()[:8] + "\n")


def test_gq2_let_the_model_choose_a_skill(agent):
    agent.skill("zephyr", "Use this skill when the user asks about the on-call rotation.", token_body("nectarine"))
    agent.skill("onyx", "Use this skill when the user asks who owns the payments dashboard.", token_body("persimmon"))
    agent.script(call("Skill", skill="zephyr"), answer_with_token)
    run = agent.run("Who is on the on-call rotation right now?")
    assert run.exit_code == 0
    assert "nectarine" in run.stdout.lower() and "persimmon" not in run.stdout.lower()
    assert not run.some_request(["persimmon"])  # only the invoked body is ever loaded
    tool_names = [t.get("name") or t["function"]["name"] for t in run.payloads[0]["tools"]]
    assert "Skill" in tool_names


def test_mj2_run_a_skill_in_a_subagent(agent):
    question = "Which region does the billing service run in?"
    agent.skill("apple", "Use this skill when the user asks which region the billing service runs in.", token_body("clementine"), fork=True)
    agent.skill("pear", "Use this skill when the user asks who owns the payments dashboard.", token_body("soursop"))
    agent.script(call("Skill", skill="apple", args=question), answer_with_token, lambda request: text(
        "The billing service runs in " + request.tool_results()[0].rsplit(" ", 1)[-1] + "."
    ))
    run = agent.run(question)
    assert run.exit_code == 0 and "clementine" in run.stdout.lower()
    # latest check: one request carries the body without the question
    assert run.some_request([MARKER], [question])
    # strict: the subagent's messages are exactly the one rendered body; no other request has the body
    with_body = [p for p in run.payloads if MARKER in str(p)]
    assert len(with_body) == 1
    messages = [m for m in with_body[0]["messages"] if m["role"] != "system"]
    assert len(messages) == 1 and messages[0]["role"] == "user" and isinstance(messages[0]["content"], str)
    assert messages[0]["content"].endswith(token_body("clementine"))
    # variant B: the main conversation received the answer and never the body
    assert run.some_request(["clementine"], [MARKER])
    # variant A: the subagent sees no catalog; the main conversation (with the catalog) gets the answer
    assert run.some_request(["clementine"], ["pear"])
    assert run.some_request(["pear", "clementine"])
    assert "ran in a separate context and returned: [Subagent hand-back] " in str(run.payloads[-1])
    assert "The report:\\n  clementine" in str(run.payloads[-1])  # the answer, framed as the subagent's words


def test_slash_invoked_fork_hands_its_answer_to_the_main_conversation(agent):
    agent.skill("apple", "Use this skill when the user asks about the on-call rotation.", token_body("blueberry"), fork=True)
    agent.skill("grape", "Use this skill when the user asks who owns the payments dashboard.", token_body("kumquat"))
    agent.script(answer_with_token, lambda request: text(request.messages[-1]["content"].split()[-1]))
    run = agent.run("/apple")
    assert (run.exit_code, run.stdout) == (0, "blueberry\n")
    assert run.some_request(["blueberry", MARKER], ["grape"])  # the subagent: body, no catalog
    assert run.some_request(["grape", "The /apple skill ran in a subagent and returned:\\n\\n[Subagent hand-back] ",
                             "The report:\\n  blueberry"], [MARKER])


def test_arguments_reach_a_fork_only_through_placeholders(agent):
    agent.skill("echo-fork", "Use this skill to echo a word in isolation.", "Respond with exactly one word: $0", fork=True)
    agent.skill("plain-fork", "Use this skill to answer in isolation.", token_body("damson"), fork=True)
    agent.script(
        call("Skill", skill="echo-fork", args="jujube extra words"),
        answer_with_token,
        call("Skill", skill="plain-fork", args="the user's whole question"),
        answer_with_token,
        text("jujube damson"),
    )
    run = agent.run("Echo jujube, then answer in isolation.")
    assert run.stdout == "jujube damson\n"
    forks = [p for p in run.payloads if len([m for m in p["messages"] if m["role"] != "system"]) == 1][1:]
    assert "one word: jujube" in str(forks[0]) and "extra words" not in str(forks[0])
    assert "the user's whole question" not in str(forks[1])


def test_disable_model_invocation_hides_a_skill_from_the_model_but_not_the_user(agent):
    agent.skill("deploy", "Deploys to production.", token_body("persimmon"), extra="disable-model-invocation: true")
    agent.skill("status", "Use this skill when the user asks about status.", token_body("kumquat"))
    agent.script(call("Skill", skill="deploy"), lambda request: text(request.tool_results()[0]))
    refused = agent.run("Deploy now.")
    assert "can only be invoked by the user" in refused.stdout
    assert not refused.some_request(["Deploys to production."])
    agent.script(answer_with_token)
    direct = agent.run("/deploy")
    assert direct.stdout == "persimmon\n"


def test_a_broken_skill_is_skipped_with_a_warning_and_the_rest_work(agent):
    broken = agent.workspace / ".claude/skills/broken/SKILL.md"
    broken.parent.mkdir(parents=True)
    broken.write_text("---\nname: broken\ndescription: [unclosed\n---\n\nBody.\n")
    agent.skill("good", "Use this skill when the user asks about the good thing.", token_body("medlar"))
    agent.script(answer_with_token)
    run = agent.run("/good")
    assert (run.exit_code, run.stdout) == (0, "medlar\n")
    warnings = [line for line in run.stderr.splitlines() if "broken/SKILL.md" in line]
    assert len(warnings) == 1


def test_user_level_skills_and_project_precedence(agent):
    agent.skill("shared", "User version.", token_body("damson"), user=True)
    agent.skill("shared", "Project version.", token_body("physalis"))
    agent.skill("mine", "Use this skill for my personal thing.", token_body("kumquat"), user=True)
    agent.script(answer_with_token)
    run = agent.run("/mine")
    assert run.stdout == "kumquat\n"
    assert run.some_request(["Project version.", "mine"], ["User version."])
    assert "{{home}}/.claude/skills/mine" in run.bodies[0]


def test_dynamic_context_commands_run_in_the_workspace(agent):
    skill = agent.skill("facts", "Use this skill for facts.",
                        "The data file says: !`cat ${CLAUDE_SKILL_DIR}/data.txt`\nProject: !`ls`\nBroken: !`exit 3`\n"
                        "Respond with exactly one word: ok")
    (skill.parent / "data.txt").write_text("jujube")
    agent.write("README.md", "project readme")
    agent.script(answer_with_token)
    run = agent.run("/facts")
    assert run.stdout == "ok\n"
    assert "The data file says: jujube" in run.bodies[0]
    assert "Project: README.md" in run.bodies[0]
    assert "command failed (exit 3)" in run.bodies[0]

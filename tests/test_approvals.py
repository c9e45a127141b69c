"""Interactive approvals: what "always" approves for the rest of the session, and for whom. The
person is scripted (the session's approver); the tools and permission rules are the real ones."""

from __future__ import annotations

import json
from pathlib import Path

from agent.conversation import ToolCall
from agent.loop import AgentSpec, ToolContext
from agent.permissions.settings import load_policy
from agent.record.approvals import Approval
from agent.session import Session
from agent.tools import builtin_tools
from agent.tools.execute import by_name, execute
from agent.workspace import Workspace

TOOLS = by_name(builtin_tools())


class Person:
    """Answers each approval question from a list, and remembers what was asked."""

    def __init__(self, *answers: str):
        self.answers = list(answers)
        self.asked: list[str] = []

    def __call__(self, agent: str, call_id: str, tool: str, arguments: dict) -> Approval:
        self.asked.append(arguments.get("command") or arguments.get("file_path"))
        return Approval(self.answers.pop(0), "user")


def session_for(tmp_path: Path, person: Person) -> tuple[Session, list[ToolContext]]:
    """A session in default mode with two agents (the main one and a running subagent)."""
    (tmp_path / "home").mkdir()
    policy = load_policy(tmp_path, tmp_path / "home", None, [], [], False)
    session = Session(workspace=Workspace(tmp_path), policy=policy, approver=person)
    agents = [ToolContext(session, AgentSpec(name, "", TOOLS, "m", 10, policy=policy)) for name in ("main", "helper")]
    return session, agents


def run(context: ToolContext, name: str, **arguments) -> dict:
    return execute(ToolCall("call_1", name, arguments), TOOLS, context)


def test_always_approves_the_commands_rule_for_every_agent_of_the_session(tmp_path):
    person = Person("always", "no")
    session, (main, helper) = session_for(tmp_path, person)
    assert "one" in run(main, "Bash", command="echo one")["content"]
    assert "two" in run(helper, "Bash", command="echo two")["content"]  # a sibling: not asked again
    assert run(main, "Bash", command="touch made")["is_error"]  # another command: asked, and refused
    assert person.asked == ["echo one", "touch made"] and session.approved == ("Bash(echo:*)",)
    assert not (tmp_path / "made").exists()


def test_always_for_a_command_no_narrow_rule_covers_approves_it_once(tmp_path):
    outside = tmp_path.parent / f"{tmp_path.name}-outside.txt"
    command = f"echo hi > {outside}"
    person = Person("always", "no")
    session, (main, _) = session_for(tmp_path, person)
    assert not run(main, "Bash", command=command).get("is_error")
    assert outside.read_text() == "hi\n"
    assert run(main, "Bash", command=command)["is_error"]  # asked again: not all of Bash was approved
    assert person.asked == [command, command] and session.approved == ()
    outside.unlink()


def test_always_for_an_edit_approves_that_file_only(tmp_path):
    person = Person("always", "no")
    session, (main, _) = session_for(tmp_path, person)
    run(main, "Write", file_path="notes.md", content="first")
    run(main, "Write", file_path="notes.md", content="second")
    assert run(main, "Write", file_path="other.md", content="x")["is_error"]
    assert (tmp_path / "notes.md").read_text() == "second" and not (tmp_path / "other.md").exists()
    assert person.asked == ["notes.md", "other.md"] and session.approved == ("Edit(./notes.md)",)



def test_always_for_a_call_an_ask_rule_matches_still_asks_next_time(tmp_path):
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"ask": ["Bash(echo:*)"]}}))
    person = Person("always", "no")
    session, (main, _) = session_for(tmp_path, person)
    assert "first" in run(main, "Bash", command="echo first")["content"]
    assert run(main, "Bash", command="echo second")["is_error"]
    assert person.asked == ["echo first", "echo second"] and session.approved == ()


def test_an_always_rule_also_approves_a_skill_command_later_in_the_session(tmp_path):
    from agent.skills.commands import command_context, command_output

    person = Person("always")
    session, (main, _) = session_for(tmp_path, person)
    assert "[" in command_output("echo from-the-skill", (), command_context(session, main.agent.policy))  # not approved yet
    assert "one" in run(main, "Bash", command="echo one")["content"]
    assert command_output("echo from-the-skill", (), command_context(session, main.agent.policy)) == "from-the-skill"
    assert person.asked == ["echo one"]

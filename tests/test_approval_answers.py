"""What an approver's answer carries besides yes or no (the Agent SDK's can_use_tool answers): an
input to run instead, checked again (a yes never covers a sensitive file, an uncertain command or
a denied call it was not asked about), permission updates for the session, a refusal's own words.
The approver is scripted; the tools and permission rules are the real ones."""

from __future__ import annotations

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


def context_for(tmp_path: Path, *answers: Approval) -> tuple[ToolContext, list[dict]]:
    """The main agent's context in a default-mode session whose approver gives each of `answers`
    in turn, and the list of the inputs it was asked about."""
    (tmp_path / "home").mkdir(exist_ok=True)
    policy = load_policy(tmp_path, tmp_path / "home", None, [], [], False)
    asked: list[dict] = []
    waiting = list(answers)

    def approver(agent: str, call_id: str, tool: str, arguments: dict) -> Approval:
        asked.append(arguments)
        return waiting.pop(0)

    session = Session(workspace=Workspace(tmp_path), policy=policy, approver=approver)
    return ToolContext(session, AgentSpec("main", "", TOOLS, "m", 10, policy=policy)), asked


def run(context: ToolContext, name: str, **arguments) -> dict:
    return execute(ToolCall("call_1", name, arguments), TOOLS, context)


def test_a_given_input_runs_and_the_model_is_told(tmp_path):
    context, asked = context_for(tmp_path, Approval("once", "sdk", {"command": "echo given"}))
    result = run(context, "Bash", command="echo proposed")
    assert asked == [{"command": "echo proposed"}] and not result.get("is_error")
    assert "given" in result["content"] and "proposed" not in result["content"].split("\n")[1]
    assert result["content"].endswith('the call ran with: {"command": "echo given"}')


def test_a_given_input_to_a_sensitive_file_is_refused(tmp_path):
    given = {"file_path": ".claude/settings.json", "content": '{"permissions": {"allow": ["Bash"]}}'}
    context, _ = context_for(tmp_path, Approval("once", "sdk", given))
    result = run(context, "Write", file_path="notes.md", content="n")
    assert result["is_error"] and "sensitive file" in result["content"]
    assert not (tmp_path / ".claude" / "settings.json").exists() and not (tmp_path / "notes.md").exists()
    assert [d["tool_name"] for d in context.session.permission_denials] == ["Write"]


def test_a_given_command_the_analysis_cannot_be_sure_of_is_refused(tmp_path):
    context, _ = context_for(tmp_path, Approval("once", "sdk", {"command": "$(cat cmd) > made"}))
    result = run(context, "Bash", command="echo hi")
    assert result["is_error"] and "no rule can approve it" in result["content"]
    assert not (tmp_path / "made").exists()


def test_a_given_input_that_does_not_fit_the_tool_is_refused(tmp_path):
    context, _ = context_for(tmp_path, Approval("once", "sdk", {"file_path": "a.txt"}))
    result = run(context, "Write", file_path="a.txt", content="a")
    assert result["is_error"] and "does not fit: missing required argument(s): content" in result["content"]
    assert not (tmp_path / "a.txt").exists()


def test_a_refusal_gives_its_own_words_or_the_usual_ones(tmp_path):
    context, _ = context_for(tmp_path, Approval("no", "sdk", message="NOT-TODAY"), Approval("no", "sdk"))
    assert run(context, "Bash", command="touch a")["content"] == "NOT-TODAY"
    assert run(context, "Bash", command="touch b")["content"].startswith("The user did not allow this Bash call.")
    assert not context.session.cancelled.is_set()


def test_an_interrupting_refusal_leaves_the_next_calls_unrun(tmp_path):
    context, asked = context_for(tmp_path, Approval("no", "sdk", message="STOP", interrupt=True))
    assert run(context, "Bash", command="touch a")["content"] == "STOP"
    later = run(context, "Read", file_path="anything.txt")  # would need no approval: still not run
    assert later["is_error"] and later["content"] == "Read was not run: the turn was interrupted."
    assert len(asked) == 1 and context.session.cancelled.is_set()


def test_permission_updates_last_the_session_and_narrow_too(tmp_path):
    outside = tmp_path.parent / f"{tmp_path.name}-extra"
    outside.mkdir()
    updates = ({"type": "addRules", "behavior": "deny", "rules": ["Bash(rm:*)"]},
               {"type": "addRules", "behavior": "allow", "rules": ["Bash(echo:*)", "Bash(bad"]},
               {"type": "addDirectories", "directories": [str(outside), str(tmp_path / "missing")]},
               {"type": "setMode", "mode": "acceptEdits"})
    context, asked = context_for(tmp_path, Approval("once", "sdk", updates=updates))
    run(context, "Bash", command="echo first")
    assert "second" in run(context, "Bash", command="echo second")["content"]  # the added rule approves it
    assert "denied by the permission rule 'Bash(rm:*)'" in run(context, "Bash", command="rm -f x")["content"]
    assert not run(context, "Write", file_path=str(outside / "x.txt"), content="x").get("is_error")
    assert (outside / "x.txt").read_text() == "x" and len(asked) == 1
    assert context.session.approved == ("Bash(echo:*)",) and context.agent.policy.mode == "acceptEdits"
    assert context.session.policy.mode == "acceptEdits" and outside in context.session.policy.directories

"""`/compact [instructions]` in -p with --continue or --resume, the PreCompact hook, the
compact_boundary a transcript keeps (so --resume goes on after it) and the stream-json lines of a
compaction, as Claude Code 2.1.332 has them (claude-code-everyday-observed.md §9)."""

from __future__ import annotations

import json

from agent import cli
from compaction_replies import summary, too_long, without_model
from scripted_model import call, text

CONTINUED = "This session is being continued from a previous conversation"


def _read_then_answer(agent) -> None:
    agent.write("alpha.txt", "ALPHA-CONTENT\n")
    agent.script(call("Read", file_path=str(agent.workspace / "alpha.txt")), text("OLD-ANSWER: read it"))
    first = agent.run("Read alpha.txt")
    assert first.exit_code == 0, first.stderr


def _tool_results_in(body: str) -> bool:
    return "tool_result" in body or '"role": "tool"' in body


def test_compact_with_continue_sends_one_summary_request_and_the_next_turn_starts_from_it(agent):
    _read_then_answer(agent)
    agent.script(summary("SUMMARY-MANUAL"))
    compacted = agent.run("/compact focus on alpha", "--continue", "--output-format", "json")
    assert compacted.exit_code == 0, compacted.stderr
    result = json.loads(compacted.stdout)
    assert (result["subtype"], result["result"], result["num_turns"], result["local_command"]) == ("success", "", 0, "compact")
    assert result["is_error"] is False
    [asked] = compacted.bodies
    assert "\\nAdditional Instructions:\\nfocus on alpha\\n" in asked and "9. Optional Next Step" in asked
    assert "ALPHA-CONTENT" in asked and "OLD-ANSWER" not in asked  # the last answer is kept, not summarised
    agent.script(text("NEXT-ANSWER"))
    after = agent.run("What now?", "--continue")
    assert after.exit_code == 0, after.stderr
    assert after.stdout.strip() == "NEXT-ANSWER"
    [sent] = after.bodies
    assert CONTINUED in sent and "SUMMARY-MANUAL" in sent and "OLD-ANSWER" in sent
    assert "Called the Read tool with the following input:" in sent and "ALPHA-CONTENT" in sent
    assert "<command-name>/compact</command-name>" in sent and "<command-args>focus on alpha</command-args>" in sent
    assert "<local-command-stdout>Compacted (ctrl+o to see full summary)</local-command-stdout>" in sent
    assert not _tool_results_in(sent)  # the old call and its result are gone
    assert sent.index("SUMMARY-MANUAL") < sent.index("OLD-ANSWER") < sent.index("What now?")


def test_compact_in_text_mode_prints_an_empty_line(agent):
    _read_then_answer(agent)
    agent.script(summary("SUMMARY-TEXT"))
    compacted = agent.run("/compact", "--continue")
    assert compacted.exit_code == 0, compacted.stderr
    assert compacted.stdout == "\n"
    assert "Additional Instructions" not in compacted.bodies[0]


def test_compact_without_a_conversation_is_a_usage_error(tmp_path, monkeypatch, capsys):
    without_model(tmp_path, monkeypatch)
    assert cli.main(["-p", "/compact"]) == 2  # no request is sent
    assert capsys.readouterr().err == ("error: /compact: there is no conversation to compact yet; continue one with "
                                       "--continue or --resume\n")


def test_the_precompact_hook_sees_the_trigger_and_adds_its_output_to_the_instructions(agent):
    seen = agent.home / "precompact.json"
    command = 'cat > "$HOME/precompact.json"; echo HOOK-SAYS-KEEP-ALPHA'
    agent.settings({"permissions": {"defaultMode": "bypassPermissions"},
                    "hooks": {"PreCompact": [{"matcher": "manual", "hooks": [{"type": "command", "command": command}]}]}})
    _read_then_answer(agent)
    agent.script(summary("SUMMARY-HOOKED"))
    compacted = agent.run("/compact keep it short", "--continue", "--output-format", "json")
    assert compacted.exit_code == 0, compacted.stderr
    assert "Additional Instructions:\\nkeep it short\\n\\nHOOK-SAYS-KEEP-ALPHA\\n" in compacted.bodies[0]
    fired = json.loads(seen.read_text())
    assert fired["hook_event_name"] == "PreCompact"
    assert (fired["trigger"], fired["custom_instructions"]) == ("manual", "keep it short")
    assert fired["session_id"] == json.loads(compacted.stdout)["session_id"]
    agent.script(text("AFTER-HOOK"))
    after = agent.run("Go on", "--continue")
    assert json.dumps(f"PreCompact [{command}] completed successfully: HOOK-SAYS-KEEP-ALPHA")[1:-1] in after.bodies[0]


def test_resume_after_an_automatic_compaction_continues_from_the_summary(agent):
    agent.script(call("Bash", command="echo first-step"),
                 call("Bash", command="echo second-step"),
                 call("Bash", command="echo third-step"),
                 too_long(agent.provider),
                 summary("SUMMARY-BEFORE-RESUME"),
                 text("FIRST-RUN-DONE"))
    first = agent.run("Echo three steps", "--output-format", "stream-json", "--verbose")
    assert first.exit_code == 0, first.stderr
    lines = [json.loads(line) for line in first.stdout.splitlines()]
    kinds = [(line["type"], line.get("subtype"), line.get("status"), line.get("compact_result")) for line in lines]
    at = kinds.index(("system", "status", "compacting", None))
    assert kinds[at + 1] == ("system", "status", None, "success")
    boundary, shown = lines[at + 2], lines[at + 3]
    assert (boundary["type"], boundary["subtype"], boundary["compact_metadata"]["trigger"]) == ("system", "compact_boundary", "auto")
    assert shown["type"] == "user" and shown["isSynthetic"] is True and CONTINUED in json.dumps(shown["message"])
    assert boundary["compact_metadata"]["pre_tokens"] == 250_123  # the size the provider named
    session_id = lines[-1]["session_id"]
    transcript = next((agent.home / ".claude" / "projects").glob(f"*/{session_id}.jsonl"))
    entries = [json.loads(line) for line in transcript.read_text().splitlines()]
    marks = [e for e in entries if e.get("subtype") == "compact_boundary"]
    assert len(marks) == 1 and marks[0]["uuid"] == boundary["uuid"]
    assert marks[0]["compactMetadata"]["trigger"] == "auto" and marks[0]["parentUuid"] is None
    assert entries[entries.index(marks[0]) + 1].get("isCompactSummary") is True
    agent.script(text("RESUMED"))
    resumed = agent.run("And now?", "--resume", session_id)
    assert resumed.exit_code == 0, resumed.stderr
    [sent] = resumed.bodies
    assert CONTINUED in sent and "SUMMARY-BEFORE-RESUME" in sent and "FIRST-RUN-DONE" in sent
    assert "first-step" not in sent and "Echo three steps" not in sent  # summarised: only the summary holds them
    assert "third-step" in sent  # kept verbatim


def test_sessionstart_hooks_with_the_compact_matcher_add_their_context_after_a_compaction(agent):
    hook = {"type": "command", "command": "echo AFTER-COMPACT-CONTEXT"}
    agent.settings({"permissions": {"defaultMode": "bypassPermissions"},
                    "hooks": {"SessionStart": [{"matcher": "compact", "hooks": [hook]}]}})
    agent.script(call("Bash", command="echo one"), call("Bash", command="echo two"), too_long(agent.provider),
                 summary("SUMMARY-STARTED-AGAIN"), text("DONE"))
    run = agent.run("Echo two things")
    assert run.exit_code == 0, run.stderr
    assert not any("AFTER-COMPACT-CONTEXT" in body for body in run.bodies[:4])  # not at startup
    continued = run.bodies[4]
    assert "SessionStart:compact hook success: AFTER-COMPACT-CONTEXT" in continued
    assert continued.index("AFTER-COMPACT-CONTEXT") < continued.index(CONTINUED)

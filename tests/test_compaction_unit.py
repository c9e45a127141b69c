"""The pure parts of compaction: where a conversation is split (Claude Code summarised 3 of 7, 5 of
11, 7 of 17 and 11 of 25 messages), the summary read from a reply, the thresholds, and the
words of the too-long refusals on each wire."""

from __future__ import annotations

import json

import pytest

from agent.compaction.compact import files_read, split_point, with_prompt, without_oldest
from agent.compaction.prompt import summary_of, summary_prompt
from agent.compaction.settings import CompactionSettings, window_value
from agent.model.too_long import refused_as_too_long, tokens_said
from agent.transcripts import read_conversation
from compaction_replies import ANTHROPIC_TOO_LONG, OPENAI_TOO_LONG, OPENROUTER_TOO_LONG


def _pairs(count: int) -> list[dict]:
    messages = [{"role": "user", "content": "go"}]
    for index in range(count):
        messages.append({"role": "assistant", "content": [{"type": "tool_use", "id": f"c{index}", "name": "Bash",
                                                            "input": {"command": f"echo {index}"}}]})
        messages.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"c{index}", "content": "x"}]})
    return messages


@pytest.mark.parametrize("pairs, summarised", [(1, 3), (2, 3), (3, 3), (5, 5), (8, 7), (12, 11)])
def test_the_older_part_is_summarised_as_claude_code_splits_it(pairs, summarised):
    messages = _pairs(pairs)
    cut = split_point(messages)
    assert cut == summarised
    assert cut == len(messages) or messages[cut]["role"] == "assistant"  # no result kept without its call


def test_a_finished_turn_keeps_its_last_answer():
    messages = [*_pairs(1), {"role": "assistant", "content": [{"type": "text", "text": "done"}]}]
    assert split_point(messages) == 3


def test_the_prompt_is_appended_to_the_last_user_message_as_a_text_block():
    messages = _pairs(1)
    asked = with_prompt(messages, "SUMMARISE")
    assert asked[-1]["content"][-1] == {"type": "text", "text": "SUMMARISE"}
    assert asked[-1]["content"][0]["type"] == "tool_result"
    assert messages[-1]["content"][-1]["type"] == "tool_result"  # the conversation is left as it was


def test_the_summary_is_what_the_summary_block_holds():
    assert summary_of("<analysis>thinking</analysis>\n<summary>\n1. Primary\n</summary>") == "1. Primary"
    assert summary_of("<analysis>thinking</analysis> just words") == "just words"
    assert summary_of("<summary>cut off mid") == "cut off mid"


def test_additional_instructions_come_before_the_closing_reminder():
    prompt = summary_prompt("focus on alpha\n\nHOOK SAID")
    assert "\nAdditional Instructions:\nfocus on alpha\n\nHOOK SAID\n" in prompt
    assert prompt.index("Additional Instructions") < prompt.index("REMINDER")
    assert "Additional Instructions" not in summary_prompt("")
    assert prompt.count("\n1. Primary Request and Intent") == 2 and "9. Optional Next Step" in prompt


def test_files_read_before_the_summary_are_attached_again_unless_read_after_it():
    older = [{"role": "user", "content": "go"},
             {"role": "assistant", "content": [{"type": "tool_use", "id": "r1", "name": "Read", "input": {"file_path": "/a"}},
                                               {"type": "tool_use", "id": "r2", "name": "Read", "input": {"file_path": "/b"}}]},
             {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "r1", "content": "A"},
                                          {"type": "tool_result", "tool_use_id": "r2", "content": "B"}]}]
    kept = [{"role": "assistant", "content": [{"type": "tool_use", "id": "r3", "name": "Read", "input": {"file_path": "/b"}}]}]
    assert files_read(older, kept) == [("/a", "A")]
    assert files_read(older, []) == [("/b", "B"), ("/a", "A")]


def test_thresholds_are_the_window_less_33000_or_the_percentage():
    assert CompactionSettings().threshold() is None
    assert CompactionSettings(window=100_000).threshold() == 67_000
    assert CompactionSettings(window=200_000).threshold() == 167_000
    assert CompactionSettings(window=200_000, percent=50).threshold() == 100_000
    assert CompactionSettings(window=200_000).threshold(agent_window=120_000) == 87_000
    assert CompactionSettings(window=200_000, disabled=True).threshold() is None


def test_autocompact_takes_auto_or_a_window_of_at_least_100k():
    assert window_value("auto", "--autocompact") is None
    assert window_value("150000", "--autocompact") == 150_000
    assert window_value("300k", "--autocompact") == 300_000
    for bad in ("99999", "abc", "2000000", ""):
        with pytest.raises(ValueError, match="--autocompact must be auto or a number of tokens"):
            window_value(bad, "--autocompact")


def test_each_wire_s_too_long_wording_is_recognised():
    assert refused_as_too_long(400, ANTHROPIC_TOO_LONG["error"]["message"], ANTHROPIC_TOO_LONG)
    assert refused_as_too_long(400, OPENROUTER_TOO_LONG["error"]["message"], OPENROUTER_TOO_LONG)
    assert refused_as_too_long(400, "too big", OPENAI_TOO_LONG | {"error": {"code": "context_length_exceeded"}})
    assert not refused_as_too_long(400, "model not found", {})
    assert not refused_as_too_long(500, "prompt is too long", {})
    assert tokens_said("prompt is too long: 250,123 tokens > 200000 maximum") == 250_123
    assert tokens_said(OPENROUTER_TOO_LONG["error"]["message"]) == 250_123
    assert tokens_said(OPENAI_TOO_LONG["error"]["message"]) == 130_000
    assert tokens_said("too long") is None


def test_a_claude_code_transcript_is_read_from_its_boundary_with_its_kept_messages(tmp_path):
    lines = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "message": {"role": "user", "content": "old prompt"}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1",
         "message": {"role": "assistant", "content": [{"type": "text", "text": "kept answer"}]}},
        {"type": "system", "subtype": "compact_boundary", "uuid": "b1", "parentUuid": None, "logicalParentUuid": "a1",
         "compactMetadata": {"trigger": "manual", "preTokens": 15,
                             "preservedMessages": {"anchorUuid": "s1", "uuids": ["a1"], "allUuids": ["a1"]}}},
        {"type": "user", "uuid": "s1", "parentUuid": "b1", "isCompactSummary": True,
         "message": {"role": "user", "content": "This session is being continued ... SUMMARY"}},
        {"type": "user", "uuid": "u2", "parentUuid": "s1", "message": {"role": "user", "content": "next prompt"}},
    ]
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert [m["content"] if isinstance(m["content"], str) else m["content"][0]["text"]
            for m in read_conversation(path)] == ["This session is being continued ... SUMMARY", "kept answer", "next prompt"]


def test_the_oldest_exchanges_go_first_and_the_opening_message_stays():
    messages = _pairs(4)  # 9 messages
    shorter = without_oldest(messages)
    assert shorter[0] == messages[0] and shorter[1]["role"] == "assistant" and len(shorter) == 7
    assert without_oldest([{"role": "user", "content": "only"}]) is None

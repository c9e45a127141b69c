"""A reply cut off at the output limit with text and no tool calls is continued, as Claude Code
2.1.332 does (seen against a scripted model): the main conversation gets the same reminder up to
three times, a subagent first two notes saying its caller gets no answer in pieces and then that
reminder; after a fourth cut-off a subagent ends on Claude Code's max_output_tokens error, the main
conversation on the cut-off answer. Both wire formats."""

import json

from scripted_model import call, stopped, text

from agent.model.output_limit import RESUME, SUBAGENT_RETRIES

TASK = "TASK: write the report."


def cut(words: str):
    return stopped(text(words), "max_tokens")


def subagent_requests(run) -> list[dict]:
    """The requests of the subagent: those whose first user message is its task."""
    return [p for p in run.payloads if TASK in json.dumps([m for m in p["messages"] if m["role"] == "user"][:1])]


def user_texts(payload) -> list[str]:
    """The texts of the user turns after the first, in order, as the model got them."""
    texts = []
    for message in [m for m in payload["messages"] if m["role"] == "user"][1:]:
        content = message["content"]
        blocks = [content] if isinstance(content, str) else [b.get("text") or json.dumps(b.get("content")) for b in content]
        texts.append("".join(blocks))
    return texts


def test_a_subagent_cut_off_mid_answer_is_asked_to_go_on_and_its_whole_answer_is_the_report(agent):
    agent.script(call("Agent", description="report", prompt=TASK, subagent_type="general-purpose",
                      run_in_background=False),
                 lambda request: text("Got: " + request.reports()[0].split("\n\n<usage>")[0]))
    agent.route(TASK, cut("FIRST HALF of the rep"), text("WHOLE REPORT, briefly."))
    run = agent.run("Write the report with a subagent.")
    assert run.exit_code == 0, run.stderr
    assert run.stdout.startswith("Got: WHOLE REPORT, briefly.\nagentId: ")
    assert "FIRST HALF" not in run.stdout and "partial" not in run.stdout.lower()
    continued = subagent_requests(run)[1]
    assert user_texts(continued) == [SUBAGENT_RETRIES[0]]
    assert "FIRST HALF of the rep" in json.dumps(continued["messages"][-2])  # its cut-off turn stays


def test_a_subagent_still_cut_off_after_three_continuations_ends_on_the_error(agent):
    agent.script(call("Agent", description="report", prompt=TASK, subagent_type="general-purpose",
                      run_in_background=False),
                 lambda request: text("Got: " + request.tool_results()[0]))
    agent.route(TASK, cut("P1"), cut("P2"), cut("P3"), cut("P4"))
    run = agent.run("Write the report with a subagent.")
    assert run.exit_code == 0, run.stderr
    assert run.stdout.replace("Got: Error: ", "Got: ") == (  # the chat wire marks an error result in its text
        "Got: Agent terminated early due to an API error: API Error: Claude's response exceeded the 32000 output "
        "token maximum. To configure this behavior, set the CLAUDE_CODE_MAX_OUTPUT_TOKENS environment variable. "
        "(error type max_output_tokens)\n")
    sent = subagent_requests(run)
    assert len(sent) == 4
    assert user_texts(sent[-1]) == [*SUBAGENT_RETRIES, RESUME]


def test_the_main_conversation_is_reminded_to_resume_three_times_then_ends_cut_off(agent):
    agent.script(cut("M1"), cut("M2"), cut("M3"), cut("M4"))
    run = agent.run("Write a long essay")
    assert run.exit_code == 1
    assert run.stdout == "M4\n"
    assert "cut off at the output limit" in run.stderr
    assert len(run.payloads) == 4
    assert user_texts(run.payloads[-1]) == [RESUME] * 3


def test_the_main_conversation_resumed_once_answers_with_the_rest(agent):
    agent.script(cut("The first five primes are 2, 3,"), text("5, 7 and 11."))
    run = agent.run("List the first five primes")
    assert (run.exit_code, run.stdout) == (0, "5, 7 and 11.\n")
    assert user_texts(run.payloads[1]) == [RESUME]

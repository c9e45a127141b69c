"""What a subagent's caller sees of its finished run: the report, whether it is complete, the
agentId line that lets the caller continue it (SendMessage) and the usage footer. The Agent tool
and SendMessage both answer with it."""

from __future__ import annotations

from typing import Sequence

from agent.conversation import Stop


def agent_id_line(agent_id: str) -> str:
    """The line Claude Code adds to a resumable agent's result."""
    return (f"agentId: {agent_id} (use SendMessage with to: '{agent_id}', summary: '<5-10 word recap>' "
            "to continue this agent)")


def _incomplete(result) -> str | None:
    """Why a subagent's report is not a finished answer (other than its turn limit), or None."""
    return {
        Stop.MAX_TOKENS: "was cut off at the output token limit",
        Stop.REFUSAL: "refused to go on",
        Stop.CONTEXT_EXCEEDED: "filled its model's context window",
    }.get(result.stop_reason)


def format_result(kind: str, agent_id: str, result, resumable: bool, extra: Sequence[str] = ()) -> str:
    """The tool result of the `kind` agent `agent_id`'s run: a turn-limit note in Claude Code's
    words (which, for an agent that can be continued, says a message lets it go on) or our note
    for another unfinished ending, the report, the agentId line when `resumable`, the `extra`
    lines (a kept worktree's path and branch), and usage."""
    report = result.text.strip()
    if result.subtype == "error_max_budget_usd":  # the whole run stops too, before its next request
        report = f"[partial result: the {kind} agent stopped when the run reached its --max-budget-usd budget]\n{report}"
    elif result.is_error:
        note = (f"NOTE: this agent stopped at its {result.turns}-turn limit before finishing. The text below is "
                "PARTIAL output; treat it as incomplete.")
        if resumable:
            note += " Send the agent a message (SendMessage) to let it continue from where it stopped."
        report = f"{note}\n{report}"
    elif why := _incomplete(result):
        report = f"[partial result: the {kind} agent {why} before finishing]\n{report}"
    lines = ([report, agent_id_line(agent_id)] if resumable else [report]) + list(extra)
    usage = result.usage
    footer = f"<usage>turns: {result.turns}, input_tokens: {usage.input_tokens}, output_tokens: {usage.output_tokens}</usage>"
    return "\n".join(lines) + "\n\n" + footer

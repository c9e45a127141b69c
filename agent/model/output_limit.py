"""A reply cut off at the output limit with text and no tool calls: the model is asked to go on, as
Claude Code 2.1.332 asks it (seen against a scripted model), and the error the agent ends on once
those continuations are used up.

Claude Code continues three times. The main conversation gets the same reminder each time; a
subagent is first told that its caller gets no answer in pieces (twice, the second time asking for
at most half the length), then gets the main conversation's reminder. After a fourth cut-off the
main conversation ends on the cut-off answer (agent.cli.output says so), and a subagent ends on
`OutputLimitReached`: its caller gets that error, not the pieces.
"""

from __future__ import annotations

from typing import Any

from agent.errors import ProviderError

MAX_CONTINUATIONS = 3
RESUME = ("<system-reminder>\nOutput token limit hit. Resume directly \u2014 no apology, no recap of what you were "
          "doing. Pick up mid-thought if that is where the cut happened. Break remaining work into smaller "
          "pieces.\n</system-reminder>")
SUBAGENT_RETRIES = (
    "Output token limit hit. Your caller does not receive an answer in pieces. If you were giving your final "
    "answer, give the whole answer again, more briefly \u2014 no apology, no mention of the cut-off. Otherwise "
    "continue the work in smaller pieces.",
    "Output token limit hit again. Your caller does not receive an answer in pieces. If you were giving your final "
    "answer, give the whole answer in at most half the length of your last attempt: keep every item and cut the "
    "detail. Do not shorten text that must stay exact, such as code, data or translations. If it cannot be made "
    "that short, say so in your first line, then give what fits. If you were not giving your final answer, "
    "continue the work in smaller pieces.",
)


def continuation(depth: int, used: int) -> dict[str, Any]:
    """The user turn asking an agent at `depth` (0: the main conversation) to go on after its
    `used`-th cut-off (1 to MAX_CONTINUATIONS)."""
    text = SUBAGENT_RETRIES[used - 1] if depth > 0 and used <= len(SUBAGENT_RETRIES) else RESUME
    return {"role": "user", "content": [{"type": "text", "text": text}]}


class OutputLimitReached(ProviderError):
    """A subagent's reply was still cut off at the output limit after every continuation."""

    def __init__(self, max_tokens: int):
        super().__init__(f"API Error: Claude's response exceeded the {max_tokens} output token maximum. To configure "
                         "this behavior, set the CLAUDE_CODE_MAX_OUTPUT_TOKENS environment variable.")

    def ended(self) -> str:
        """The error result its caller gets, in Claude Code's words."""
        return f"Agent terminated early due to an API error: {self} (error type max_output_tokens)"

"""--fallback-model: when a model cannot answer (overloaded, or not found), which failure that was,
and the words Claude Code uses for the switch.

The client raises `ModelUnavailable` for such a failure (a ProviderError: without a fallback it
ends the run as any provider error does); the loop catches it and sends the request again on the
fallback model, for the rest of that turn (`agent.loop`).
"""

from __future__ import annotations

import re

from agent.errors import ProviderError

OVERLOADED = "overloaded"
NOT_FOUND = "model_not_found"
# Claude Code tries an overloaded model three times before it switches to the fallback (without
# one, it goes on retrying); a model that is not found is switched from at once.
OVERLOADED_ATTEMPTS = 3
OVERLOADED_STATUS = 529
NOT_FOUND_STATUS = 404


class ModelUnavailable(ProviderError):
    """A request its model could not answer: `trigger` is OVERLOADED (529 after the retries) or
    NOT_FOUND (404), as the `model_fallback` line names it."""

    def __init__(self, message: str, trigger: str):
        super().__init__(message)
        self.trigger = trigger


def trigger_for(status: int | None) -> str | None:
    """The fallback trigger of a failed request's HTTP status (an embedded one included), or None."""
    return {OVERLOADED_STATUS: OVERLOADED, NOT_FOUND_STATUS: NOT_FOUND}.get(status)


_FAMILY_FIRST = re.compile(r"claude-(haiku|sonnet|opus)-(\d+)(?:[-.](\d{1,2}))?(?:-\d{8})?")
_VERSION_FIRST = re.compile(r"claude-(\d+)(?:[-.](\d))?-(haiku|sonnet|opus)(?:-\d{8})?")


def display_name(model: str) -> str:
    """How Claude Code names a model to people: `claude-haiku-4-5` and `anthropic/claude-haiku-4.5`
    are "Haiku 4.5", `claude-3-5-sonnet-20241022` is "Sonnet 3.5"; any other id is shown as it is."""
    bare = model.rsplit("/", 1)[-1]
    if match := _FAMILY_FIRST.fullmatch(bare):
        family, major, minor = match.groups()
    elif match := _VERSION_FIRST.fullmatch(bare):
        major, minor, family = match.groups()
    else:
        return model
    return f"{family.capitalize()} {major}" + (f".{minor}" if minor else "")


def switch_line(trigger: str, original: str, fallback: str) -> dict[str, str]:
    """The fields of Claude Code's `system` `model_fallback` line for a switch from `original`."""
    to, was = display_name(fallback), display_name(original)
    reason = f"due to high demand for {was}" if trigger == OVERLOADED else f"because {was} is not available"
    return {"subtype": "model_fallback", "trigger": trigger, "original_model": original, "fallback_model": fallback,
            "content": f"Switched to {to} {reason}"}

"""`/compact` in interactive mode, driven through a pseudo-terminal as a person drives it: one
summary request, and the next prompt goes on from the summary (both wires: the `start` fixture)."""

from __future__ import annotations

import json

import pytest

from compaction_replies import summary
from pty_session import start  # noqa: F401 (start is the fixture these tests use)
from scripted_model import call, text


@pytest.mark.parametrize("provider", ["openrouter", "anthropic"])
def test_compact_at_the_prompt_summarises_and_the_next_turn_starts_from_it(model, start, provider):
    model.script(call("Bash", command="echo first-step"), text("FIRST-ANSWER"),
                 summary("SUMMARY-INTERACTIVE"), text("SECOND-ANSWER"))
    session = start(provider=provider)
    session.ready()
    session.send("Echo a step")
    session.expect("FIRST-ANSWER")
    session.ready()
    session.send("/compact keep the steps")
    session.expect("compacting the conversation")
    session.ready()
    session.send("Go on")
    session.expect("SECOND-ANSWER")
    session.ready()
    session.send("/exit")
    assert session.end() == 0
    asked, continued = (json.dumps(request.body) for request in model.requests[2:4])
    assert "Additional Instructions:\\nkeep the steps" in asked and "first-step" in asked
    assert "This session is being continued" in continued and "SUMMARY-INTERACTIVE" in continued
    assert "FIRST-ANSWER" in continued and "first-step" not in continued
    assert "<command-name>/compact</command-name>" in continued

"""README's example: a small Agent SDK application tested offline against a cassette. The
application is unchanged between the recording and its replays; only `extra_args` differs."""

from __future__ import annotations

import asyncio

from scripted_model import call, text
from sdk_app.summarise import summarise
from sdk_session import CLI


def test_an_sdk_application_is_tested_offline_against_its_cassette(agent):
    agent.write("notes.md", "The release moves to Thursday; the freeze starts Monday.\n")
    agent.script(call("Read", file_path=str(agent.workspace / "notes.md")),
                 text("The release moves to Thursday, after a freeze from Monday."))
    cassette, mode = agent.next_cassette()
    answer = asyncio.run(summarise("notes.md", str(CLI), str(agent.workspace), {mode: str(cassette)}))
    assert answer == "The release moves to Thursday, after a freeze from Monday."
    # the same application replays its recording with nothing run and no network, in an empty folder
    empty = agent.workspace.parent / "elsewhere"
    empty.mkdir()
    again = asyncio.run(summarise("notes.md", str(CLI), str(empty), {"replay": str(cassette), "replay-tools": None}))
    assert again == answer

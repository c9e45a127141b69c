"""A session the Agent SDK recorded, replayed offline three ways, on both wires: through the SDK
again (`extra_args={"replay": path}`: the tools run for real), through the SDK with
`"replay-tools"` too (nothing runs: the tools' effects stay out of the folder), and without the SDK,
as a user replays any cassette (`--replay x.yaml`: the recorded prompts are sent again)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from claude_agent_sdk import ClaudeAgentOptions, ClaudeSDKClient, ResultMessage

from scripted_model import call, text
from sdk_session import CLI, sdk_options

FIRST, SECOND = "Write hello.txt saying HELLO-3381.", "What does hello.txt say?"


def two_turns(options) -> list[str]:
    """The SDK application under test: two turns of one ClaudeSDKClient conversation; their answers."""

    async def run():
        answers = []
        async with ClaudeSDKClient(options) as client:
            for prompt in (FIRST, SECOND):
                await client.query(prompt)
                answers += [m.result async for m in client.receive_response() if isinstance(m, ResultMessage)]
        return answers

    return asyncio.run(asyncio.wait_for(run(), 60))


def replaying(cassette: Path, folder: Path, stderr: list[str], *more: str) -> ClaudeAgentOptions:
    """The options of the same application replaying `cassette` in `folder`."""
    return ClaudeAgentOptions(cli_path=str(CLI), cwd=str(folder), stderr=stderr.append,
                              extra_args={"replay": str(cassette), **{flag: None for flag in more}})


def folder(agent, name: str) -> Path:
    path = agent.workspace.parent / name
    path.mkdir()
    return path


def test_an_sdk_session_replays_through_the_sdk_and_without_it(agent):
    agent.script(call("Write", file_path="hello.txt", content="HELLO-3381\n"), text("Wrote hello.txt."),
                 call("Read", file_path="hello.txt"),
                 lambda request: text("hello.txt says " + request.tool_results()[0].split("\t")[-1].strip()))
    stderr: list[str] = []
    options, cassette = sdk_options(agent, stderr, allowed_tools=["Write", "Read"])
    answers = two_turns(options)
    assert answers == ["Wrote hello.txt.", "hello.txt says HELLO-3381"], stderr
    assert (agent.workspace / "hello.txt").read_text() == "HELLO-3381\n"

    # the SDK replays it in a new folder: no model, the tools run for real
    regression, later = folder(agent, "regression"), []
    assert two_turns(replaying(cassette, regression, later)) == answers, later
    assert (regression / "hello.txt").read_text() == "HELLO-3381\n"
    agent.drifted(cassette, "\n".join(later))

    # with replay-tools nothing runs: the answers are the same, and the file is never written
    untouched, quiet = folder(agent, "untouched"), []
    assert two_turns(replaying(cassette, untouched, quiet, "replay-tools")) == answers, quiet
    assert list(untouched.iterdir()) == []
    agent.drifted(cassette, "\n".join(quiet))

    # and a user replays the same cassette without the SDK: its two prompts are sent again
    by_hand = folder(agent, "by-hand")
    run = agent.replay(cwd=by_hand)
    assert run.exit_code == 0 and run.stdout == "hello.txt says HELLO-3381\n", run.stderr
    assert (by_hand / "hello.txt").read_text() == "HELLO-3381\n"
    offline = folder(agent, "offline")
    run = agent.replay("--replay-tools", cwd=offline)
    assert run.exit_code == 0 and run.stdout == "hello.txt says HELLO-3381\n", run.stderr
    assert list(offline.iterdir()) == []

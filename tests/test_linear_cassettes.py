"""Cassettes that grow linearly with the session: each agent's first request whole, each later one
as what it adds (`agent.record.deltas`). Long sessions on both wires record, replay in both modes,
name a drift in their last request, rebuild every request exactly, and stay within three times the
new content the model was sent; cassettes written in the old, whole form still replay."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import yaml

from agent import cli
from agent.record.cassette_file import read
from conftest import CASSETTES, REPO
from scripted_model import Call, call, calls, text

TURNS = 60
PAGE = "".join(f"line {n:03d} of a two-kilobyte page of notes, padded to width.\n" for n in range(32))[:2048]


def long_session(agent, turns: int = TURNS):
    for number in range(turns):
        agent.write(f"notes/page-{number:03d}.txt", PAGE.replace("notes", f"notes {number}"))
    agent.script(*[call("Read", file_path=f"notes/page-{number:03d}.txt") for number in range(turns)],
                 text(f"Read all {turns} pages."))
    return agent.run(f"Read notes/page-000.txt to notes/page-{turns - 1:03d}.txt one at a time, then say how many.",
                     "--trace", str(agent.workspace.parent / "trace.jsonl"))


def new_content_bytes(bodies: list[dict]) -> int:
    """What the model was sent for the first time: each request's messages beyond the longest
    prefix it shares with the previous one, the first request whole (as JSON text)."""
    total, previous = 0, None
    for body in bodies:
        if previous is None:
            total += len(json.dumps(body, ensure_ascii=False))
        else:
            shared = 0
            while shared < min(len(previous), len(body["messages"])) and previous[shared] == body["messages"][shared]:
                shared += 1
            total += sum(len(json.dumps(m, ensure_ascii=False)) for m in body["messages"][shared:])
        previous = body["messages"]
    return total


def test_a_long_session_is_stored_as_deltas_within_three_times_its_new_content(agent):
    run = long_session(agent)
    assert run.exit_code == 0 and run.stdout == f"Read all {TURNS} pages.\n"
    raw = yaml.safe_load(run.cassette.read_text())["interactions"]
    assert "body" in raw[0]["request"] and all("body_delta" in item["request"] for item in raw[1:])
    assert all(item["request"]["body_delta"]["base"] == number for number, item in enumerate(raw[1:], 1))
    bodies = [item.request for item in read(str(run.cassette)).interactions]
    assert len(bodies) == TURNS + 1 and bodies[-1]["messages"][-1]
    assert run.cassette.stat().st_size <= 3 * new_content_bytes(bodies)


def test_every_request_rebuilds_exactly_as_it_was_sent(agent, capsys):
    run = long_session(agent, turns=12)
    # the trace holds the exact payloads this run sent (recording, or replaying what matched them)
    sent = [json.loads(line)["request"] for line in (agent.workspace.parent / "trace.jsonl").read_text().splitlines()]
    assert len(sent) == 13
    for number, payload in enumerate(sent, 1):
        capsys.readouterr()
        assert cli.main(["cassette", "show", str(run.cassette), "--request", str(number), "--raw"]) == 0
        shown = capsys.readouterr().out
        expected = json.dumps(payload, ensure_ascii=False, indent=2).replace(str(agent.workspace), "{{workspace}}")
        assert shown == expected + "\n"
    bodies = [item.request for item in read(str(run.cassette)).interactions]
    assert [len(body["messages"]) for body in bodies][:3] == ([2, 4, 6] if agent.provider == "openrouter" else [1, 3, 5])


def test_a_long_session_replays_in_both_modes_and_names_a_drift_in_its_last_request(agent, tmp_path):
    long_session(agent)
    assert agent.replay().exit_code == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    quiet = agent.replay("--replay-tools", cwd=elsewhere)
    assert (quiet.exit_code, quiet.stdout) == (0, f"Read all {TURNS} pages.\n"), quiet.stderr
    last = agent.workspace / f"notes/page-{TURNS - 1:03d}.txt"
    last.write_text(last.read_text().replace("line 031", "line thirty-one"))
    drifted = agent.replay()
    assert drifted.exit_code == 1
    assert f"request {TURNS + 1} differs from the cassette" in drifted.stderr and "line thirty-one" in drifted.stderr


def test_subagents_in_the_middle_and_in_parallel_have_their_own_deltas(agent):
    agent.agent_file("counter.md", "counter", "Counts lines of a file.", "You count lines. Answer with the number.")
    agent.write("a.txt", "1\n2\n")
    agent.write("b.txt", "1\n2\n3\n")
    agent.script(
        call("Read", file_path="a.txt"),
        calls(Call("Agent", {"description": "Count a", "prompt": "Count the lines of a.txt.", "subagent_type": "counter", "run_in_background": False}),
              Call("Agent", {"description": "Count b", "prompt": "Count the lines of b.txt.", "subagent_type": "counter", "run_in_background": False})),
    )
    agent.route("Count the lines of a.txt.", call("Read", file_path="a.txt"), text("2"))
    agent.route("Count the lines of b.txt.", call("Read", file_path="b.txt"), text("3"))
    agent.script(call("Read", file_path="b.txt"), text("a.txt has 2 lines and b.txt has 3."))
    run = agent.run("Use the counter agent on a.txt and b.txt at once.")
    assert (run.exit_code, run.stdout) == (0, "a.txt has 2 lines and b.txt has 3.\n"), run.stderr
    raw = yaml.safe_load(run.cassette.read_text())["interactions"]
    agents = [item.get("agent") for item in raw]
    assert agents.count("counter") == 4 and agents[0] == agents[-1] == "main"
    for number, item in enumerate(raw, 1):
        found = item["request"].get("body_delta")
        if found is not None:  # a delta builds on an earlier request of the same agent
            assert raw[found["base"] - 1].get("agent") == item.get("agent") and found["base"] < number
    counters = [item["request"] for item in raw if item.get("agent") == "counter"]
    assert sum("body" in request for request in counters) >= 1  # a conversation of its own starts whole
    assert agent.replay("--replay-tools").exit_code == 0
    assert agent.replay().exit_code == 0


def test_a_cassette_in_the_old_whole_form_still_replays(tmp_path, monkeypatch, capsys):
    """Written before deltas (every request whole), as teams' committed cassettes are."""
    workspace, home = tmp_path / "ws", tmp_path / "home"
    shutil.copytree(CASSETTES / "demo" / "workspace", workspace)
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(workspace)
    for wire in ("openrouter", "anthropic"):
        old = CASSETTES / "old_form" / f"reviewer-{wire}.yaml"
        assert "body_delta" not in old.read_text()
        capsys.readouterr()
        assert cli.main(["--replay", str(old), "--replay-tools", "--trust-workspace"]) == 0, capsys.readouterr().err
        assert "stats.py:11" in capsys.readouterr().out
    assert (REPO / "cassettes" / "old_form").is_dir()


def test_a_delta_that_points_nowhere_is_one_line_naming_the_cassette(agent, tmp_path, capsys):
    run = long_session(agent, turns=3)
    broken = tmp_path / "broken.yaml"
    broken.write_text(run.cassette.read_text().replace("base: 2", "base: 7", 1))
    capsys.readouterr()
    assert cli.main(["cassette", "show", str(broken)]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"error: cassette {broken}: interaction 3: the request's body: its body_delta base")
    assert error.count("\n") == 1


def test_a_small_file_of_deltas_cannot_ask_for_gigabytes(tmp_path, capsys):
    """Each delta may keep every message of its base: 30,000 of them keeping 1,000 messages each
    would list thirty million; the cassette is refused before anything is rebuilt."""
    first = {"request": {"method": "POST", "uri": "http://x/v1/messages", "headers": {},
                         "body": {"model": "m", "messages": [{"role": "user", "content": "hi"}] * 1000}},
             "response": {"status": {"code": 200, "message": "OK"}, "headers": {}, "body": {"string": "{}"}}}
    lines = ["version: 1", "interactions:", "- " + json.dumps(first)]
    lines += ["- " + json.dumps({**first, "request": {**first["request"], "body": None,
                                                       "body_delta": {"base": 1, "messages_kept": 1000, "messages": []}}})] * 30_000
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("\n".join(lines) + "\n")
    capsys.readouterr()
    assert cli.main(["cassette", "show", str(bomb)]) == 2
    assert "repeat more than 20,000,000 messages in all" in capsys.readouterr().err

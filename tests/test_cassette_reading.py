"""Reading recordings: `cassette show` on every cassette the agent writes (streamed replies
included), one request with `show --request N [--raw]`, and two recordings compared with
`cassette diff A B` (under the match rules), on both wire formats."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import yaml

from agent import cli
from scripted_model import call, raw, text

STREAMED = ("--output-format", "stream-json", "--verbose", "--include-partial-messages")


def cassette(capsys, *args: str) -> tuple[int, str, str]:
    """`your_program.sh cassette *args`, in-process: exit code, stdout, stderr."""
    capsys.readouterr()
    code = cli.main(["cassette", *args])
    out, err = capsys.readouterr()
    return code, out, err


def recorded_bodies(path: Path) -> list:
    """The request bodies as the file holds them, read with plain YAML (not our reader): a whole
    `body`, or a `body_delta` applied to the request it names, as README describes the form."""
    bodies: list = []
    for item in yaml.safe_load(path.read_text())["interactions"]:
        request = item["request"]
        if "body_delta" not in request:
            bodies.append(request["body"])
            continue
        change = request["body_delta"]
        base = bodies[change["base"] - 1]
        body = {key: value for key, value in base.items() if key not in change.get("removed", [])}
        body.update(change.get("changed", {}))
        body["messages"] = base["messages"][:change["messages_kept"]] + change["messages"]
        bodies.append(body)
    return bodies


def test_show_reads_a_streamed_recording(agent, capsys):
    agent.write("note.txt", "kumquat\n")
    agent.script(call("Read", "Let me read it.", file_path="note.txt"), text("It says kumquat, a small citrus fruit."))
    if agent.recording:
        assert agent.run("Read note.txt.", *STREAMED).exit_code == 0
    path = agent.cassette_path(1)
    assert path.read_text().count("text/event-stream") == 2  # each reply was recorded as a stream

    code, out, err = cassette(capsys, "show", str(path))
    assert (code, err) == (0, ""), err
    assert "not a JSON object" not in out
    assert "request 1 · main · " in out and " out tokens" in out
    assert '  Let me read it.\n  → Read(file_path="note.txt")\n    ← kumquat' in out
    assert "answer    It says kumquat, a small citrus fruit." in out

    code, out, err = cassette(capsys, "show", str(path), "--json")
    session = json.loads(out)
    assert [turn["stop_reason"] for turn in session["requests"]] == ["tool_use", "end_turn"]
    assert session["requests"][0]["tool_calls"][0]["input"] == {"file_path": "note.txt"}
    assert session["usage"]["output_tokens"] > 0

    code, out, err = cassette(capsys, "show", str(path), "--request", "2")
    assert (code, err) == (0, ""), err
    assert out.startswith("request 2 of 2 · main · model ")
    assert "\nsystem\n  You are agent, a coding assistant" in out
    assert ("\ntools     Read, Write, Edit, Bash, Glob, Grep, NotebookEdit, WebFetch, WebSearch, TaskCreate, TaskGet, "
            "TaskList, TaskUpdate, TaskStop, Agent, SendMessage\n") in out
    assert "\nmessage 1 · user\n  Read note.txt.\n" in out
    assert '\nmessage 2 · assistant\n  Let me read it.\n  → Read(file_path="note.txt") [' in out
    tool_role = "tool" if agent.provider == "openrouter" else "user"  # chat's tool message, or a tool_result block
    assert f"\nmessage 3 · {tool_role}\n  ← Read result [" in out and "]\n    kumquat\n" in out
    assert "\nreply · HTTP 200 · stop end_turn · " in out and out.endswith("\n  It says kumquat, a small citrus fruit.\n")


def test_show_still_reads_an_html_error_reply(agent, capsys):
    agent.script(raw("<html><body>Bad request</body></html>", status=400, content_type="text/html"))
    if agent.recording:
        assert agent.run("Say hi.", *STREAMED).exit_code == 1
    code, out, err = cassette(capsys, "show", str(agent.cassette_path(1)))
    assert (code, err) == (0, ""), err
    assert "request 1 · main · HTTP 400: " in out and "Bad request" in out
    code, out, _ = cassette(capsys, "show", str(agent.cassette_path(1)), "--request", "1")
    assert "\nreply · HTTP 400: " in out and "Bad request" in out


def test_show_request_raw_prints_exactly_the_body_sent(agent, capsys):
    agent.write("a.txt", "alpha\n")
    agent.script(call("Read", file_path="a.txt"), text("It holds alpha."))
    if agent.recording:
        assert agent.run("What is in a.txt?").exit_code == 0
    path = agent.cassette_path(1)

    code, out, err = cassette(capsys, "show", str(path), "--request", "2", "--raw")
    assert code == 0
    assert json.loads(out) == recorded_bodies(path)[1]
    assert out == json.dumps(recorded_bodies(path)[1], ensure_ascii=False, indent=2) + "\n"
    assert "{{workspace}}" in out  # the folders as the file holds them, and one line says so
    assert err == "note: folders are shown as the cassette holds them: {{workspace}}\n"

    code, out, err = cassette(capsys, "show", str(path), "--request", "1", "--json")
    exchange = json.loads(out)
    assert exchange["request"] == recorded_bodies(path)[0]
    assert (exchange["agent"], exchange["status"]) == ("main", 200)
    assert exchange["response"] == yaml.safe_load(path.read_text())["interactions"][0]["response"]["body"]["string"]

    for args, words in [
        (["--request", "9"], "holds 2 requests: --request takes 1 to 2, not 9"),
        (["--request", "0"], "--request takes 1 to 2, not 0"),
        (["--raw"], "give --request N"),
        (["--request", "1", "--raw", "--json"], "not both"),
        (["--request", "two"], "invalid int value"),
    ]:
        code, out, err = cassette(capsys, "show", str(path), *args)
        assert (code, out) == (2, ""), args
        assert err.startswith("error: ") and words in err and err.count("\n") == 1, err


def record_twice(agent, description: str, other: str) -> tuple[Path, Path]:
    """The same session recorded twice, the skill `release-notes` described first as `description`
    and then as `other`."""
    skill = agent.skill("release-notes", description, "List the changes since the last tag.")
    agent.write("CHANGES.txt", "- faster start\n")
    for current in (description, other):
        skill.write_text(skill.read_text().replace(description, current))
        agent.script(call("Read", file_path="CHANGES.txt"), text("One change: a faster start."))
        if agent.recording:
            assert agent.run("What changed?").exit_code == 0
        skill.write_text(skill.read_text().replace(current, description))
    return agent.cassette_path(1), agent.cassette_path(2)


def test_diff_names_the_paths_where_two_recordings_differ(agent, capsys, tmp_path):
    a, b = record_twice(agent, "Use this skill to write release notes.", "Use this skill to write release notes for the team.")

    code, out, err = cassette(capsys, "diff", str(a), str(a))
    assert (code, err) == (0, ""), err
    assert out == f"identical: {a} and {a} have the same setup and send the same 2 requests\n"

    code, out, err = cassette(capsys, "diff", str(a), str(b))
    assert code == 1, err
    # the catalog is in the system prompt: the chat wire's first message, or the Messages API's `system`
    where = "$.messages[0].content[0].text" if agent.provider == "openrouter" else "$.system[0].text"
    lines = out.splitlines()
    assert lines[:3] == [f"A  {a}", f"B  {b}", "request 1 · main"]
    assert lines[3].startswith(f"  {where}: A ") and ", B " in lines[3]
    was, now = lines[3].split(", B ")
    assert "write release notes." in was and "for the team" not in was and "write release notes for the team." in now
    # the second request also carries the first reply's tool call, whose id each recording drew anew
    call_id = "tool_calls[0].id" if agent.provider == "openrouter" else "content[0].id"
    assert lines[4] == "request 2 · main" and lines[5].startswith(f"  {where}") and call_id in lines[6]
    assert len(lines) == 9 and lines[-1] == "differ: 2 of 2 requests"  # three paths at most per request
    assert not any(line.startswith("setup.") for line in lines)  # the same prompt and options

    # a skill's catalog entry is the user's own: --match content still compares it
    assert cassette(capsys, "diff", str(a), str(b), "--match", "content")[0] == 1
    # ignoring the path, or scrubbing the words away, with the call ids, hides the change
    ids = "(toolu|call)_[0-9]+_[0-9]+=<id>"
    assert cassette(capsys, "diff", str(a), str(b), "--ignore", where.removesuffix("[0].text"), "--scrub", ids)[:2] == (
        0, f"identical: {a} and {b} have the same setup and send the same 2 requests under the match rules\n")
    assert cassette(capsys, "diff", str(a), str(b), "--scrub", " for the team", "--scrub", ids)[0] == 0
    assert cassette(capsys, "diff", str(a), str(b), "--scrub", ids)[0] == 1
    # the same rules written in a cassette's own match section
    owned = tmp_path / "owned.yaml"
    data = yaml.safe_load(b.read_text())
    data["match"] = {"ignore": [where.removesuffix("[0].text")], "scrub": [{"pattern": ids.split("=")[0], "replacement": "<id>"}]}
    owned.write_text(yaml.safe_dump(data, sort_keys=False))
    assert cassette(capsys, "diff", str(a), str(owned))[0] == 0

    # a request only one recording holds
    shorter = tmp_path / "shorter.yaml"
    data = yaml.safe_load(a.read_text())
    data["interactions"] = data["interactions"][:1]
    shorter.write_text(yaml.safe_dump(data, sort_keys=False))
    code, out, _ = cassette(capsys, "diff", str(a), str(shorter))
    assert code == 1 and "request 2 of A · main: only in A\n" in out and out.endswith("differ: 1 of 2 requests\n")

    code, out, err = cassette(capsys, "diff", str(a), str(b), "--ignore", "system")
    assert (code, out) == (2, "") and "must start with $" in err and err.count("\n") == 1
    code, out, err = cassette(capsys, "diff", str(a), str(tmp_path / "missing.yaml"))
    assert (code, out) == (2, "") and "cassette not found" in err


def test_diff_under_match_content_hides_a_change_of_our_instructions(agent, capsys, tmp_path):
    agent.script(text("Hello."))
    if agent.recording:
        assert agent.run("Say hello.").exit_code == 0
    a = agent.cassette_path(1)
    upgraded = tmp_path / "upgraded.yaml"  # as a newer agent would send it: one word of its instructions changed
    original = "You are agent, a coding assistant"
    assert original in a.read_text()
    upgraded.write_text(a.read_text().replace(original, "You are agent, a careful coding assistant"))

    code, out, _ = cassette(capsys, "diff", str(a), str(upgraded))
    assert code == 1 and "a careful coding assistant" in out
    code, out, _ = cassette(capsys, "diff", str(a), str(upgraded), "--match", "content")
    assert (code, out) == (0, f"identical: {a} and {upgraded} have the same setup and send the same 1 request under the match rules\n")


def test_diff_pairs_requests_by_position_within_each_agent(agent, capsys, tmp_path):
    agent.write("notes.txt", "one\ntwo\n")
    agent.script(
        call("Agent", description="Count lines", prompt="Count the lines of notes.txt.", subagent_type="Explore", run_in_background=False),
        call("Bash", command="wc -l notes.txt"),  # the subagent
        text("notes.txt has 2 lines."),
        text("It has 2 lines."),
    )
    if agent.recording:
        assert agent.run("How long is notes.txt?").exit_code == 0
    a = agent.cassette_path(1)
    data = yaml.safe_load(a.read_text())
    assert [item["agent"] for item in data["interactions"]] == ["main", "Explore", "Explore", "main"]
    # the same requests, the agents' turns interleaved otherwise (as parallel subagents may be),
    # each written whole (a delta names the place of its base, which the reordering moves)
    for item, body in zip(data["interactions"], recorded_bodies(a)):
        item["request"] = {**{k: v for k, v in item["request"].items() if k != "body_delta"}, "body": body}
    data["interactions"] = [data["interactions"][i] for i in (0, 3, 1, 2)]
    interleaved = tmp_path / "interleaved.yaml"
    interleaved.write_text(yaml.safe_dump(data, sort_keys=False))
    code, out, _ = cassette(capsys, "diff", str(a), str(interleaved))
    assert (code, out) == (0, f"identical: {a} and {interleaved} have the same setup and send the same 4 requests\n")

    shutil.copy(interleaved, tmp_path / "changed.yaml")
    changed = tmp_path / "changed.yaml"
    changed.write_text(changed.read_text().replace("Count the lines of notes.txt.", "Count the words of notes.txt."))
    code, out, _ = cassette(capsys, "diff", str(a), str(changed))
    assert code == 1
    assert "request 2 of A, 3 of B · subagent Explore\n" in out and "request 3 of A, 4 of B · subagent Explore\n" in out
    assert "Count the words" in out


def test_a_reader_that_leaves_early_ends_show_quietly(tmp_path):
    """`cassette show ... | head`: the rest is not wanted, and that is no error (no traceback)."""
    import subprocess

    from conftest import REPO

    big = REPO / "cassettes" / "bad_input" / "test_a_one_megabyte_prompt_is_sent_whole-openrouter.yaml"
    shown = subprocess.run(f"'{REPO / 'your_program.sh'}' cassette show --request 1 --raw '{big}' | head -c 10",
                           shell=True, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert shown.stdout == '{\n  "model'
    assert "Error" not in shown.stderr and "Traceback" not in shown.stderr, shown.stderr

"""How a recorded run ended, checked: the setup records each prompt's outcome and the exit code;
`cassette check` reports a recording of a failed run (and `--require-success` fails it); the
user's `expect` section is checked on every replay; `cassette record` records a cassette again
from its setup, keeping the user's sections. Both wire formats, through the real CLI in-process."""

from __future__ import annotations

import logging
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from agent import cli
from agent.record.cassette_file import read as read_cassette, to_yaml
from conftest import BASES, KEYS
from scripted_model import ScriptedModel, call, fail, text


@pytest.fixture(autouse=True)
def agent_log_kept():
    """`cassette check` in-process quiets the agent's log to errors: later tests of this worker
    that read its warnings get it back as it was."""
    logger = logging.getLogger("agent")
    level, handlers, propagate = logger.level, list(logger.handlers), logger.propagate
    yield
    logger.setLevel(level)
    logger.handlers[:] = handlers
    logger.propagate = propagate


def cassette_command(capsys, *args: str) -> tuple[int, str, str]:
    """`your_program.sh cassette ARGS` in-process: exit code, stdout, stderr."""
    capsys.readouterr()
    code = cli.main(["cassette", *args])
    out, err = capsys.readouterr()
    return code, out, err


def with_sections(source: Path, target: Path, **sections) -> Path:
    """A copy of the cassette `source` with top-level `sections` (expect, match) written beside
    its setup, as a user would add them, in the form every rewrite of the file keeps."""
    data = yaml.safe_load(source.read_text())
    ordered = {key: data[key] for key in ("version", "setup") if key in data}
    ordered |= sections
    ordered |= {key: value for key, value in data.items() if key not in ordered}
    target.write_text(to_yaml(ordered))
    return target


def record_again(capsys, monkeypatch, provider: str, path: Path, *replies) -> tuple[int, str, str]:
    """`cassette record PATH` against a new scripted model serving `replies` (its ids count from 1
    again, as the one a test records against does)."""
    served = ScriptedModel()
    try:
        served.script(*replies)
        monkeypatch.setenv(BASES[provider], served.base + ("/api/v1/" if provider == "openrouter" else ""))
        monkeypatch.setenv(KEYS[provider], "dummy-key")  # each run takes the key out of the environment
        return cassette_command(capsys, "record", str(path))
    finally:
        served.close()


def junit_failures(report: Path) -> list[ET.Element]:
    suite = ET.parse(report).getroot().find("testsuite")
    return [case.find("failure") for case in suite.iter("testcase") if case.find("failure") is not None]


# --- a recording of a failed run ---------------------------------------------------------------------

def test_a_max_turns_recording_checks_ok_with_its_ending_and_fails_under_require_success(agent, capsys, tmp_path):
    agent.write("notes.txt", "alpha\n")
    agent.script(call("Read", "Reading it.", file_path="notes.txt"))
    assert agent.run("What is in notes.txt?", "--max-turns", "1").exit_code == 1
    path = str(agent.cassette_path(1))
    setup = read_cassette(path).setup
    assert (setup["outcomes"], setup["exit_code"]) == ([{"subtype": "error_max_turns", "answer": "Reading it."}], 1)

    code, out, _ = cassette_command(capsys, "check", path)
    assert (code, out) == (0, f"ok    {path} (recorded run ended in error_max_turns)\n")

    report = tmp_path / "report.xml"
    code, out, err = cassette_command(capsys, "check", path, "--require-success", "--junit", str(report))
    assert (code, out) == (1, f"fail  {path}: the recorded run ended in error_max_turns (--require-success)\n")
    assert "1 cassettes: 0 ok, 0 drifted, 0 errors, 1 failed" in err
    (failure,) = junit_failures(report)
    assert failure.get("type") == "fail" and "error_max_turns" in failure.get("message")


def test_an_http_500_after_retries_recording_checks_ok_with_its_ending_and_fails_under_require_success(
        agent, capsys, monkeypatch):
    monkeypatch.setenv("AGENT_MAX_RETRIES", "1")
    agent.script(fail(500, "the model server fell over"), fail(500, "the model server fell over"))
    run = agent.run("Hi")
    assert run.exit_code == 1 and "HTTP 500 after 1 retry" in run.stderr
    path = str(agent.cassette_path(1))
    setup = read_cassette(path).setup
    assert (setup["outcomes"], setup["exit_code"]) == ([{"subtype": "error_during_execution", "answer": ""}], 1)

    code, out, _ = cassette_command(capsys, "check", path)
    assert (code, out) == (0, f"ok    {path} (recorded run ended in error_during_execution)\n")
    code, out, _ = cassette_command(capsys, "check", path, "--require-success")
    assert (code, out) == (1, f"fail  {path}: the recorded run ended in error_during_execution (--require-success)\n")


def test_a_replay_that_ends_otherwise_than_its_recording_has_drifted(agent, capsys, tmp_path):
    agent.script(text("The answer is 42."))
    assert agent.run("What is the answer?").exit_code == 0
    recorded = agent.cassette_path(1)
    assert read_cassette(str(recorded)).setup["outcomes"] == [{"subtype": "success", "answer": "The answer is 42."}]
    edited = tmp_path / "edited.yaml"
    edited.write_text(recorded.read_text().replace("answer: The answer is 42.", "answer: The answer is 41."))

    code, out, _ = cassette_command(capsys, "check", str(recorded))
    assert (code, out) == (0, f"ok    {recorded}\n")
    code, out, _ = cassette_command(capsys, "check", str(edited))
    assert code == 1 and out.startswith(f"drift {edited}: the run ended in success with the answer 'The answer is 42.'")
    assert "recorded success with the answer 'The answer is 41.'" in out


# --- the expect section --------------------------------------------------------------------------------

MET = {
    "answer_contains": ["Done", "out.txt"],
    "answer_matches": r"wrote \w+\.txt",
    "exit_code": 0,
    "tools_called": ["Read", {"name": "Write", "input_matches": r'"file_path": "out\.txt"'}],
    "files": [{"path": "out.txt", "contains": "beta"}],
}
UNMET = {
    "answer_contains": "zebra",
    "answer_matches": r"^\d+$",
    "exit_code": 1,
    "tools_called": ["Bash", {"name": "Read", "input_matches": r"missing\.txt"}],
    "files": [{"path": "out.txt", "contains": "delta"}],
}
ANSWER = "Done: wrote out.txt with beta."


def _record_a_read_and_a_write(agent) -> Path:
    agent.write("notes.txt", "alpha\n")
    agent.script(call("Read", file_path="notes.txt"), call("Write", file_path="out.txt", content="beta gamma\n"),
                 text(ANSWER))
    assert agent.run("Copy notes.txt to out.txt, changed.").exit_code == 0
    (agent.workspace / "out.txt").unlink()  # each replay below writes it again (or not at all)
    return agent.cassette_path(1)


def test_met_expectations_pass_in_replay_and_in_check(agent, capsys, tmp_path):
    cassette = with_sections(_record_a_read_and_a_write(agent), tmp_path / "met.yaml", expect=MET)

    capsys.readouterr()
    assert cli.main(["--replay", str(cassette)]) == 0  # regression mode: the tools run, out.txt is written
    out, err = capsys.readouterr()
    assert out == ANSWER + "\n" and "error" not in err, err
    assert (agent.workspace / "out.txt").read_text() == "beta gamma\n"

    code, out, _ = cassette_command(capsys, "check", str(cassette))
    assert (code, out) == (0, f"ok    {cassette} (file expectations not checked: with --replay-tools no tool runs)\n")


def test_unmet_expectations_fail_in_replay_and_in_check_one_line_each(agent, capsys, tmp_path):
    cassette = with_sections(_record_a_read_and_a_write(agent), tmp_path / "unmet.yaml", expect=UNMET)
    expected = [
        f"expected answer to contain 'zebra', got '{ANSWER}'",
        f"expected answer to match '^\\\\d+$', got '{ANSWER}'",
        "expected exit code 1, got 0",
        "expected a call of Bash, got calls of Read, Write",
        "expected a call of Read with input matching 'missing\\\\.txt', got 'Read {\"file_path\": \"notes.txt\"}'",
    ]

    capsys.readouterr()
    assert cli.main(["--replay", str(cassette)]) == 1
    out, err = capsys.readouterr()
    assert out == ANSWER + "\n"  # the answer is still printed; each unmet expectation is one line
    assert err.splitlines() == [f"error: {line}" for line in expected] + [
        "error: expected out.txt to contain 'delta', got 'beta gamma\\n'"]

    report = tmp_path / "report.xml"
    code, out, err = cassette_command(capsys, "check", str(cassette), "--junit", str(report))
    assert (code, out.splitlines()) == (1, [f"fail  {cassette}: {line}" for line in expected])  # no file in --replay-tools
    assert "0 ok, 0 drifted, 0 errors, 1 failed" in err
    (failure,) = junit_failures(report)
    assert failure.get("type") == "fail" and failure.get("message").startswith("expected answer to contain 'zebra'")
    assert failure.text.splitlines() == expected


def test_a_file_expectation_reads_nothing_outside_the_workspace(agent, capsys, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("the secret\n")
    source = _record_a_read_and_a_write(agent)
    (agent.workspace / "link.txt").symlink_to(secret)
    cassette = with_sections(source, tmp_path / "leak.yaml", expect={"files": [{"path": "link.txt", "contains": "x"}]})
    capsys.readouterr()
    assert cli.main(["--replay", str(cassette)]) == 1
    err = capsys.readouterr().err
    assert "error: expected link.txt to contain 'x', but it leads out of the workspace" in err
    assert "the secret" not in err


MALFORMED = [
    ([1], "`expect` must be a mapping"),
    ({"answer_contain": "x"}, "unknown key 'answer_contain'"),
    ({"answer_matches": "("}, "`expect.answer_matches` is not a valid regular expression"),
    ({"exit_code": True}, "`expect.exit_code` must be a number"),
    ({"tools_called": [{"name": "Bash", "input_matches": "[z-a]"}]}, "`expect.tools_called` is not a valid regular"),
    ({"files": [{"path": "../outside.txt", "contains": "x"}]}, "`expect.files` must be a list of {path, contains}"),
    ({"files": [{"path": "/etc/passwd", "contains": "root"}]}, "`expect.files` must be a list of {path, contains}"),
]


def test_a_malformed_expect_section_or_outcome_is_a_usage_error_naming_the_file_and_the_key(agent, capsys, tmp_path):
    agent.script(text("hello"))
    assert agent.run("Say hello.").exit_code == 0
    for number, (section, key) in enumerate(MALFORMED):
        cassette = with_sections(agent.cassette_path(1), tmp_path / f"bad-{number}.yaml", expect=section)
        capsys.readouterr()
        assert cli.main(["--replay", str(cassette)]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.startswith(f"error: cassette {cassette}: ") and key in err and err.count("\n") == 1, err

        code, out, _ = cassette_command(capsys, "check", str(cassette))
        assert code == 1 and out.startswith(f"error {cassette}: cassette {cassette}: ") and key in out
    for number, (setup, problem) in enumerate([({"outcomes": "success"}, "`outcomes` must be a list of {subtype, answer}"),
                                                ({"outcomes": [{"subtype": "won", "answer": ""}]}, "subtype success, "),
                                                ({"exit_code": 256}, "`exit_code` must be a number from 0 to 255")]):
        data = yaml.safe_load(agent.cassette_path(1).read_text())
        data["setup"].update(setup)
        cassette = tmp_path / f"bad-setup-{number}.yaml"
        cassette.write_text(to_yaml(data))
        capsys.readouterr()
        assert cli.main(["--replay", str(cassette)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"error: cassette {cassette}: the setup's ") and problem in err, err


# --- cassette record -----------------------------------------------------------------------------------

def test_cassette_record_reproduces_a_scripted_model_cassette_keeping_the_users_sections(
        agent, capsys, tmp_path, monkeypatch):
    agent.write("notes.txt", "alpha\n")
    replies = (call("Read", file_path="notes.txt"), text("notes.txt says alpha."))
    agent.script(*replies)
    assert agent.run("What does notes.txt say?").exit_code == 0
    plain = tmp_path / "plain.yaml"
    shutil.copy(agent.cassette_path(1), plain)
    # the scripted model counts tokens in what it receives, folders included: recorded in another
    # folder, only the replies' token counts may differ; the requests are the same
    code, out, _ = record_again(capsys, monkeypatch, agent.provider, plain, *replies)
    assert code == 0 and (out == f"recorded {plain}: unchanged\n" or
                          re.search(r"the same requests; the reply to request \d differs at \$\.usage\.", out)), out
    kept = with_sections(plain, tmp_path / "kept.yaml", match={"ignore": ["$.tools[*].description"]},
                         expect={"answer_contains": "alpha"})
    before = {path: path.read_bytes() for path in (plain, kept)}

    for path in (plain, kept):
        code, out, err = record_again(capsys, monkeypatch, agent.provider, path, *replies)
        assert (code, out) == (0, f"recorded {path}: unchanged\n"), err
        assert path.read_bytes() == before[path]  # byte for byte, the user's sections included
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary file is left

    code, out, _ = record_again(capsys, monkeypatch, agent.provider, kept,
                                call("Read", file_path="notes.txt"), text("notes.txt says alpha, twice."))
    assert (code, out) == (0, f"recorded {kept}: 2 requests (was 2), the same requests; the reply to request 2 "
                              "differs at " + out.split("differs at ")[-1])
    again = read_cassette(str(kept))
    assert again.setup["outcomes"] == [{"subtype": "success", "answer": "notes.txt says alpha, twice."}]
    assert (again.match, again.expect) == ({"ignore": ["$.tools[*].description"]}, {"answer_contains": "alpha"})


def test_cassette_record_needs_a_key_and_a_failed_recording_leaves_the_cassette(agent, capsys, tmp_path, monkeypatch):
    agent.script(text("hello"))
    assert agent.run("Say hello.").exit_code == 0
    cassette = tmp_path / "hello.yaml"
    shutil.copy(agent.cassette_path(1), cassette)
    before = cassette.read_bytes()

    monkeypatch.delenv(KEYS[agent.provider], raising=False)
    code, out, err = cassette_command(capsys, "record", str(cassette))
    assert (code, out) == (2, "") and err == f"error: {KEYS[agent.provider]} is not set\n"

    code, out, _ = record_again(capsys, monkeypatch, agent.provider, cassette,
                                *[fail(500, "down")] * 8)  # more than the retries the recorded setup allows
    assert code == 1 and out.startswith(f"failed   {cassette}: ") and out.endswith("(the cassette is left as it was)\n")
    assert cassette.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_cassette_record_sends_every_prompt_of_the_setup_in_order(agent, capsys, tmp_path, monkeypatch):
    """As a replay of an interactive recording sends its turns: each prompt continues the conversation."""
    agent.script(text("one"))
    assert agent.run("First?").exit_code == 0
    cassette = tmp_path / "turns.yaml"
    cassette.write_text(agent.cassette_path(1).read_text().replace("  - First?\n", "  - First?\n  - Second?\n", 1))

    code, out, _ = record_again(capsys, monkeypatch, agent.provider, cassette, text("one"), text("two"))
    assert (code, out) == (0, f"recorded {cassette}: 2 requests (was 1), first difference at request 2 (a request more)\n")
    recorded = read_cassette(str(cassette))
    assert recorded.setup["prompts"] == ["First?", "Second?"]
    assert recorded.setup["outcomes"] == [{"subtype": "success", "answer": "one"}, {"subtype": "success", "answer": "two"}]
    assert "Second?" in str(recorded.interactions[1].request) and "one" in str(recorded.interactions[1].request)

    capsys.readouterr()
    assert cli.main(["--replay", str(cassette)]) == 0
    assert capsys.readouterr().out == "two\n"


def test_cassette_record_says_which_recorded_permission_options_it_does_not_take(agent, capsys, tmp_path, monkeypatch):
    agent.settings({})  # no bypass: the recorded --allowedTools is what let the command run
    agent.script(call("Bash", command="echo hi"), text("It said hi."))
    assert agent.run("Say hi with echo.", "--allowedTools", "Bash(echo:*)").exit_code == 0
    cassette = tmp_path / "echo.yaml"
    shutil.copy(agent.cassette_path(1), cassette)
    code, _, err = record_again(capsys, monkeypatch, agent.provider, cassette, call("Bash", command="echo hi"), text("No."))
    assert f"the cassette {cassette} was recorded with --allowedTools 'Bash(echo:*)'; a re-recording runs tools" in err
    assert "give them to `cassette record`" in err and "--replay-tools" not in err

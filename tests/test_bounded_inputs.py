"""Everything read from disk has a bound: configuration that is a device or a FIFO is one warning
(or, named on the command line, one error), never a read that blocks or grows; YAML and JSON are
parsed with limits; a cassette of the wrong shape is one line and exit 2. Every bomb here runs
under a time and memory bound, so a regression fails fast instead of swapping the machine."""

from __future__ import annotations

import copy
import json
import os
import resource
import subprocess
from pathlib import Path

import pytest
import yaml

from agent import cli
from agent.transcripts import project_folder
from conftest import CASSETTES, REPO
from limits import bounded
from scripted_model import text

MB = 1024 * 1024
# recorded sessions with tool runs, one per wire: the fuzz test's and the malformed fields' seeds
SEEDS = [CASSETTES / "base_stages" / f"test_md6_execute_the_read_tool-{wire}.yaml" for wire in ("anthropic", "openrouter")]


def _program(*args: str, cwd: Path, home: Path, megabytes: int = 1536) -> subprocess.CompletedProcess:
    """The agent as a user starts it, in its own process under a memory limit and a timeout."""
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (megabytes * MB, megabytes * MB))

    env = {"PATH": os.environ["PATH"], "HOME": str(home)}
    return subprocess.run([str(REPO / "your_program.sh"), *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=60, preexec_fn=limit, stdin=subprocess.DEVNULL)


@pytest.fixture
def offline(tmp_path, monkeypatch):
    """A workspace and home for runs that must fail before any request (none could be answered)."""
    for variable in list(os.environ):
        if variable.startswith(("OPENROUTER_", "ANTHROPIC_", "AGENT_", "CLAUDE_")):
            monkeypatch.delenv(variable)
    for folder in ("home", "workspace"):
        (tmp_path / folder).mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("AGENT_MAX_RETRIES", "0")
    monkeypatch.chdir(tmp_path / "workspace")
    return tmp_path / "workspace"


def _one_line(capsys) -> str:
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith("error: ") and captured.err.count("\n") == 1, captured
    assert "internal error" not in captured.err and "Traceback" not in captured.err, captured.err
    return captured.err


# --- configuration that is not a regular file --------------------------------------------------------

@pytest.mark.parametrize("kind", ["fifo", "device", "binary"])
def test_memory_and_settings_that_are_not_regular_files_are_one_warning_each(agent, kind):
    claude = agent.workspace / ".claude"
    claude.mkdir(exist_ok=True)
    if kind == "fifo":
        os.mkfifo(agent.workspace / "CLAUDE.md")  # inside the workspace: only the file check stands in the way
        os.mkfifo(claude / "settings.json")
        (claude / "settings.local.json").symlink_to(claude / "settings.json")
    elif kind == "device":
        (agent.workspace / "CLAUDE.md").symlink_to("/dev/zero")
        (claude / "settings.json").symlink_to("/dev/zero")
        (claude / "settings.local.json").symlink_to("/dev/urandom")
    else:
        (agent.workspace / "CLAUDE.md").write_bytes(b"Always answer in French.\x00\x01\x02")
    agent.script(text("Hello."))
    with bounded(seconds=30, megabytes=1024):
        run = agent.run("Say hello.")
    assert (run.exit_code, run.stdout) == (0, "Hello.\n"), run.stderr
    lines = run.stderr.splitlines()
    memory = [line for line in lines if "CLAUDE.md" in line]
    settings = [line for line in lines if "/.claude/settings" in line]
    assert len(memory) == 1 and len(lines) == 1 + len(settings), lines
    assert {"fifo": "FIFO", "device": "outside", "binary": "binary"}[kind] in memory[0]
    assert len(settings) == (0 if kind == "binary" else 2)
    assert all("ignoring" in line and "not a regular file" in line for line in settings), settings
    assert not run.some_request(["instructions from CLAUDE.md memory files"])  # no memory reached the model


@pytest.mark.parametrize("flags, problem", [
    (["--settings", "/dev/zero"], "--settings: /dev/zero is neither a JSON object nor a readable file (it is a character device"),
    (["--agents", "/dev/zero"], "--agents: /dev/zero is neither"),
    (["--settings", "FIFO"], "(it is a FIFO (named pipe), not a regular file)"),
    (["--system-prompt-file", "/dev/urandom"], "--system-prompt-file: cannot read /dev/urandom (it is a character"),
    (["--append-system-prompt-file", "FIFO"], "--append-system-prompt-file: cannot read"),
    (["--agents", "[" * 100_000 + "]" * 100_000], "--agents: invalid JSON in the --agents value (the value nests deeper"),
])
def test_an_option_file_that_is_not_a_regular_file_is_one_line_and_exit_2(offline, monkeypatch, capsys, provider, flags, problem):
    monkeypatch.setenv("AGENT_PROVIDER", provider)
    monkeypatch.setenv({"openrouter": "OPENROUTER_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}[provider], "dummy")
    monkeypatch.setenv({"openrouter": "OPENROUTER_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL"}[provider], "http://127.0.0.1:9")
    os.mkfifo(offline / "fifo")
    flags = [str(offline / "fifo") if flag == "FIFO" else flag for flag in flags]
    with bounded(seconds=20, megabytes=1024):
        assert cli.main(["-p", "hi", *flags]) == 2
    assert problem in _one_line(capsys)


# --- YAML and JSON limits -------------------------------------------------------------------------------

BOMBS = {  # each beside the interactions of a real recording, and what refuses it
    "laughs": ("a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
        f"{b}: &{b} [{', '.join([f'*{a}'] * 9)}]\n" for a, b in zip("abcdefgh", "bcdefghi")),
        "has aliases that expand to more than 10,000 nodes"),
    "aliases": ("a: &a x\nb: [" + ", ".join(["*a"] * 60) + "]\n", "has more than 50 aliases"),
    "expansion": ("a: &a [" + ", ".join(["x"] * 4000) + "]\nb: [*a, *a, *a]\n", "expand to more than 10,000 nodes"),
    "recursive": ("a: &a [x, *a]\n", "has an alias inside the node it names (&a)"),
    "deep": ("a: " + "[" * 200 + "]" * 200 + "\n", "nests deeper than 128 levels"),
}


def _bomb_cassette(path: Path, bomb: str) -> Path:
    recorded = SEEDS[0].read_text()
    lines = "".join("  " + line + "\n" for line in bomb.splitlines())
    path.write_text(recorded.replace("\ninteractions:\n", f"\nbomb:\n{lines}interactions:\n", 1))
    return path


@pytest.mark.parametrize("bomb", list(BOMBS))
def test_a_yaml_bomb_cassette_is_refused_within_a_memory_bound(tmp_path, bomb):
    source, problem = BOMBS[bomb]
    cassette = _bomb_cassette(tmp_path / "bomb.yaml", source)
    assert len(BOMBS["laughs"][0]) < 700  # the 678 bytes
    for args in (["--replay", str(cassette)], ["--replay", str(cassette), "--replay-tools"],
                 ["cassette", "show", str(cassette)]):
        done = _program(*args, cwd=tmp_path, home=tmp_path)
        assert (done.returncode, done.stdout) == (2, ""), done.stderr
        assert done.stderr.startswith(f"error: cassette {cassette} is refused: its YAML ") and problem in done.stderr
        assert done.stderr.count("\n") == 1, done.stderr
    checked = _program("cassette", "check", str(cassette), cwd=tmp_path, home=tmp_path)
    assert checked.returncode == 1 and checked.stdout.startswith(f"error {cassette}: cassette {cassette} is refused")


def test_a_transcript_line_100000_deep_is_skipped_and_the_session_continues(agent):
    folder = project_folder(agent.home, agent.workspace)
    folder.mkdir(parents=True)
    earlier = [{"role": "user", "content": "Remember the word kumquat."}, {"role": "assistant", "content": "Noted."}]
    lines = [json.dumps({"type": m["role"], "message": m}) for m in earlier]
    lines.insert(1, '{"message": ' * 100_000 + "{}" + "}" * 100_000)
    (folder / "7d3f8e2a-1b4c-4d5e-8f6a-0b1c2d3e4f5a.jsonl").write_text("\n".join(lines) + "\n")
    agent.script(text("Kumquat."))
    with bounded(seconds=30, megabytes=1024):
        run = agent.run("Which word?", "-c")
    assert (run.exit_code, run.stdout) == (0, "Kumquat.\n"), run.stderr
    assert run.some_request(["Remember the word kumquat.", "Noted.", "Which word?"])


# --- malformed cassette fields ----------------------------------------------------------------------------

def _set(path: str, value):
    def change(data):
        *parents, last = path.split(".")
        node = data
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        if value is KeyError:
            del node[last]
        else:
            node[int(last) if isinstance(node, list) else last] = value
    return change


MALFORMED = {
    "request headers as text": (_set("interactions.0.request.headers", "Content-Type: json"), "the request's `headers`"),
    "response headers as a list": (_set("interactions.0.response.headers", ["a"]), "the response's `headers`"),
    "a numeric request body": (_set("interactions.0.request.body", 5), "the request's body must be text or"),
    "a numeric response body": (_set("interactions.0.response.body.string", 7), "the response's body must be"),
    "a list for the response": (_set("interactions.0.response", [1]), "interaction 1 is not a request"),
    "no method": (_set("interactions.0.request.method", KeyError), "the request's `method` must be text"),
    "a date in a body": (_set("interactions.0.request.body.model", __import__("datetime").date(2025, 1, 1)), "body"),
    "a status message mapping": (_set("interactions.0.response.status.message", {"a": 1}), "status `message`"),
    "a tool run's output mapping": (_set("tool_runs.0.output", {"a": 1}), "tool run 1: `output`"),
    "a tool run's is_error text": (_set("tool_runs.0.is_error", "yes"), "tool run 1: `is_error`"),
    "setup options as a list": (_set("setup.options", ["--agents"]), "`options` must be a mapping"),
    "setup --agents naming /dev/zero": (_set("setup.options", {"--agents": "/dev/zero"}), "--agents: /dev/zero is neither"),
    "setup --max-turns as text": (_set("setup.options", {"--max-turns": "many"}), "records --max-turns as 'many'"),
    "version as text": (_set("version", "one"), "`version` must be a number"),
}


@pytest.mark.parametrize("seed", SEEDS, ids=["anthropic", "openrouter"])
@pytest.mark.parametrize("case", list(MALFORMED))
def test_a_malformed_cassette_field_is_one_line_and_exit_2(offline, capsys, seed, case):
    change, problem = MALFORMED[case]
    data = yaml.safe_load(seed.read_text())
    change(data)
    cassette = offline.parent / "malformed.yaml"
    cassette.write_text(yaml.safe_dump(data, sort_keys=False))
    runs = [["--replay", str(cassette)], ["--replay", str(cassette), "--replay-tools"], ["cassette", "show", str(cassette)]]
    for argv in runs[:2] if "setup" in case else runs:  # show prints a setup, whatever its options
        with bounded(seconds=20, megabytes=1024):
            assert cli.main(argv) == 2, argv
        line = _one_line(capsys)
        assert problem in line and (str(cassette) in line or "/dev/zero" in case), (argv, line)
    assert cli.main(["cassette", "check", str(cassette)]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"error {cassette}: ") and problem in out and "internal error" not in out, out


# --- the fuzz test ------------------------------------------------------------------------------------------

def test_randomly_mutated_cassettes_replay_cleanly_or_fail_in_one_line(offline, capsys):
    from hypothesis import HealthCheck, given, settings, strategies as st

    seeds = [yaml.safe_load(seed.read_text()) for seed in SEEDS]
    for number, seed in enumerate(seeds):  # each seed replays cleanly as it is
        cassette = offline.parent / f"seed-{number}.yaml"
        cassette.write_text(yaml.safe_dump(seed, sort_keys=False))
        assert cli.main(["--replay", str(cassette), "--replay-tools"]) == 0, capsys.readouterr().err
    capsys.readouterr()
    values = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=20),
                       st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=5), st.integers(), max_size=3))

    def nodes(value, path=()):
        yield path, value
        children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
        for key, child in children:
            yield from nodes(child, (*path, key))

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(st.sampled_from(range(len(seeds))), st.lists(st.tuples(st.integers(0, 10**6), st.sampled_from(
        ["replace", "nest", "alias", "inflate", "drop"]), values), min_size=1, max_size=3))
    def replay(seed, mutations):
        data = copy.deepcopy(seeds[seed])
        for pick, how, value in mutations:
            places = [place for place in nodes(data) if place[0]]
            path, node = places[pick % len(places)]
            parent = data
            for key in path[:-1]:
                parent = parent[key]
            if how == "drop":
                del parent[path[-1]]
                continue
            parent[path[-1]] = {"replace": lambda: value, "nest": lambda: _nested(node, 150),
                                "alias": lambda: [node] * 60, "inflate": lambda: "x" * (3 * MB) if isinstance(
                                    node, str) else [node] * 20_000}[how]()
        cassette = offline.parent / "mutated.yaml"
        cassette.write_text(yaml.safe_dump(data, sort_keys=False))  # a shared node is written as an alias
        with bounded(seconds=30, megabytes=2048):
            code = cli.main(["--replay", str(cassette), "--replay-tools"])
        captured = capsys.readouterr()
        assert "internal error" not in captured.err and "Traceback" not in captured.err, captured.err
        assert code in (0, 1, 2), captured.err
        if code:  # bad input (2), or drift or a provider's error the recording holds (1): one line
            assert captured.err.startswith("error: ") and captured.err.count("\n") == 1, captured.err

    replay()


def _nested(value, depth: int):
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("target", ["/dev/zero", "fifo"])
def test_skill_and_agent_files_that_are_not_regular_files_are_one_warning_each(tmp_path, home, warnings, target):
    from agent.skills.discovery import discover_skills
    from agent.subagents.discovery import discover_agents

    if target == "fifo":
        os.mkfifo(tmp_path / "fifo")
        target = tmp_path / "fifo"
    project = tmp_path / "project"
    for path in (project / ".claude/skills/zero/SKILL.md", project / ".claude/agents/zero.md"):
        path.parent.mkdir(parents=True)
        path.symlink_to(target)
    with bounded(seconds=20, megabytes=1024):
        skills, agents = discover_skills(project, home), discover_agents(project, home)
    assert skills == [] and "zero" not in agents
    assert len(warnings) == 2 and all("not a regular file" in line for line in warnings), warnings
    assert "skills/zero/SKILL.md" in warnings[0] and "agents/zero.md" in warnings[1]

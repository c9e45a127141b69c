"""`cassette check` at scale, run as a user runs it: `--jobs N` spreads the cassettes over worker
processes with the output of one process, `--shard I/N` splits a folder over CI jobs exactly once,
and the pytest plugin makes each cassette a test item (pytest-xdist and --junitxml included).

Every test checks a copy of the bundled demo cassettes (both wire formats) in a copy of their
workspace, as a user's CI would, plus copies that drift (a tool description edited in the recorded
requests, one per wire) and a file that is no recorded session (an error)."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from agent import cli
from agent.record.cassette_file import to_yaml
from conftest import REPO

DEMO = REPO / "cassettes" / "demo"
DESCRIPTION = "Read a text file and return its raw contents."  # in every recorded request's tools


@pytest.fixture
def demo(tmp_path):
    """(workspace, cassette folder, home): the demo workspace, its six cassettes, two drifting
    copies and a broken file, and an empty home."""
    workspace, cassettes, home = tmp_path / "ws", tmp_path / "cassettes", tmp_path / "home"
    shutil.copytree(DEMO / "workspace", workspace)
    cassettes.mkdir()
    home.mkdir()
    for source in sorted(DEMO.glob("*.yaml")):
        shutil.copy(source, cassettes / source.name)
    for wire in ("anthropic", "openrouter"):
        data = yaml.safe_load((DEMO / f"test_fix_the_failing_test-{wire}.yaml").read_text())
        (cassettes / f"drifting-{wire}.yaml").write_text(to_yaml(_replaced(data, DESCRIPTION, "Read a text file.")))
    (cassettes / "broken.yaml").write_text("interactions: 5\n")
    return workspace, cassettes, home


def _replaced(value, old: str, new: str):
    if isinstance(value, str):
        return value.replace(old, new)
    if isinstance(value, list):
        return [_replaced(item, old, new) for item in value]
    if isinstance(value, dict):
        return {key: _replaced(item, old, new) for key, item in value.items()}
    return value


def _environment(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENROUTER_", "ANTHROPIC_", "AGENT_", "CLAUDE_"))}
    env["HOME"] = str(home)
    return env


def check(*args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess:
    """`your_program.sh cassette check ARGS`, as a user's CI runs it."""
    return subprocess.run([str(REPO / "your_program.sh"), "cassette", "check", *args], cwd=cwd, env=_environment(home),
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)


def plugin(*args: str, cwd: Path, home: Path, loaded: bool = True) -> subprocess.CompletedProcess:
    """pytest with the cassette plugin (unless not `loaded`), in `cwd`, with no cache and an empty home."""
    env = {name: value for name, value in _environment(home).items() if not name.startswith("PYTEST_")}
    command = [str(REPO / ".venv" / "bin" / "python"), "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly"]
    return subprocess.run([*command, *(["-p", "agent.cli.pytest_plugin"] if loaded else []), *args], cwd=cwd, env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)


def junit_cases(report: Path) -> list[tuple[str, str, str]]:
    """Each testcase of a JUnit report as (name, outcome, message), times left out."""
    cases = []
    for case in ET.parse(report).getroot().iter("testcase"):
        outcome = next(((child.tag, child.get("message", "")) for child in case if child.tag in ("failure", "error")),
                       ("passed", ""))
        cases.append((case.get("name"), *outcome))
    return cases


def test_jobs_2_prints_reports_and_exits_as_one_process(demo, tmp_path):
    workspace, cassettes, home = demo
    runs = {}
    for jobs in ("1", "2"):
        report = tmp_path / f"jobs-{jobs}.xml"
        runs[jobs] = check(str(cassettes), "--jobs", jobs, "--verbose", "--require-success", "--junit", str(report),
                           cwd=workspace, home=home)
    one, two = runs["1"], runs["2"]
    assert (two.returncode, two.stdout, two.stderr) == (one.returncode, one.stdout, one.stderr)
    assert one.returncode == 1
    lines = one.stdout.splitlines()
    assert [line.split()[0] for line in lines] == ["error", "drift", "drift", *["ok"] * 6]
    assert lines[0].startswith(f"error {cassettes / 'broken.yaml'}: ")
    assert lines[1].startswith(f"drift {cassettes / 'drifting-anthropic.yaml'}: request 1 differs")
    assert "$.tools[0].description" in lines[1] and "$.tools[0].function.description" in lines[2]
    assert "[agent] replaying " in one.stderr  # --verbose narrates each replay, in the same order
    assert one.stderr.endswith("9 cassettes: 6 ok, 2 drifted, 1 errors, 0 failed\n")
    assert "Traceback" not in two.stderr
    raw = [re.sub(r' time="[^"]*"', "", (tmp_path / f"jobs-{jobs}.xml").read_text()) for jobs in ("1", "2")]
    assert raw[0] == raw[1]
    assert [outcome for _, outcome, _ in junit_cases(tmp_path / "jobs-2.xml")] == [
        "error", "failure", "failure", *["passed"] * 6]


def test_jobs_2_updates_as_one_process(demo, tmp_path):
    workspace, cassettes, home = demo
    (cassettes / "broken.yaml").unlink()
    again = tmp_path / "again"
    shutil.copytree(cassettes, again)
    one = check(str(cassettes), "--update", "--jobs", "1", cwd=workspace, home=home)
    two = check(str(again), "--update", "--jobs", "2", cwd=workspace, home=home)
    assert (two.returncode, two.stdout.replace(str(again), "DIR"), two.stderr.replace(str(again), "DIR")) == (
        one.returncode, one.stdout.replace(str(cassettes), "DIR"), one.stderr.replace(str(cassettes), "DIR"))
    assert one.returncode == 0 and one.stdout.startswith(f"updated {cassettes / 'drifting-anthropic.yaml'}: ")
    for name in ("drifting-anthropic.yaml", "drifting-openrouter.yaml"):
        assert (again / name).read_bytes() == (cassettes / name).read_bytes()
        assert DESCRIPTION in (again / name).read_text()  # the request sent now


def test_a_worker_that_dies_is_an_error_for_its_cassette_and_the_rest_are_checked(demo):
    if not Path("/proc/self/stat").exists():
        pytest.skip("finding the worker processes needs /proc (Linux)")
    workspace, cassettes, home = demo
    (cassettes / "broken.yaml").unlink()
    for name in [path.name for path in cassettes.glob("drifting-*.yaml")]:
        (cassettes / name).unlink()
    for copy in range(3):  # enough cassettes that the first worker still has one when it is killed
        for source in sorted(DEMO.glob("*.yaml")):
            shutil.copy(source, cassettes / f"{copy}-{source.name}")
    running = subprocess.Popen([str(REPO / "your_program.sh"), "cassette", "check", str(cassettes), "--jobs", "2"],
                               cwd=workspace, env=_environment(home), stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    killed = _kill_a_worker(running.pid)
    out, err = running.communicate(timeout=120)
    assert killed, "no worker process was seen"
    assert running.returncode == 1 and "Traceback" not in err
    lines = out.splitlines()
    assert len(lines) == 24 and sorted(line.split()[1].rstrip(":") for line in lines) == sorted(
        str(path) for path in cassettes.glob("*.yaml"))
    (error,) = [line for line in lines if not line.startswith("ok    ")]
    assert error.startswith("error ") and error.endswith(": the process checking it ended unexpectedly (killed by SIGKILL)")
    assert err.endswith("24 cassettes: 23 ok, 0 drifted, 1 errors, 0 failed\n")


def _kill_a_worker(parent: int) -> bool:
    """SIGKILL the first process found two generations below `parent` (the fork server's first
    worker; the agent itself may sit below a shell); whether one was found."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        children = _children()
        agents = _descendants(parent, children)
        servers = [pid for pid in agents if "forkserver" in _command(pid)]
        workers = [pid for server in servers for pid in children.get(server, [])]
        if workers:
            os.kill(workers[0], signal.SIGKILL)
            return True
        time.sleep(0.005)
    return False


def _children() -> dict[int, list[int]]:
    found: dict[int, list[int]] = {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except (OSError, ValueError):
            continue
        found.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(int(entry))
    return found


def _descendants(pid: int, children: dict[int, list[int]]) -> list[int]:
    below = list(children.get(pid, []))
    return below + [grand for child in below for grand in _descendants(child, children)]


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""


def test_shards_cover_the_folder_exactly_once_and_split_alike_anywhere(demo, tmp_path):
    workspace, cassettes, home = demo
    whole = check(str(cassettes), "--jobs", "1", cwd=workspace, home=home)
    shards = [check(str(cassettes), "--shard", f"{index}/3", *jobs, cwd=workspace, home=home)
              for index, jobs in ((1, []), (2, ["--jobs", "1"]), (3, ["--jobs", "1"]))]
    parts = [shard.stdout.splitlines() for shard in shards]
    assert sorted(line for part in parts for line in part) == sorted(whole.stdout.splitlines())
    assert sorted(len(part) for part in parts) == [3, 3, 3]  # dealt out in turn: sizes differ by one at most
    for part, shard in zip(parts, shards):
        assert part == [line for line in whole.stdout.splitlines() if line in part]  # in the order found
        assert shard.stderr.endswith(f" (shard {shards.index(shard) + 1}/3 of 9 found)\n")
        assert shard.returncode == (1 if any(not line.startswith("ok ") for line in part) else 0)
    # the same files, given another way from another folder, split the same way
    moved = tmp_path / "elsewhere" / "cassettes"
    shutil.copytree(cassettes, moved)
    first = check("cassettes", "--shard", "1/3", "--jobs", "1", cwd=moved.parent, home=home)
    assert [line.split()[1].split("/")[-1].rstrip(":") for line in first.stdout.splitlines()] == [
        line.split()[1].split("/")[-1].rstrip(":") for line in parts[0]]


def test_an_empty_shard_says_so_and_passes(demo, tmp_path):
    workspace, cassettes, home = demo
    report = tmp_path / "report.xml"
    two = [str(cassettes / "broken.yaml"), str(cassettes / "drifting-anthropic.yaml")]
    empty = check(*two, "--shard", "3/3", "--junit", str(report), cwd=workspace, home=home)
    assert (empty.returncode, empty.stdout) == (0, "")
    assert empty.stderr == "cassette check: shard 3/3 has no cassettes (2 found in all)\n"
    assert junit_cases(report) == []


@pytest.mark.parametrize("flag, value", [
    ("--jobs", "0"), ("--jobs", "x"), ("--jobs", "-1"), ("--jobs", "1.5"),
    ("--shard", "0/3"), ("--shard", "4/3"), ("--shard", "x"), ("--shard", "1/0"), ("--shard", "1/3/3"),
])
def test_bad_jobs_and_shard_values_are_one_line_and_exit_2(demo, capsys, flag, value):
    _, cassettes, _ = demo
    assert cli.main(["cassette", "check", str(cassettes), flag, value]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith(f"error: cassette check: {flag} takes "), err
    assert repr(value) in err


def test_the_pytest_plugin_makes_each_cassette_a_test(demo, tmp_path):
    workspace, cassettes, home = demo
    names = sorted(path.name for path in cassettes.glob("*.yaml"))
    for extra in ([], ["-n", "2"]):
        report = tmp_path / f"plugin{len(extra)}.xml"
        run = plugin("--cassettes", "../cassettes", "-q", "--junitxml", str(report), *extra, cwd=workspace, home=home)
        assert run.returncode == 1, run.stdout + run.stderr
        assert "3 failed, 6 passed" in run.stdout
        drift = f"drift ../cassettes/drifting-openrouter.yaml: request 1 differs from the cassette ../cassettes/"
        assert f"\n{drift}" in run.stdout and "\nerror ../cassettes/broken.yaml: " in run.stdout
        assert "FAILED ../cassettes/drifting-anthropic.yaml::drifting-anthropic.yaml - drift " in run.stdout
        assert "Traceback" not in run.stdout and "agent/cli/" not in run.stdout  # the check line, not our internals
        cases = dict((name, (outcome, message)) for name, outcome, message in junit_cases(report))
        assert sorted(cases) == names  # one item per cassette
        assert cases["drifting-openrouter.yaml"][0] == "failure" and cases["drifting-openrouter.yaml"][1].startswith(drift)
        assert cases["broken.yaml"][0] == "failure"
        assert sorted(name for name, (outcome, _) in cases.items() if outcome == "passed") == names[3:]


def test_the_pytest_plugin_options_are_checks(demo):
    workspace, cassettes, home = demo
    (cassettes / "broken.yaml").unlink()
    content = plugin("--cassettes", "../cassettes", "-q", "--cassette-match", "content", "--cassette-require-success",
                     cwd=workspace, home=home)
    assert content.returncode == 0 and "8 passed" in content.stdout, content.stdout  # tool descriptions are not yours
    ignored = plugin("--cassettes", "../cassettes", "-q", "--cassette-ignore", "$..description", "-k", "drifting",
                     cwd=workspace, home=home)
    assert ignored.returncode == 0 and "2 passed" in ignored.stdout, ignored.stdout
    updated = plugin("--cassettes", "../cassettes", "-q", "--cassette-update", cwd=workspace, home=home)
    assert updated.returncode == 0, updated.stdout
    assert "agent cassettes" in updated.stdout
    assert "\nupdated ../cassettes/drifting-anthropic.yaml: " in updated.stdout
    assert " changed (first at request 1, $.tools[0].description)" in updated.stdout
    assert DESCRIPTION in (cassettes / "drifting-openrouter.yaml").read_text()  # the request sent now


def test_without_cassettes_the_plugin_changes_nothing(tmp_path):
    """A suite that has the plugin (installed, every run loads it) collects and runs as before."""
    suite, home = tmp_path / "suite", tmp_path / "home"
    suite.mkdir()
    home.mkdir()
    (suite / "test_plain.py").write_text("def test_one():\n    pass\n\n\ndef test_two():\n    assert 1 == 2\n")
    (suite / "notes.yaml").write_text("interactions: []\n")  # cassette-like YAML is still not collected
    plain, loaded = (plugin("-q", "-rA", cwd=suite, home=home, loaded=kind) for kind in (False, True))
    timing = re.compile(r" in [0-9.]+s")
    assert timing.sub("", loaded.stdout) == timing.sub("", plain.stdout)
    assert "1 failed, 1 passed" in plain.stdout and loaded.returncode == plain.returncode == 1

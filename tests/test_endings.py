"""Signals and full disks lose nothing: SIGTERM and SIGHUP end the commands the agent started, a
file that cannot be written is one line (the answer still printed, the earlier file kept), a
recording cut short leaves no cassette that cannot replay; and the small ones (a lone surrogate,
an empty HOME, a transcript stamped in the future)."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import PROVIDERS, REPO
from scripted_model import ScriptedModel, call, text

BASES = {"openrouter": ("OPENROUTER_BASE_URL", "/api/v1/"), "anthropic": ("ANTHROPIC_BASE_URL", "")}
KEYS = {"openrouter": "OPENROUTER_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}


def agent_env(tmp_path: Path, provider: str, model: ScriptedModel, **extra: str) -> dict[str, str]:
    """The environment of a user running the agent against the scripted model on `provider`,
    with `tmp_path / "home"` as home."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENROUTER_", "ANTHROPIC_", "AGENT_", "CLAUDE_"))}
    (tmp_path / "home").mkdir(exist_ok=True)
    variable, suffix = BASES[provider]
    env.update({"HOME": str(tmp_path / "home"), "XDG_CACHE_HOME": str(tmp_path / "cache"), variable: model.base + suffix,
                KEYS[provider]: "dummy", "AGENT_PROVIDER": provider}, **extra)
    return env


def start(tmp_path: Path, env: dict[str, str], *argv: str, file_size: int | None = None) -> subprocess.Popen:
    """The agent as a user starts it, in `tmp_path / "work"`; with `file_size`, no file it
    writes may grow past that many bytes (a full disk, without touching the machine's)."""
    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG) instead
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))

    (tmp_path / "work").mkdir(exist_ok=True)
    return subprocess.Popen([str(REPO / ".venv" / "bin" / "python"), "-I", "-m", "agent", *argv], cwd=tmp_path / "work", env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=limit if file_size else None)


def finish(process: subprocess.Popen, timeout: float = 60) -> tuple[int, str, str]:
    try:
        out, err = process.communicate(timeout=timeout)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    return process.returncode, out, err


def alive(pid: int) -> bool:
    """Whether process `pid` still runs (a zombie waiting to be reaped does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def wait_for(predicate, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


# --- SIGTERM and SIGHUP ----------------------------------------------------------------------------

@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_end_the_commands_the_agent_started(tmp_path, provider, signum):
    """A command and the child it left in the background are both killed before the agent exits
    with 128 + the signal and one line."""
    work = tmp_path / "work"
    model = ScriptedModel()
    pids: list[int] = []
    process = None
    try:
        model.script(call("Bash", command="sleep 300 & echo $! > bg.pid; echo $$ > fg.pid; exec sleep 300"),
                     text("never sent"))
        process = start(tmp_path, agent_env(tmp_path, provider, model), "-p", "Wait for it.",
                        "--dangerously-skip-permissions")
        assert wait_for(lambda: (work / "fg.pid").is_file() and (work / "fg.pid").read_text().strip(), 60)
        pids = [int((work / name).read_text()) for name in ("bg.pid", "fg.pid")]
        assert all(alive(pid) for pid in pids)
        sent = time.monotonic()
        process.send_signal(signum)
        code, out, err = finish(process, timeout=20)
        assert time.monotonic() - sent < 10
        assert code == 128 + signum and out == ""
        assert err.strip().splitlines() == [f"terminated by {signal.Signals(signum).name}"]
        assert wait_for(lambda: not any(alive(pid) for pid in pids), 5), "a command outlived the agent"
        assert len(model.requests) == 1
    finally:
        if process is not None and process.poll() is None:
            finish(process, timeout=0.1)
        for pid in pids:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        model.close()


# --- a full disk ----------------------------------------------------------------------------------

@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_full_disk_keeps_the_earlier_files_prints_the_answer_and_says_what_was_not_written(tmp_path, provider):
    """Past the size limit every write fails as on a full disk: the earlier cassette and trace
    stay byte for byte, no half line is left in the trace or the transcript, the answer is on
    stdout, and one line names what could not be written (exit 1)."""
    import json

    cassette, trace = tmp_path / "run.yaml", tmp_path / "trace.jsonl"
    model = ScriptedModel()
    try:
        env = agent_env(tmp_path, provider, model)
        model.script(text("first answer"))
        code, out, err = finish(start(tmp_path, env, "-p", "First.", "--record", str(cassette), "--trace", str(trace)))
        assert (code, out) == (0, "first answer\n"), err
        before = {path: path.read_bytes() for path in (cassette, trace)}
        model.script(call("Bash", command="head -c 30000 /dev/zero | tr '\\0' x"), text("second answer"))
        limit = max(len(data) for data in before.values()) + 1000
        process = start(tmp_path, env, "-p", "Second.", "--record", str(cassette), "--trace", str(trace),
                        "--dangerously-skip-permissions", file_size=limit)
        code, out, err = finish(process)
    finally:
        model.close()
    assert (code, out) == (1, "second answer\n"), err
    (line,) = [line for line in err.splitlines() if line.startswith("error:")]
    assert line.startswith("error: could not write ") and "Traceback" not in err
    for named in (f"the trace {trace} (File too large)", "the transcript ", f"the cassette {cassette} (File too large"):
        assert named in line
    assert "the earlier one is kept" in line
    assert {path: path.read_bytes() for path in (cassette, trace)} == before
    (transcript,) = [path for path in (tmp_path / "home" / ".claude" / "projects").rglob("*.jsonl")
                     if "Second." in path.read_text()]
    lines = transcript.read_text().splitlines()
    assert lines and all(json.loads(each) for each in lines)  # only whole lines
    assert len(model.requests) == 3


# --- a first recording cut short -------------------------------------------------------------------

@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_first_recording_cut_short_leaves_no_cassette_and_says_so(tmp_path, provider, signum):
    """A cassette of half a run could not replay: none is written, and the run says so."""
    cassette = tmp_path / "work" / "first.yaml"
    model = ScriptedModel()
    process = None
    try:
        model.script(call("Bash", command="echo started"), text("too late", delay_s=30))
        process = start(tmp_path, agent_env(tmp_path, provider, model), "-p", "Start and wait.",
                        "--record", str(cassette), "--dangerously-skip-permissions")
        assert wait_for(lambda: len(model.requests) >= 2, 60)
        process.send_signal(signum)
        code, out, err = finish(process, timeout=20)
    finally:
        if process is not None and process.poll() is None:
            finish(process, timeout=0.1)
        model.close()
    assert code == 128 + signum and out == "" and "Traceback" not in err
    assert f"[agent] the recording was cut short: no cassette is written to {cassette}" in err.splitlines()
    assert err.splitlines()[-1] == ("interrupted" if signum == signal.SIGINT else "terminated by SIGTERM")
    assert sorted(path.name for path in cassette.parent.iterdir()) == []  # no cassette, no scratch file


# --- the small ones --------------------------------------------------------------------------------

def test_a_lone_surrogate_leaves_transcripts_on(agent):
    """A reply holding lone surrogates (valid JSON escapes, no UTF-8 form) and a command printing
    bytes that are not UTF-8: each odd character is replaced, and every message of the run
    reaches the transcript, the cassette and stdout."""
    import json

    agent.script(call("Bash", "odd \ud800 text", command="printf 'tail \\355\\240\\200 end'"),
                 text("done \udfff here"))
    run = agent.run("Go.")
    assert (run.exit_code, run.stdout) == (0, "done ? here\n"), run.stderr
    assert "could not write" not in run.stderr and "transcripts disabled" not in run.stderr
    (transcript,) = (agent.home / ".claude" / "projects").rglob("*.jsonl")
    messages = [json.loads(line)["message"] for line in transcript.read_text().splitlines()]
    assert [message["role"] for message in messages] == ["user", "assistant", "user", "assistant"]
    assert messages[1]["content"][0]["text"] == "odd ? text"
    assert "tail \ufffd\ufffd\ufffd end" in json.dumps(messages[2], ensure_ascii=False)
    assert messages[3]["content"][0]["text"] == "done ? here"


@pytest.mark.parametrize("provider", PROVIDERS)
def test_an_empty_or_unusable_home_is_one_warning(tmp_path, provider):
    """HOME="" would make `/` the home folder: one warning, then the password database's home.
    A HOME that is not a writable folder: one warning, and nothing is saved there."""
    import pwd

    passwd = pwd.getpwuid(os.getuid()).pw_dir
    model = ScriptedModel()
    try:
        model.script(text("fine"), text("still fine"))
        env = agent_env(tmp_path, provider, model, HOME="")
        code, out, err = finish(start(tmp_path, env, "-p", "Hi.", "--no-session-persistence"), timeout=30)
        assert (code, out) == (0, "fine\n"), err
        assert err.splitlines() == [f"[agent] HOME is empty: using {passwd}, the home folder of the password database"]
        missing = tmp_path / "gone"  # (a read-only one is writable for root, who may run this)
        env = agent_env(tmp_path, provider, model, HOME=str(missing))
        code, out, err = finish(start(tmp_path, env, "-p", "Hi."), timeout=30)
        assert (code, out) == (0, "still fine\n"), err
        assert err.splitlines() == [f"[agent] the home folder {missing} is not a writable folder: nothing is "
                                    "saved there (sessions, caches)"]
        assert not missing.exists()
    finally:
        model.close()


@pytest.mark.parametrize("provider", PROVIDERS)
def test_continue_takes_the_newest_session_by_recorded_time_not_a_future_stamp(tmp_path, provider):
    """A transcript stamped (and dated) in the future does not win --continue: the session the
    user had last does."""
    import json
    import uuid

    from agent.transcripts import project_folder

    (tmp_path / "work").mkdir()
    folder = project_folder(tmp_path / "home", (tmp_path / "work").resolve())
    folder.mkdir(parents=True)
    future = folder / f"{uuid.uuid4()}.jsonl"
    entry = {"type": "user", "message": {"role": "user", "content": "From the future."},
             "timestamp": "2099-01-01T00:00:00Z"}
    future.write_text(json.dumps(entry) + "\n")
    later = time.time() + 50 * 365 * 86400
    os.utime(future, (later, later))
    model = ScriptedModel()
    try:
        model.script(text("first answer"), text("second answer"))
        env = agent_env(tmp_path, provider, model)
        code, out, err = finish(start(tmp_path, env, "-p", "First question."), timeout=30)
        assert (code, out) == (0, "first answer\n"), err
        code, out, err = finish(start(tmp_path, env, "-c", "-p", "And then?"), timeout=30)
        assert (code, out) == (0, "second answer\n"), err
    finally:
        model.close()
    sent = model.requests[-1].raw
    assert "First question." in sent and "first answer" in sent and "From the future." not in sent

"""Nothing raw on a terminal: control sequences in the model's text, in tool output and in file
names (window title, clipboard write, screen clear, hyperlink, bidirectional override, C1 CSI) are
made visible wherever a terminal shows them: the interactive screen, `-p` text on a terminal,
warnings on a terminal's stderr, `cassette show`. To a pipe the same output stays byte-exact. The
real program in a pseudo-terminal against the scripted model over loopback, on both wire formats."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pexpect
import pytest

from conftest import REPO
from scripted_model import Call, ScriptedModel, calls, text

TITLE = "\x1b]0;pwned-title\x07"
CLIPBOARD = "\x1b]52;c;cHduZWQ=\x07"
CLEAR = "\x1b[2J"
LINK = "\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\"
BIDI = "\u202e"
C1 = "\x9b"
RAW = [TITLE, CLIPBOARD, CLEAR, "\x1b]8;", BIDI, C1, "\x1b]0;"]
ANSWER = f"Look {TITLE}{CLIPBOARD}{CLEAR}{LINK} {BIDI}gnp.exe {C1}31m\ttabbed\nsecond line"
FILE_NAME = f"name{TITLE}.txt"
MISSING = "missing\x1b]0;warn-title\x07.txt"
COMMAND = r"printf 'out\033]0;cmd-title\007\n'; ls"
BASES = {"openrouter": ("OPENROUTER_BASE_URL", "OPENROUTER_API_KEY", "/api/v1"),
         "anthropic": ("ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "")}


@pytest.fixture
def place(tmp_path: Path):
    workspace, home = tmp_path / "workspace", tmp_path / "home"
    workspace.mkdir()
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text('{"permissions": {"defaultMode": "bypassPermissions"}}')
    (workspace / FILE_NAME).write_text("hello\n")
    return workspace, home


def environment(model: ScriptedModel, provider: str, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OPENROUTER_", "ANTHROPIC_", "AGENT_", "CLAUDE_")) and k not in ("COLUMNS", "LINES")}
    base, key, path = BASES[provider]
    env.update({"HOME": str(home), base: model.base + path, key: "dummy-key-for-tests", "AGENT_PROVIDER": provider,
                "TERM": "xterm", "PROMPT_TOOLKIT_NO_CPR": "1"})
    return env


def script(model: ScriptedModel, answers: list[str], end: str = "") -> None:
    """A turn that runs a command printing a title sequence and listing the hostile file name, reads
    a missing file whose name holds one (a tool error, logged with --verbose), then answers with
    every sequence and the tool results."""
    def answer(request):
        answers.append(ANSWER + "\n" + "\n".join(request.tool_results()) + end)
        return text(answers[-1])
    model.script(calls(Call("Bash", {"command": COMMAND}), Call("Read", {"file_path": MISSING})), answer)


def on_pty(argv: list[str], cwd: Path, env: dict[str, str]) -> bytes:
    """What a terminal receives from a run whose stdout and stderr are that terminal."""
    main, child = os.openpty()
    process = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=child, stderr=child)
    os.close(child)
    received = b""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # EIO: the program ended and closed the terminal
            break
        if not chunk:
            break
        received += chunk
    os.close(main)
    process.wait(timeout=10)
    return received


def assert_nothing_raw(screen: str) -> None:
    assert [piece for piece in RAW if piece in screen] == []
    assert "\\x1b]0;pwned-title\\x07" in screen  # shown, made visible


@pytest.mark.parametrize("provider", ["openrouter", "anthropic"])
def test_print_mode_on_a_terminal_shows_sequences_visible_and_a_pipe_gets_them_exact(provider, model, place):
    workspace, home = place
    env, answers = environment(model, provider, home), []
    program = [str(REPO / "your_program.sh"), "-p", "Look around.", "--verbose"]
    script(model, answers)
    screen = on_pty(program, workspace, env).decode("utf-8", errors="replace")
    assert_nothing_raw(screen)
    assert "\ttabbed" in screen and "\\x1b]0;warn-title\\x07" in screen  # a tab stays; the warning too is visible
    assert "name\\x1b]0;pwned-title\\x07.txt" in screen  # the file name, as ls printed it

    script(model, answers)
    cassette = workspace.parent / "run.yaml"
    piped = subprocess.run([*program, "--record", str(cassette)], cwd=workspace, env=env, stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=60)
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout == answers[-1].strip().encode() + b"\n"  # byte-exact
    assert all(piece.encode() in piped.stdout for piece in RAW)
    assert MISSING.encode() in piped.stderr

    shown = on_pty([str(REPO / "your_program.sh"), "cassette", "show", str(cassette)], workspace, env)
    assert_nothing_raw(shown.decode("utf-8", errors="replace"))
    listed = subprocess.run([str(REPO / "your_program.sh"), "cassette", "show", str(cassette)], cwd=workspace, env=env,
                            stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    assert listed.returncode == 0 and TITLE.encode() in listed.stdout and CLEAR.encode() in listed.stdout


@pytest.mark.parametrize("provider", ["openrouter", "anthropic"])
def test_the_interactive_screen_shows_sequences_visible(provider, model, place):
    workspace, home = place
    answers: list[str] = []
    script(model, answers, end="\nTHE-END")
    child = pexpect.spawn(str(REPO / "your_program.sh"), ["Look around."], cwd=str(workspace),
                          env=environment(model, provider, home), encoding="utf-8", timeout=30, dimensions=(40, 200))
    screen = ""
    deadline = time.monotonic() + 30
    while "THE-END" not in screen or "\x1b[?2004h" not in screen.rsplit("THE-END", 1)[1]:  # waiting for a line
        assert time.monotonic() < deadline, screen[-600:]
        try:
            screen += child.read_nonblocking(65536, timeout=1)
        except pexpect.TIMEOUT:
            continue
    child.send("/exit\r")
    child.expect(pexpect.EOF)
    screen += child.before or ""
    child.close()
    assert_nothing_raw(screen)
    assert "cmd-title" in screen and "\\x1b]0;cmd-title" in screen  # a tool's output, in its summary line

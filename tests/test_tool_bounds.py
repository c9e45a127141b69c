"""Tools stay bounded against files and patterns built to hurt (issue 19): a line of gigabytes, a
catastrophic regex or glob, a FIFO in the tree, a /proc file of size 0, a binary @mention and
piped input over the cap. Each bomb runs under a time bound, and the big ones in a subprocess
under a memory rlimit, so a regression fails fast instead of swapping the machine."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from agent.cli.interactive import _with_mentions
from agent.session import Session
from agent.tools.base import ToolError
from agent.tools.files import READ
from agent.tools.search import GLOB, GREP
from agent.workspace import Workspace
from conftest import REPO
from limits import within
from scripted_model import text

MEMORY_LIMIT = 1 << 30  # the agent and its ripgrep, while a file holds a 2 GB line


@pytest.fixture
def ctx(tmp_path: Path) -> Session:
    return Session(workspace=Workspace(tmp_path))


def bounded(code: str, cwd: Path, seconds: float = 60) -> str:
    """What `code` prints, run by this Python in a subprocess under MEMORY_LIMIT and `seconds`."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))

    prelude = ("import sys; sys.path.insert(0, %r)\nfrom pathlib import Path\nfrom agent.session import Session\n"
               "from agent.workspace import Workspace\nfrom agent.tools.files import READ\n"
               "from agent.tools.search import GLOB, GREP\nctx = Session(workspace=Workspace(Path.cwd()))\n" % str(REPO))
    done = subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)], cwd=cwd, preexec_fn=limit,
                          capture_output=True, text=True, timeout=seconds)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_a_2gb_line_after_8kb_of_text_is_streamed_by_read_and_grep(tmp_path):
    with open(tmp_path / "bomb.log", "wb") as handle:  # sparse: 9000 bytes of text, then one 2 GB line
        handle.write(b"".join(b"line %04d TODO\n" % n for n in range(1, 601)))
        handle.truncate(9000 + (2 << 30))
    out = bounded("""
        read = READ.run({"file_path": "bomb.log"}, ctx)
        print(len(read), read.splitlines()[-1])
        print(READ.run({"file_path": "bomb.log", "offset": 601}, ctx).splitlines()[-1])
        print(GREP.run({"pattern": "TODO", "output_mode": "count"}, ctx))
    """, tmp_path)
    first, cut, count = out.splitlines()
    shown, note = first.split(" ", 1)
    assert int(shown) < 10_000
    assert note.endswith("showed lines 1-600 of 601. Use offset and limit to read more.]")
    assert "(line 601 is 2147483648 bytes, cut there)" in cut
    assert count == "bomb.log:600"


def test_grep_returns_on_a_catastrophic_regex(tmp_path):
    (tmp_path / "a.txt").write_text("a" * 33 + "!\n" + "a" * 33 + "\n")
    out = bounded("""
        print(GREP.run({"pattern": "^(a+)+$", "output_mode": "count"}, ctx))
    """, tmp_path, seconds=20)
    assert out == "a.txt:1\n"


def test_glob_returns_on_a_catastrophic_pattern(tmp_path, ctx):
    (tmp_path / ("a" * 200)).write_text("")
    (tmp_path / ("a" * 20 + "b")).write_text("")
    with within(10):
        assert run(GLOB, ctx, pattern="*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b") == "a" * 20 + "b"
        with pytest.raises(ToolError, match="more than 256 alternatives"):
            run(GLOB, ctx, pattern="{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}")


def run(tool, ctx, **arguments):
    return tool.run(arguments, ctx)


def test_read_of_a_proc_file_of_size_0_reads_it(ctx):
    assert os.stat("/proc/self/status").st_size == 0
    result = run(READ, ctx, file_path="/proc/self/status")
    assert result.startswith("Name:") and f"\nPid:\t{os.getpid()}\n" in result


def test_a_fifo_in_the_tree_never_blocks_grep_or_glob(tmp_path, ctx):
    (tmp_path / "notes.txt").write_text("TODO ship\n")
    os.mkfifo(tmp_path / "pipe.txt")  # no writer: an open that blocks would wait forever
    with within(20):
        assert run(GREP, ctx, pattern="TODO") == "notes.txt"
        assert run(GREP, ctx, pattern="TODO", glob="*.txt", output_mode="content") == "notes.txt:1:TODO ship"
        assert sorted(run(GLOB, ctx, pattern="*.txt").splitlines()) == ["notes.txt", "pipe.txt"]
        with pytest.raises(ToolError, match=r"pipe.txt is a FIFO \(named pipe\)"):
            run(GREP, ctx, pattern="TODO", path="pipe.txt")
        with pytest.raises(ToolError, match=r"pipe.txt is a FIFO \(named pipe\), not a regular file"):
            run(READ, ctx, file_path="pipe.txt")


def test_grep_leaves_out_what_gitignore_ignores_as_claude_codes_grep_does(tmp_path, ctx):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("build/\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build/out.js").write_text("TODO generated\n")
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github/ci.yml").write_text("TODO hidden but kept\n")
    (tmp_path / "src.py").write_text("TODO real\n")
    with within(20):
        assert sorted(run(GREP, ctx, pattern="TODO").splitlines()) == [".github/ci.yml", "src.py"]
        assert "build/out.js" in run(GLOB, ctx, pattern="**/*.js")  # Glob lists every file, as Claude Code's


def test_an_at_mention_of_a_binary_file_is_refused_with_a_note(tmp_path):
    (tmp_path / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\x1b]52;c;aGk=\x07")
    (tmp_path / "notes.md").write_text("Ship on Friday.\n")
    message = _with_mentions("Compare @logo.png and @notes.md", tmp_path)
    assert message == ("Compare @logo.png and @notes.md\n\n(@logo.png is a binary file; its contents were not added.)"
                       "\n\nContents of notes.md:\n```\nShip on Friday.\n```")


def test_piped_input_over_the_cap_keeps_the_cap_and_warns_once(agent, monkeypatch):
    from agent.cli import stdin

    monkeypatch.setattr(stdin, "MAX_BYTES", 4096)  # the real cap is 10 MB: too big for a cassette
    agent.script(text("Thanks."))
    piped = b"0123456789abcde\n" * 300  # 4800 bytes
    run = agent.run("Summarise:", stdin=piped)
    assert (run.exit_code, run.stdout) == (0, "Thanks.\n")
    assert run.stderr.count("piped input is over 4 KB: only its first 4 KB were kept") == 1
    sent = run.payloads[0]["messages"][-1]["content"]
    prompt = sent if isinstance(sent, str) else sent[-1]["text"]
    assert prompt == "Summarise:\n" + piped[:4096].decode()


def test_piped_input_over_the_cap_through_a_real_pipe_warns(monkeypatch, caplog):
    from agent.cli import stdin

    monkeypatch.setattr(stdin, "MAX_BYTES", 4096)
    reader, writer = os.pipe()
    feeder = threading.Thread(target=lambda: (os.write(writer, b"x" * 9000), os.close(writer)))
    feeder.start()
    with os.fdopen(reader, "rb") as piped, within(10):
        kept = stdin.read_piped(piped)
    feeder.join()
    assert kept == "x" * 4096
    assert [r.getMessage() for r in caplog.records] == ["piped input is over 4 KB: only its first 4 KB were kept"]

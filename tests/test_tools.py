"""Unit tests for the file, shell and search tools: the text the model sees and the files on disk."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from agent.session import Session
from agent.tools.base import ToolError
from agent.tools.files import EDIT, READ, WRITE
from agent.tools.search import GLOB, GREP
from agent.tools.shell import BASH, truncate_middle
from agent.workspace import Workspace, save_file


@pytest.fixture
def ctx(tmp_path: Path) -> Session:
    return Session(workspace=Workspace(tmp_path))


def run(tool, ctx, **arguments):
    return tool.run(arguments, ctx)


def touch(path: Path, text: str = "", mtime: float | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


# --- Read -------------------------------------------------------------------------------------------

def test_read_returns_raw_contents(tmp_path, ctx):
    touch(tmp_path / "hello.py", "print('Hello, World!')")
    assert run(READ, ctx, file_path="hello.py") == "print('Hello, World!')"
    assert run(READ, ctx, file_path=str(tmp_path / "hello.py")) == "print('Hello, World!')"


def test_read_offset_and_limit(tmp_path, ctx):
    touch(tmp_path / "f.txt", "".join(f"line {n}\n" for n in range(1, 11)))
    assert run(READ, ctx, file_path="f.txt", offset=3, limit=2) == "line 3\nline 4\n"
    assert run(READ, ctx, file_path="f.txt", offset=9) == "line 9\nline 10\n"
    with pytest.raises(ToolError, match="past the end"):
        run(READ, ctx, file_path="f.txt", offset=50)


def test_read_caps_lines_with_note(tmp_path, ctx):
    touch(tmp_path / "long.txt", "".join(f"{n}\n" for n in range(1, 2501)))
    result = run(READ, ctx, file_path="long.txt")
    lines = result.splitlines()
    assert lines[0] == "1" and lines[1999] == "2000"
    assert lines[-1] == "[... file has 2500 lines; showed 1-2000. Use offset and limit to read more.]"


def test_read_binary_file(tmp_path, ctx):
    (tmp_path / "blob.bin").write_bytes(b"\x89PNG\0\0\x01")
    assert run(READ, ctx, file_path="blob.bin") == "blob.bin is a binary file (7 bytes); its contents are not shown."


def test_read_oversized_file(tmp_path, ctx):
    touch(tmp_path / "big.txt", ("x" * 499 + "\n") * 1000)  # 500 KB in 1000 lines
    result = run(READ, ctx, file_path="big.txt")
    assert len(result) <= 256 * 1024 + 200
    assert result.endswith("[... file is 500000 bytes, over the 256 KB limit for one read; "
                           "showed lines 1-524 of 1000. Use offset and limit to read more.]")
    assert run(READ, ctx, file_path="big.txt", offset=1000) == "x" * 499 + "\n"
    touch(tmp_path / "oneline.min.js", "y" * 300_000)
    result = run(READ, ctx, file_path="oneline.min.js")
    assert result.startswith("y" * 1000) and len(result) < 270_000 and "300000 bytes" in result


def test_read_invalid_utf8_and_empty(tmp_path, ctx):
    (tmp_path / "latin.txt").write_bytes(b"caf\xe9\n")
    assert run(READ, ctx, file_path="latin.txt") == "caf\ufffd\n"
    touch(tmp_path / "empty.txt")
    assert run(READ, ctx, file_path="empty.txt") == "empty.txt is empty."


def test_read_directory_and_missing(tmp_path, ctx):
    (tmp_path / "src").mkdir()
    with pytest.raises(ToolError, match="directory.*Glob"):
        run(READ, ctx, file_path="src")
    with pytest.raises(ToolError, match="File does not exist: nope.txt"):
        run(READ, ctx, file_path="nope.txt")


# --- Write and save_file ----------------------------------------------------------------------------

def test_write_creates_parents_and_exact_content(tmp_path, ctx):
    result = run(WRITE, ctx, file_path="app/main.py", content="print(1)")
    assert result.startswith("Wrote 8 bytes to app/main.py")
    assert (tmp_path / "app/main.py").read_bytes() == b"print(1)"
    run(WRITE, ctx, file_path=str(tmp_path / "app/main.py"), content="x\n")
    assert (tmp_path / "app/main.py").read_bytes() == b"x\n"
    assert [p.name for p in (tmp_path / "app").iterdir()] == ["main.py"]  # no temp files left


def test_write_preserves_mode(tmp_path, ctx):
    script = touch(tmp_path / "run.sh", "#!/bin/sh\n")
    script.chmod(0o750)
    run(WRITE, ctx, file_path="run.sh", content="#!/bin/sh\necho hi\n")
    assert stat.S_IMODE(script.stat().st_mode) == 0o750


def test_write_failure_is_tool_error(tmp_path, ctx):
    touch(tmp_path / "afile", "x")
    with pytest.raises(ToolError, match="Cannot write"):
        run(WRITE, ctx, file_path="afile/child.txt", content="y")


def test_save_file_keeps_old_file_on_failure(tmp_path, monkeypatch):
    target = touch(tmp_path / "keep.txt", "old")

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        save_file(target, b"new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]


# --- Edit -------------------------------------------------------------------------------------------

def test_edit_unique_replacement(tmp_path, ctx):
    touch(tmp_path / "x.py", "a = 1\nb = 2\n")
    assert run(EDIT, ctx, file_path="x.py", old_string="b = 2", new_string="b = 3") == \
        "Edited x.py: replaced 1 occurrence."
    assert (tmp_path / "x.py").read_text() == "a = 1\nb = 3\n"


def test_edit_errors(tmp_path, ctx):
    touch(tmp_path / "x.py", "v = 1\nv = 1\n")
    with pytest.raises(ToolError, match="not found.*Read the file.*indentation"):
        run(EDIT, ctx, file_path="x.py", old_string="w = 1", new_string="w = 2")
    with pytest.raises(ToolError, match="occurs 2 times.*replace_all"):
        run(EDIT, ctx, file_path="x.py", old_string="v = 1", new_string="v = 2")
    with pytest.raises(ToolError, match="identical"):
        run(EDIT, ctx, file_path="x.py", old_string="v = 1", new_string="v = 1")
    with pytest.raises(ToolError, match="empty"):
        run(EDIT, ctx, file_path="x.py", old_string="", new_string="z")
    with pytest.raises(ToolError, match="File does not exist"):
        run(EDIT, ctx, file_path="missing.py", old_string="a", new_string="b")
    assert (tmp_path / "x.py").read_text() == "v = 1\nv = 1\n"


def test_edit_replace_all(tmp_path, ctx):
    touch(tmp_path / "x.py", "v = 1\nv = 1\n")
    result = run(EDIT, ctx, file_path="x.py", old_string="v = 1", new_string="v = 2", replace_all=True)
    assert result == "Edited x.py: replaced 2 occurrences."
    assert (tmp_path / "x.py").read_text() == "v = 2\nv = 2\n"


def test_edit_preserves_crlf(tmp_path, ctx):
    (tmp_path / "w.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    run(EDIT, ctx, file_path="w.txt", old_string="one\ntwo", new_string="1\n2\n2.5")
    assert (tmp_path / "w.txt").read_bytes() == b"1\r\n2\r\n2.5\r\nthree\r\n"


def test_edit_creates_file_with_empty_old_string(tmp_path, ctx):
    run(EDIT, ctx, file_path="new/file.txt", old_string="", new_string="hello\n")
    assert (tmp_path / "new/file.txt").read_text() == "hello\n"


# --- Bash -------------------------------------------------------------------------------------------

def test_bash_exit_code_and_streams(ctx):
    assert run(BASH, ctx, command="echo hi") == "exit code: 0\nhi"
    assert run(BASH, ctx, command="echo out; echo err >&2; exit 3") == "exit code: 3\nout\nstderr:\nerr"


def test_bash_runs_in_workspace_with_stdin_closed(tmp_path, ctx):
    assert run(BASH, ctx, command="pwd") == f"exit code: 0\n{os.path.realpath(tmp_path)}"
    started = time.monotonic()
    assert run(BASH, ctx, command="cat", timeout=5000) == "exit code: 0"
    assert time.monotonic() - started < 2


def _process_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:  # a killed child may linger as a zombie until something reaps it
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z"
    except OSError:
        return True


def test_bash_timeout_kills_process_group(tmp_path, ctx):
    started = time.monotonic()
    with pytest.raises(ToolError) as raised:
        run(BASH, ctx, command="sleep 30 & echo $! > child.pid; echo started; sleep 30", timeout=500)
    assert time.monotonic() - started < 5
    message = str(raised.value)
    assert "timed out after 0.5 s" in message and "started" in message
    child = int((tmp_path / "child.pid").read_text())
    deadline = time.monotonic() + 3
    while not _process_gone(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _process_gone(child)


def test_bash_huge_output_is_truncated(ctx):
    result = run(BASH, ctx, command="yes | head -c 10000000")
    assert len(result) < 40_000
    assert result.startswith("exit code: 0\ny\ny")
    assert "characters dropped ...]" in result


def test_truncate_middle():
    assert truncate_middle("short", 10) == "short"
    assert truncate_middle("a" * 10 + "b" * 10, 10) == "aaaaa\n[... 10 characters dropped ...]\nbbbbb"


# --- Glob -------------------------------------------------------------------------------------------

def test_glob_recursive_sorted_by_mtime(tmp_path, ctx):
    touch(tmp_path / "a.py", mtime=1000)
    touch(tmp_path / "src/b.py", mtime=3000)
    touch(tmp_path / "src/deep/c.py", mtime=2000)
    touch(tmp_path / "src/notes.txt", mtime=4000)
    touch(tmp_path / ".git/hooks/x.py", mtime=5000)
    assert run(GLOB, ctx, pattern="**/*.py") == "src/b.py\nsrc/deep/c.py\na.py"
    assert run(GLOB, ctx, pattern="*.py") == "a.py"
    assert run(GLOB, ctx, pattern="src/**/*.py") == "src/b.py\nsrc/deep/c.py"
    assert run(GLOB, ctx, pattern="*.py", path="src") == "src/b.py"
    assert run(GLOB, ctx, pattern="**/*.rs") == "No files found"


def test_glob_cap_and_missing_path(tmp_path, ctx):
    for n in range(120):
        touch(tmp_path / f"f{n:03}.txt", mtime=1000)
    lines = run(GLOB, ctx, pattern="*.txt").splitlines()
    assert len(lines) == 101
    assert lines[0] == "f000.txt" and lines[-1] == "(showing 100 of 120 matches)"
    with pytest.raises(ToolError, match="does not exist"):
        run(GLOB, ctx, pattern="*", path="nowhere")


# --- Grep -------------------------------------------------------------------------------------------

@pytest.fixture
def tree(tmp_path):
    touch(tmp_path / "a.py", "import os\nTODO = 1\n", mtime=1000)
    touch(tmp_path / "src/b.py", "x = 1\ntodo here\nTODO there\n", mtime=2000)
    touch(tmp_path / "src/c.txt", "TODO text\n", mtime=3000)
    touch(tmp_path / ".git/config", "TODO git\n", mtime=4000)
    (tmp_path / "bin.dat").write_bytes(b"TODO\0binary")
    return tmp_path


def test_grep_output_modes(tree, ctx):
    assert run(GREP, ctx, pattern="TODO") == "src/c.txt\nsrc/b.py\na.py"
    assert run(GREP, ctx, pattern="TODO", output_mode="content") == \
        "a.py:2:TODO = 1\nsrc/b.py:3:TODO there\nsrc/c.txt:1:TODO text"
    assert run(GREP, ctx, pattern="TODO", output_mode="count", **{"-i": True}) == \
        "a.py:1\nsrc/b.py:2\nsrc/c.txt:1"


def test_grep_glob_path_and_no_match(tree, ctx):
    assert run(GREP, ctx, pattern="TODO", glob="*.py") == "src/b.py\na.py"
    assert run(GREP, ctx, pattern="TODO", glob="src/**/*.py") == "src/b.py"
    assert run(GREP, ctx, pattern="TODO", path="src/b.py", output_mode="content") == "src/b.py:3:TODO there"
    assert run(GREP, ctx, pattern="nothing-like-this") == "No matches found"


def test_grep_invalid_regex(tree, ctx):
    with pytest.raises(ToolError, match="Invalid regular expression.*missing"):
        run(GREP, ctx, pattern="(unclosed")


def test_grep_cap_note(tmp_path, ctx):
    touch(tmp_path / "many.txt", "hit\n" * 300)
    lines = run(GREP, ctx, pattern="hit", output_mode="content").splitlines()
    assert len(lines) == 251 and lines[-1] == "(showing 250 of 300 matching lines)"
    for n in range(105):
        touch(tmp_path / f"d/f{n:03}.txt", "hit\n")
    assert run(GREP, ctx, pattern="hit").splitlines()[-1] == "(showing 100 of 106 files)"

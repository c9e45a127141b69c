"""One measured run of a program for `make bench`: its wall time, its own peak memory and its end."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path


@dataclass
class ChildRun:
    """One child process: wall seconds, peak RSS (KB), and how it ended."""

    wall: float
    peak_kb: int
    exit_code: int | None  # None when stopped at the timeout
    stdout: str
    stderr: str

    def failure(self) -> str | None:
        """Why this run does not count: it was stopped or failed (None when it exited 0)."""
        if self.exit_code is None:
            return f"timed out at {self.wall:.1f} s"
        if self.exit_code != 0:
            last = (self.stderr.strip().splitlines() or [""])[-1][:160]
            return f"exit {self.exit_code}: {last}"
        return None


# Spawns the measured program and reports its wall time, peak RSS and exit. Why a process of its
# own: Linux starts a child's ru_maxrss at the RSS of the process that spawned it (the memory it
# had before exec counts), so a child of this process, which holds the scripted model and, after
# the short figures, the Bash parser, would report at least this process's size. This one is a
# bare interpreter (-I -S) of a few MB, well under any run measured.
WRAPPER = """
import os, signal, sys, time
report, timeout, argv = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
stopped = []
def stop(*_):
    stopped.append(1)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
start = time.perf_counter()
pid = os.posix_spawn(argv[0], argv, os.environ)
signal.signal(signal.SIGALRM, stop)
signal.setitimer(signal.ITIMER_REAL, timeout)
_, status, usage = os.wait4(pid, 0)
wall = time.perf_counter() - start
signal.setitimer(signal.ITIMER_REAL, 0)
with open(report, "w") as out:
    out.write(f"{wall} {usage.ru_maxrss} {os.waitstatus_to_exitcode(status)} {len(stopped)}")
"""


def run_child(argv: list[str], cwd: Path, env: dict[str, str], timeout: float) -> ChildRun:
    """Run `argv` (its first item a path) in a fresh process to its end or until `timeout` seconds, killing it then."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile("r", suffix=".rusage") as report:  # files: a full pipe would block the child
        wrapper = [sys.executable, "-I", "-S", "-c", WRAPPER, report.name, str(timeout), *argv]
        finished = subprocess.run(wrapper, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err, check=False)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(errors="replace"), err.read().decode(errors="replace")
        figures = report.read().split()
        if finished.returncode != 0 or len(figures) != 4:
            raise SystemExit(f"the measuring wrapper failed (exit {finished.returncode}) for {' '.join(argv)}\n{stderr}")
        wall, peak_kb, exit_code, stopped = float(figures[0]), int(figures[1]), int(figures[2]), figures[3] != "0"
        return ChildRun(wall, peak_kb, None if stopped else exit_code, stdout, stderr)

"""Running a command in its own process group with bounded output: the Bash tool's commands, a
skill's `!`command``, and hooks. Every command running now is known, so that the agent, ended by a
signal, can take each one's whole process group down before it exits."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Mapping

from agent.secrets.redact import registered

STREAM_LIMIT = 30_000  # characters kept per stream: the first and last half of it
# After the shell exits, how long to keep reading pipes that a background child may still hold open.
DRAIN_GRACE_S = 0.5
# UTF-8 continuation bytes; deleting them from a byte string leaves one byte per character.
_CONTINUATION = bytes(range(0x80, 0xC0))


def truncate_middle(text: str, limit: int) -> str:
    """`text` cut to about `limit` characters by dropping its middle, with a marker saying how much went."""
    if len(text) <= limit:
        return text
    head = limit // 2
    tail = limit - head
    return _join(text[:head], len(text) - head - tail, text[len(text) - tail:])


def _join(head: str, dropped: int, tail: str) -> str:
    return f"{head}\n[... {dropped} characters dropped ...]\n{tail}"


class _Capture:
    """Reads one pipe in a thread, keeping only its head and tail so memory stays bounded."""

    def __init__(self, stream: IO[bytes], limit: int) -> None:
        self.limit = limit
        # Four bytes per character at most, so these always decode to at least limit/2 characters.
        self.head_cap = self.tail_cap = 2 * limit
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped_chars = 0
        self.lock = threading.Lock()
        self.stream = stream
        self.thread = threading.Thread(target=self._pump, daemon=True)
        self.thread.start()

    def _pump(self) -> None:
        fd = self.stream.fileno()
        try:
            while True:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                with self.lock:
                    room = self.head_cap - len(self.head)
                    if room > 0:
                        self.head += chunk[:room]
                        chunk = chunk[room:]
                    self.tail += chunk
                    excess = len(self.tail) - self.tail_cap
                    if excess > 0:
                        self.dropped_chars += len(bytes(self.tail[:excess]).translate(None, _CONTINUATION))
                        del self.tail[:excess]
        except OSError:
            pass
        finally:
            self.stream.close()

    def text(self) -> str:
        """What was read so far, decoded, with the middle dropped when it is over the limit."""
        with self.lock:
            head, tail, dropped = bytes(self.head), bytes(self.tail), self.dropped_chars
        if not dropped:
            return truncate_middle((head + tail).decode("utf-8", errors="replace"), self.limit)
        head_text = head.decode("utf-8", errors="replace")
        tail_text = tail.decode("utf-8", errors="replace")
        keep_head = self.limit // 2
        keep_tail = self.limit - keep_head
        dropped += len(head_text) - keep_head + len(tail_text) - keep_tail
        return _join(head_text[:keep_head], dropped, tail_text[len(tail_text) - keep_tail:])



@dataclass(frozen=True)
class ShellOutcome:
    """How a command ended: its exit code (None when it timed out) and its bounded output."""

    code: int | None
    stdout: str
    stderr: str


# The provider keys are ours, not the commands': a model that runs `env` must not put one into a
# request (and from there into a cassette or a trace).
SECRET_VARIABLES = ("OPENROUTER_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")


def command_environment() -> dict[str, str]:
    """The environment commands run with: ours, less the provider keys and the run's other secrets."""
    hidden = {*SECRET_VARIABLES, *registered()}
    return {name: value for name, value in os.environ.items() if name not in hidden}


def _kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


# Every command running now, in any thread (subagents run theirs in their own), so that the agent,
# ended by a signal, can take each one's whole process group down before it exits.
_RUNNING: set[subprocess.Popen] = set()
_RUNNING_LOCK = threading.Lock()


def kill_running() -> None:
    """Kill the whole process group of every command still running (the agent is ending:
    Ctrl-C, SIGTERM, SIGHUP), including one whose start the signal cut short before it was
    noted here: every child of ours that leads a session of its own is one. Their threads then
    see the commands killed."""
    with _RUNNING_LOCK:
        running = [process.pid for process in _RUNNING if process.returncode is None]  # unreaped: the pid is its group's
    for group in {*running, *_own_sessions()}:
        try:
            os.killpg(group, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _feed(pipe: IO[bytes], data: bytes) -> None:
    try:
        pipe.write(data)
    except (BrokenPipeError, OSError, ValueError):  # the command exited, or closed its stdin
        pass
    finally:
        try:
            pipe.close()
        except OSError:
            pass


def _own_sessions() -> list[int]:
    """The children of this process that lead a session of their own (from /proc; none where
    there is no /proc). A child not yet reaped keeps its pid, so the group is still its own."""
    me, found = os.getpid(), []
    try:
        names = [name for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return found
    for name in names:
        try:
            fields = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == me and int(fields[3]) == int(name):  # parent, then session
                found.append(int(name))
        except (OSError, IndexError, ValueError):
            continue
    return found


def run_shell(command: str, cwd: Path, timeout_s: float, limit: int = STREAM_LIMIT, stdin: bytes | None = None,
              extra_env: Mapping[str, str] | None = None) -> ShellOutcome:
    """Run `bash -c command` in `cwd` in its own process group (killed whole on timeout or
    interrupt), keeping at most about `limit` characters of each stream. stdin is closed, or
    carries `stdin` (written in a thread: a command that never reads it must not block us); the
    environment is `command_environment()` plus `extra_env`. Raises OSError when bash cannot be
    started."""
    process = subprocess.Popen(
        ["bash", "-c", command],
        cwd=cwd,
        env={**command_environment(), **(extra_env or {})},
        stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        with _RUNNING_LOCK:
            _RUNNING.add(process)
        if stdin is not None:
            threading.Thread(target=_feed, args=(process.stdin, stdin), daemon=True).start()
        stdout = _Capture(process.stdout, limit)
        stderr = _Capture(process.stderr, limit)
        code = process.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        code = None
        _kill_group(process)
        process.wait()
    except BaseException:
        # Interrupted (Ctrl-C, or a signal that ends the agent): take the command's whole process group down with us.
        _kill_group(process)
        raise
    finally:
        with _RUNNING_LOCK:
            _RUNNING.discard(process)
    deadline = time.monotonic() + DRAIN_GRACE_S
    for capture in (stdout, stderr):
        capture.thread.join(max(0.0, deadline - time.monotonic()))
    return ShellOutcome(code, stdout.text(), stderr.text())


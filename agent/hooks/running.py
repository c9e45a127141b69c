"""Running one command hook as Claude Code runs it: through bash in the workspace, the moment's
JSON on stdin, Claude Code's variables in its environment (`CLAUDE_PROJECT_DIR`, `CLAUDECODE`,
`CLAUDE_CODE_ENTRYPOINT`, `CLAUDE_CODE_SESSION_ID`), abandoned (its process group killed) at its
timeout, and its output bounded like a tool's."""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from agent.processes.running import run_shell

OUTPUT_LIMIT = 30_000  # characters kept of each stream, as for a Bash call


@dataclass(frozen=True)
class HookRun:
    """How one hook command ended: its exit code (None when it timed out or could not start),
    its output, and how long it took."""

    exit_code: int | None
    stdout: str = ""
    stderr: str = ""
    duration_ms: int = 0
    timed_out: bool = False

    def as_entry(self) -> dict[str, Any]:
        """The fields a recording keeps (the duration is not: it changes every run)."""
        entry = {key: value for key, value in asdict(self).items() if key != "duration_ms"}
        return {key: value for key, value in entry.items() if value not in ("", False) or key == "exit_code"}

    @classmethod
    def from_entry(cls, entry: dict[str, Any]) -> "HookRun":
        """A run as an entry holds it (a live run's carries its duration; a recorded one's does not),
        fields of the wrong type read as absent: a cassette is untrusted."""
        code, duration = entry.get("exit_code"), entry.get("duration_ms")
        return cls(code if isinstance(code, int) and not isinstance(code, bool) else None,
                   _text(entry.get("stdout")), _text(entry.get("stderr")),
                   duration if isinstance(duration, int) and not isinstance(duration, bool) else 0,
                   entry.get("timed_out") is True)


def run_hook(command: str, hook_input: dict[str, Any], cwd: Path, timeout_s: float,
             environment: dict[str, str]) -> HookRun:
    """Run `command` with `hook_input` as JSON on stdin and `environment` added to ours."""
    started = time.monotonic()
    data = json.dumps(hook_input, ensure_ascii=False).encode("utf-8", errors="replace")
    try:
        outcome = run_shell(command, cwd, timeout_s, OUTPUT_LIMIT, stdin=data, extra_env=environment)
    except OSError as error:
        return HookRun(None, "", f"cannot run bash: {error.strerror or error}", _since(started))
    if outcome.code is None:
        return HookRun(None, outcome.stdout, outcome.stderr, _since(started), timed_out=True)
    return HookRun(outcome.code, outcome.stdout, outcome.stderr, _since(started))


def _since(started: float) -> int:
    return int((time.monotonic() - started) * 1000)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""

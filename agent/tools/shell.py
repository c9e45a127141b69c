"""The Bash tool: run a command in the workspace with a timeout and bounded output."""

from __future__ import annotations

import signal
from typing import Any

from agent.processes.running import STREAM_LIMIT, SECRET_VARIABLES, command_environment, kill_running, run_shell, truncate_middle
from agent.secrets import redact
from agent.tools.base import Tool, ToolError, object_schema

__all__ = ["BASH", "STREAM_LIMIT", "SECRET_VARIABLES", "command_environment", "kill_running", "redact_secrets",
           "run_shell", "truncate_middle"]

DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 600_000
def _timeout_ms(arguments: dict[str, Any]) -> float:
    value = arguments.get("timeout")
    if value is None:
        return DEFAULT_TIMEOUT_MS
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise ToolError("timeout must be a positive number of milliseconds.")
    return min(value, MAX_TIMEOUT_MS)


def _exit_line(code: int) -> str:
    if code < 0:
        try:
            return f"exit code: {code} (killed by {signal.Signals(-code).name})"
        except ValueError:
            pass
    return f"exit code: {code}"


def _format(first_line: str, stdout: str, stderr: str) -> str:
    parts = [first_line]
    if stdout.rstrip("\n"):
        parts.append(stdout.rstrip("\n"))
    if stderr.rstrip("\n"):
        parts += ["stderr:", stderr.rstrip("\n")]
    return "\n".join(parts)


# Tool results are redacted by the one rule of `agent.secrets` (every form of every secret): leaving
# the keys out of the commands' environment is not enough, as files can still hold them.
redact_secrets = redact


def _bash(arguments: dict[str, Any], context: Any) -> str:
    command = arguments.get("command")
    if not isinstance(command, str) or not command.strip():
        raise ToolError("command is required and must be a non-empty string.")
    timeout_s = _timeout_ms(arguments) / 1000
    try:
        outcome = run_shell(command, context.workspace.cwd, timeout_s)
    except OSError as error:
        raise ToolError(f"Cannot run bash: {error.strerror or error}") from error
    if outcome.code is None:
        raise ToolError(_format(f"Command timed out after {timeout_s:g} s; its process group was killed.",
                                outcome.stdout, outcome.stderr))
    return _format(_exit_line(outcome.code), outcome.stdout, outcome.stderr)


BASH = Tool(
    name="Bash",
    description=("Run a shell command with bash in the working directory and return its exit code and "
                 "output. stdin is closed, so commands must not wait for input."),
    parameters=object_schema(
        {
            "command": {"type": "string", "description": "The command to run."},
            "timeout": {"type": "number",
                        "description": "Timeout in milliseconds (default 120000, max 600000)."},
        },
        ["command"],
    ),
    run=_bash,
)

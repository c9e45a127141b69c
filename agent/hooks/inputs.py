"""The `tool_response` a PostToolUse hook reads, in the shape Claude Code gives it for the tools
hooks most often watch (Bash, Write, Edit, Read); other tools' responses are their result text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

_EXIT_LINE = "exit code: "
_STDERR_MARK = "\nstderr:\n"


def tool_response(tool: str, arguments: dict[str, Any], output: str, cwd: Path) -> Any:
    """What `tool`, called with `arguments`, returned (`output`, its result text), as a hook sees it."""
    if tool == "Bash":
        return _bash_response(output)
    path = arguments.get("file_path") if isinstance(arguments.get("file_path"), str) else None
    if path is None:
        return output
    file_path = str(Path(cwd) / Path(path).expanduser())
    if tool == "Write":
        kind = "update" if output.lower().startswith(("updated", "overwrote", "replaced")) else "create"
        return {"type": kind, "filePath": file_path, "content": arguments.get("content", ""), "structuredPatch": [],
                "originalFile": None, "userModified": False}
    if tool == "Edit":
        return {"filePath": file_path, "oldString": arguments.get("old_string", ""),
                "newString": arguments.get("new_string", ""), "replaceAll": bool(arguments.get("replace_all")),
                "structuredPatch": [], "userModified": False}
    if tool == "Read":
        return {"type": "text", "file": {"filePath": file_path, "content": output}}
    return output


def failed(tool: str, result: dict[str, Any]) -> bool:
    """Whether a call failed as Claude Code counts it (its PostToolUseFailure moment): an error
    result, or a Bash command that exited non-zero (Claude Code's Bash result is then an error;
    ours reports the exit code to the model as a plain result)."""
    if result.get("is_error"):
        return True
    content = result.get("content")
    if tool != "Bash" or not isinstance(content, str) or not content.startswith(_EXIT_LINE):
        return False
    code = content[len(_EXIT_LINE):].partition("\n")[0].split(" ")[0]
    return code.lstrip("-").isdigit() and int(code) != 0


def _bash_response(output: str) -> dict[str, Any]:
    """Our Bash result (`exit code: N`, stdout, then `stderr:` and stderr) split as Claude Code's."""
    first, _, body = output.partition("\n")
    if not first.startswith(_EXIT_LINE):
        body = output
    if body.startswith("stderr:\n"):
        stdout, stderr = "", body[len("stderr:\n"):]
    elif _STDERR_MARK in body:
        stdout, _, stderr = body.rpartition(_STDERR_MARK)
    else:
        stdout, stderr = body, ""
    return {"stdout": stdout, "stderr": stderr, "interrupted": False, "isImage": False,
            "noOutputExpected": False}

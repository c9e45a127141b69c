"""File tools: Read, Write and Edit. They save with `agent.workspace.save_file`, which keeps what a
path is (hard links, devices and FIFOs)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from agent.tools.base import Tool, ToolError, object_schema
from agent.tools.notebook_cells import is_notebook, show_notebook
from agent.tools.reading import bounded_lines, count_lines, looks_binary
from agent.workspace import open_regular, save_file, special_file


DEFAULT_LINE_LIMIT = 2000
MAX_READ_BYTES = 256 * 1024  # what one Read returns, and the longest line it holds
COUNT_SCAN_BYTES = 64 * 1024 * 1024  # how far past what it shows Read reads to count a file's lines
MAX_EDIT_BYTES = 32 * 1024 * 1024  # Edit holds the whole file (and its new version) in memory


def _path_arg(arguments: dict[str, Any], context: Any) -> tuple[Path, str]:
    value = arguments.get("file_path")
    if not isinstance(value, str) or not value:
        raise ToolError("file_path is required and must be a non-empty string.")
    path = context.workspace.resolve(value)
    return path, context.workspace.display(path)


def _int_arg(arguments: dict[str, Any], name: str, minimum: int) -> int | None:
    value = arguments.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ToolError(f"{name} must be an integer.")
    if value < minimum:
        raise ToolError(f"{name} must be at least {minimum}.")
    return value


def _os_reason(error: OSError) -> str:
    return error.strerror or str(error)


def _not_regular(shown: str, kind: str) -> ToolError:
    return ToolError(f"{shown} is {kind}, not a regular file; Read, Write and Edit work only on regular files.")


def _refuse_special(path: Path, shown: str) -> None:
    """The file tools work on regular files only: a device, FIFO or socket is refused before it is
    opened (reading a FIFO would wait forever, and saving over one would change what it is)."""
    if kind := special_file(path):
        raise _not_regular(shown, kind)


def _read(arguments: dict[str, Any], context: Any) -> str:
    path, shown = _path_arg(arguments, context)
    offset = _int_arg(arguments, "offset", 0)
    limit = _int_arg(arguments, "limit", 1)
    if path.is_dir():
        raise ToolError(f"{shown} is a directory, not a file. Use Glob or Bash `ls` to list its contents.")
    if not path.exists():
        raise ToolError(f"File does not exist: {shown}")
    if is_notebook(path):  # its cells, as Claude Code shows them (offset and limit do not apply)
        _refuse_special(path, shown)
        return show_notebook(path, shown)
    start = max(offset or 1, 1)
    max_lines = limit or DEFAULT_LINE_LIMIT
    chunks: list[bytes] = []
    used = total = scanned = longest = 0
    over_cap = counted = line_cut = False
    try:
        with _open(path, shown) as handle:
            size = os.fstat(handle.fileno()).st_size
            if looks_binary(handle):
                return f"{shown} is a binary file ({size} bytes); its contents are not shown."
            # Files of size 0 may still have contents (/proc, /sys): read them up to the cap all the same.
            for total, (line, length) in enumerate(bounded_lines(handle, MAX_READ_BYTES), 1):
                scanned += length
                if total < start:
                    continue
                if used + len(line) > MAX_READ_BYTES or length > len(line):
                    over_cap = True
                    if not chunks:  # one line longer than the cap (minified code): show its beginning
                        chunks.append(line)
                        line_cut, longest = length > len(line), length
                    break
                chunks.append(line)
                used += len(line)
                if len(chunks) >= max_lines:
                    break
            more, counted = count_lines(handle, COUNT_SCAN_BYTES)
            total += more
    except OSError as error:
        raise ToolError(f"Cannot read {shown}: {_os_reason(error)}") from error
    if total == 0:
        return f"{shown} is empty."
    if start > total and counted:
        raise ToolError(f"{shown} has {total} lines; offset {start} is past the end.")
    text = b"".join(chunks).decode("utf-8", errors="replace")
    last = start + len(chunks) - 1
    size = size or scanned
    of_total = f"{total}" if counted else f"more than {total}"
    if over_cap:
        cut = f" (line {start} is {longest} bytes, cut there)" if line_cut else ""
        note = (f"[... file is {size} bytes, over the {MAX_READ_BYTES // 1024} KB limit for one read; "
                f"showed lines {start}-{last} of {of_total}{cut}. Use offset and limit to read more.]")
    elif limit is None and last < total:
        size_note = f" ({size} bytes)" if size > MAX_READ_BYTES else ""
        note = f"[... file has {of_total} lines{size_note}; showed {start}-{last}. Use offset and limit to read more.]"
    else:
        return text
    return text + ("" if text.endswith("\n") else "\n") + note


def _open(path: Path, shown: str):
    """`path` opened as a regular file, or the tool error every file tool gives for anything else
    (looked at before the open, so the message names what it is)."""
    _refuse_special(path, shown)
    return open_regular(path)


def _write(arguments: dict[str, Any], context: Any) -> str:
    path, shown = _path_arg(arguments, context)
    content = arguments.get("content")
    if not isinstance(content, str):
        raise ToolError("content is required and must be a string.")
    if path.is_dir():
        raise ToolError(f"{shown} is a directory; give a file path.")
    _refuse_special(path, shown)
    existed = path.exists()
    data = content.encode("utf-8", errors="replace")
    try:
        save_file(path, data)
    except OSError as error:
        raise ToolError(f"Cannot write {shown}: {_os_reason(error)}") from error
    how = "overwrote the existing file" if existed else "new file"
    return f"Wrote {len(data)} bytes to {shown} ({how})."


def _to_crlf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


def _edit(arguments: dict[str, Any], context: Any) -> str:
    path, shown = _path_arg(arguments, context)
    old = arguments.get("old_string")
    new = arguments.get("new_string")
    replace_all = arguments.get("replace_all", False)
    if not isinstance(old, str) or not isinstance(new, str):
        raise ToolError("old_string and new_string are required and must be strings.")
    if old == new:
        raise ToolError("old_string and new_string are identical; there is nothing to change.")
    if path.is_dir():
        raise ToolError(f"{shown} is a directory, not a file.")
    if not path.exists():
        if old:
            raise ToolError(f"File does not exist: {shown}")
        return _write({"file_path": str(path), "content": new}, context)
    try:
        with _open(path, shown) as handle:
            if looks_binary(handle):
                raise ToolError(f"{shown} is a binary file; Edit only changes text files.")
            if (size := os.fstat(handle.fileno()).st_size) > MAX_EDIT_BYTES:
                raise ToolError(f"{shown} is {size} bytes, over the {MAX_EDIT_BYTES // 2**20} MB Edit works "
                                "on; change it with Bash (sed) instead.")
            data = handle.read(MAX_EDIT_BYTES + 1)
        # surrogateescape round-trips bytes that are not valid UTF-8 instead of corrupting them.
        text = data.decode("utf-8", errors="surrogateescape")
    except OSError as error:
        raise ToolError(f"Cannot read {shown}: {_os_reason(error)}") from error
    if not old:
        if text:
            raise ToolError(f"old_string is empty but {shown} already has content. Give the exact text "
                            "to replace, or use Write to replace the whole file.")
        count = 1
        updated = new
    else:
        crlf = text.count("\r\n") * 2 > text.count("\n")
        candidates = [(_to_crlf(old), _to_crlf(new)), (old, new)] if crlf else [(old, new)]
        count = 0
        for old_text, new_text in candidates:
            count = text.count(old_text)
            if count:
                break
        if count == 0:
            raise ToolError(f"old_string was not found in {shown}. Read the file and copy the exact text "
                            "to replace, including whitespace and indentation.")
        if count > 1 and not replace_all:
            raise ToolError(f"old_string occurs {count} times in {shown}. Add surrounding context to make "
                            "it unique, or set replace_all to true to replace every occurrence.")
        updated = text.replace(old_text, new_text)
    try:
        save_file(path, updated.encode("utf-8", errors="surrogateescape"))
    except (OSError, UnicodeEncodeError) as error:
        raise ToolError(f"Cannot write {shown}: {error}") from error
    return f"Edited {shown}: replaced {count} occurrence{'' if count == 1 else 's'}."


_FILE_PATH = {"type": "string", "description": "Absolute path, or a path relative to the working directory."}

READ = Tool(
    name="Read",
    description=("Read a text file and return its raw contents. At most 2000 lines are returned by "
                 "default; use offset and limit to read other parts of long files."),
    parameters=object_schema(
        {
            "file_path": _FILE_PATH,
            "offset": {"type": "integer", "description": "1-based line number to start reading from."},
            "limit": {"type": "integer", "description": "Number of lines to read."},
        },
        ["file_path"],
    ),
    run=_read,
    read_only=True,
)

WRITE = Tool(
    name="Write",
    description=("Write content to a file, creating parent folders and replacing any existing file. "
                 "Prefer Edit for changing part of an existing file."),
    parameters=object_schema(
        {
            "file_path": _FILE_PATH,
            "content": {"type": "string", "description": "The complete new contents of the file."},
        },
        ["file_path", "content"],
    ),
    run=_write,
)

EDIT = Tool(
    name="Edit",
    description=("Replace exact text in a file. old_string must match the file exactly, including "
                 "whitespace and indentation, and occur once unless replace_all is true. "
                 "An empty old_string creates a new file."),
    parameters=object_schema(
        {
            "file_path": _FILE_PATH,
            "old_string": {"type": "string", "description": "The exact text to replace."},
            "new_string": {"type": "string", "description": "The text to put in its place."},
            "replace_all": {"type": "boolean", "description": "Replace every occurrence (default false)."},
        },
        ["file_path", "old_string", "new_string"],
    ),
    run=_edit,
)

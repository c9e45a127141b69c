"""NotebookEdit: replace, insert or delete one cell of a Jupyter notebook by its id, with Claude
Code 2.1.332's schema, checks and results. The notebook must have been read in this conversation
first, and not changed since; it is written back atomically (`agent.workspace.save_file`: a temporary file in the same
folder, then a rename) as JSON indented one space, as Claude Code writes it, every other cell and
the metadata as they were."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from agent.conversation import valid_text
from agent.tools.base import Tool, ToolError
from agent.tools.notebook_cells import cell_ids, is_notebook, load_notebook, notebook_view
from agent.tools.shell import redact_secrets
from agent.workspace import save_file

NAME = "NotebookEdit"
EDIT_MODES = ("replace", "insert", "delete")
CELL_TYPES = ("code", "markdown")


def _run(arguments: dict[str, Any], context: Any) -> str:
    raw = arguments.get("notebook_path")
    source = arguments.get("new_source")
    if not isinstance(raw, str) or not raw:
        raise ToolError("notebook_path is required and must be a non-empty string.")
    if not isinstance(source, str):
        raise ToolError("new_source is required and must be a string.")
    mode = arguments.get("edit_mode") or "replace"
    cell_type = arguments.get("cell_type")
    cell_id = arguments.get("cell_id")
    if mode not in EDIT_MODES:
        raise ToolError(f"edit_mode must be one of {', '.join(EDIT_MODES)}.")
    if cell_type is not None and cell_type not in CELL_TYPES:
        raise ToolError(f"cell_type must be one of {', '.join(CELL_TYPES)}.")
    path = context.workspace.resolve(raw)
    shown = context.workspace.display(path)
    if not is_notebook(path):
        raise ToolError("File must be a Jupyter notebook (.ipynb file). For editing other file types, use the Edit tool.")
    found, view = last_view(path, context)
    if not found:
        raise ToolError("File has not been read yet. Read it first before writing to it.")
    notebook, newline = load_notebook(path, shown)  # read once: what is compared is what is edited
    if view is not None and _shown(notebook) not in view:
        raise ToolError("File has been modified since read, either by the user or by a linter. Read it again "
                        "before attempting to write it.")
    if mode == "insert" and cell_type is None:
        raise ToolError("Cell type is required when using edit_mode=insert.")
    if mode != "insert" and not cell_id:
        raise ToolError("Cell ID must be specified when not inserting a new cell.")
    cells: list[dict[str, Any]] = notebook["cells"]
    ids = cell_ids(notebook)
    if cell_id and cell_id not in ids:
        raise ToolError(f'Cell with ID "{cell_id}" not found in notebook.')
    index = ids.index(cell_id) if cell_id else -1
    if mode == "delete":
        del cells[index]
        result = f"Deleted cell {cell_id}"
    elif mode == "insert":
        cell, new_id = _new_cell(notebook, ids, cell_type, source, index + 1)
        cells.insert(index + 1, cell)
        result = f"Inserted cell {new_id} with {source}" if new_id else f"Inserted a new cell with {source}"
    else:
        _replace(cells[index], source, cell_type)
        result = f"Updated cell {cell_id} with {source}"
    _save(path, shown, notebook, newline)
    return result


def _replace(cell: dict[str, Any], source: str, cell_type: str | None) -> None:
    """The cell with its new source (and type): a code cell's outputs belonged to the old source,
    so they go, as Claude Code clears them; a cell that is no longer code has none."""
    cell["source"] = source
    if cell_type:
        cell["cell_type"] = cell_type
    if cell.get("cell_type", "code") == "code":
        cell["execution_count"] = None
        cell["outputs"] = []
    else:
        cell.pop("execution_count", None)
        cell.pop("outputs", None)


def _new_cell(notebook: dict[str, Any], ids: list[str], cell_type: str, source: str,
              position: int) -> tuple[dict[str, Any], str | None]:
    """A new cell as Claude Code makes one, and its id: only notebooks of nbformat 4.5 or later
    have cell ids. The id is derived from the notebook and the edit (not random), so a replay
    that runs the tool again sees the result the recording did."""
    cell: dict[str, Any] = {"cell_type": cell_type}
    new_id = _fresh_id(ids, source, position) if _has_ids(notebook) else None
    if new_id:
        cell["id"] = new_id
    cell.update(source=source, metadata={})
    if cell_type == "code":
        cell.update(execution_count=None, outputs=[])
    return cell, new_id


def _has_ids(notebook: dict[str, Any]) -> bool:
    major, minor = notebook.get("nbformat"), notebook.get("nbformat_minor")
    if not isinstance(major, int) or not isinstance(minor, int):
        return any("id" in cell for cell in notebook["cells"])
    return (major, minor) >= (4, 5)


def _fresh_id(ids: list[str], source: str, position: int) -> str:
    """Eight hex digits, as Claude Code's ids look, unused in the notebook."""
    seed = json.dumps([ids, source, position], ensure_ascii=False).encode("utf-8", errors="surrogatepass")
    for attempt in range(1000):
        candidate = hashlib.sha256(seed + str(attempt).encode()).hexdigest()[:8]
        if candidate not in ids:
            return candidate
    raise ToolError("Could not find an unused cell id for the new cell.")


def _save(path: Path, shown: str, notebook: dict[str, Any], newline: bool) -> None:
    try:  # a number past a float's range (1e400) was read as infinity, which JSON cannot hold
        text = json.dumps(notebook, indent=1, ensure_ascii=False, allow_nan=False)
    except ValueError:
        raise ToolError(f"Cannot write {shown}: it holds a number too large for JSON (read as infinity); fix it "
                        "with Bash (jq) before editing cells.") from None
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (a JSON escape in the file): written escaped again
        data = json.dumps(notebook, indent=1, allow_nan=False).encode("ascii")
    try:
        save_file(path, data + (b"\n" if newline else b""))
    except OSError as error:
        raise ToolError(f"Cannot write {shown}: {error.strerror or error}") from error


def last_view(path: Path, context: Any) -> tuple[bool, str | None]:
    """Whether this conversation read the notebook at `path` (a Read of it that succeeded, or a
    NotebookEdit of it since), what Claude Code requires before an edit; and what the latest of
    those Reads showed (None when an edit came after it). The conversation itself is the record,
    so a resumed or replayed session knows what it read, the same way every run."""
    messages = getattr(context, "messages", None) or []
    succeeded = {block.get("tool_use_id"): block.get("content") for message in messages
                 if message.get("role") == "user" for block in _blocks(message)
                 if block.get("type") == "tool_result" and not block.get("is_error")}
    target = _real(path)
    found, view = False, None
    for message in messages:
        for block in _blocks(message) if message.get("role") == "assistant" else []:
            if block.get("type") != "tool_use" or block.get("id") not in succeeded:
                continue
            key = {"Read": "file_path", NAME: "notebook_path"}.get(block.get("name"))
            value = (block.get("input") or {}).get(key) if key else None
            if isinstance(value, str) and value and target and _real(context.workspace.resolve(value)) == target:
                shown = succeeded[block["id"]]
                found, view = True, shown if block.get("name") == "Read" and isinstance(shown, str) else None
    return found, view


def _real(path: Path) -> str | None:
    """`path` with its symlinks resolved; None for a path no file can have (a NUL in it)."""
    try:
        return os.path.realpath(path)
    except ValueError:
        return None


def _shown(notebook: dict[str, Any]) -> str:
    """What a Read of the notebook would show now, as the conversation would hold it (secrets
    redacted, text made valid), to compare with what the last Read showed: a notebook changed since
    (by the user, a linter, a command) must be read again before it is edited, as in Claude Code.
    A Read result that a hook added to still holds the view, so containing it is enough."""
    return valid_text(redact_secrets(notebook_view(notebook)))


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    return [block for block in content if isinstance(block, dict)] if isinstance(content, list) else []


NOTEBOOK_EDIT = Tool(
    name=NAME,
    description=(
        "Replace, insert or delete one cell of a Jupyter notebook (.ipynb).\n\n"
        "- Read the notebook in this conversation first; editing one that was not read fails.\n"
        "- notebook_path must be an absolute path.\n"
        "- cell_id is the id shown in Read's <cell id=\"...\"> tags; replace and delete need it.\n"
        "- edit_mode is replace unless given. insert puts a new cell after the cell_id given (at the "
        "start of the notebook without one) and needs cell_type. delete removes the cell."),
    parameters={
        "type": "object",
        "properties": {
            "notebook_path": {"description": "The absolute path of the notebook to edit (not a relative path)",
                              "type": "string"},
            "cell_id": {"description": "The id of the cell to edit. Inserting, the new cell goes after this cell, "
                                       "or first when it is not given.", "type": "string"},
            "new_source": {"description": "The new source of the cell", "type": "string"},
            "cell_type": {"description": "The cell's type (code or markdown); the cell's own type when not given. "
                                         "Required with edit_mode=insert.", "type": "string", "enum": list(CELL_TYPES)},
            "edit_mode": {"description": "The kind of edit (replace, insert, delete); replace when not given.",
                          "type": "string", "enum": list(EDIT_MODES)},
        },
        "required": ["notebook_path", "new_source"],
        "additionalProperties": False,
    },
    run=_run,
)

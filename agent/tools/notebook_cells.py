"""Jupyter notebooks (.ipynb) as Read shows them and NotebookEdit changes them: read within a size
cap, parsed with limits, checked in shape before anything looks at a cell, and each cell shown as
Claude Code 2.1.332 shows it: `<cell id="…">` (with `<cell_type>` for a cell that is not code,
`<language>` for code in a language other than Python), its source, `</cell id="…">`, then its
outputs' text."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from agent.tools.base import ToolError
from agent.workspace import FileTooLarge, deeper_than, read_bounded, size_text, MAX_JSON_DEPTH

NOTEBOOK_SUFFIX = ".ipynb"
MAX_NOTEBOOK_BYTES = 64 * 1024 * 1024  # a notebook's file, images in its outputs included
MAX_SHOWN_BYTES = 256 * 1024  # what one Read of a notebook returns, as Claude Code caps it
MAX_OUTPUT_CHARS = 10_000  # a cell's outputs past this are named, not shown, as Claude Code does
# what parsing and walking a notebook may cost: objects and arrays in its file (counted as the
# brackets that open them, strings' own included, before it is parsed), and its cells (a Read
# shows no more than about 9,000: each cell's tags take 28 bytes or more of MAX_SHOWN_BYTES)
MAX_JSON_CONTAINERS = 1_000_000
MAX_CELLS = 10_000
# nbformat's own rule for a cell id; one outside it could break the <cell id="…"> framing
_CELL_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_NOT_A_NOTEBOOK = ('Notebook file is not a valid Jupyter notebook (top-level "cells" must be an array of cell '
                   'objects, each with a string or string-array "source").')


def is_notebook(path: Path) -> bool:
    """Whether Read shows `path` as a notebook and NotebookEdit works on it."""
    return path.suffix.lower() == NOTEBOOK_SUFFIX


def load_notebook(path: Path, shown: str) -> tuple[dict[str, Any], bool]:
    """The notebook at `path`, checked in shape, and whether its file ended with a newline (kept
    when it is written back); a tool error for a file too big, not JSON, or not a notebook."""
    try:
        data = read_bounded(path, MAX_NOTEBOOK_BYTES)
    except FileTooLarge as error:
        raise ToolError(f"{shown} is over the {size_text(MAX_NOTEBOOK_BYTES)} a notebook is read up to; use Bash "
                        "with jq to work on parts of it.") from error
    except OSError as error:
        raise ToolError(f"Cannot read {shown}: {error.strerror or error}") from error
    notebook = parse_notebook(data)
    return notebook, data.rstrip(b" \t\r").endswith(b"\n")


def parse_notebook(data: bytes) -> dict[str, Any]:
    """The notebook in `data` (a file's bytes), or the tool error saying why it is none."""
    deep = ToolError(f"Notebook file nests deeper than {MAX_JSON_DEPTH} levels; it is not read.")
    if data.count(b"{") + data.count(b"[") > MAX_JSON_CONTAINERS:
        raise ToolError(f"Notebook file holds more than {MAX_JSON_CONTAINERS:,} JSON objects and arrays; it is not "
                        "read. Use Bash with jq to work on parts of it.")
    try:
        notebook = json.loads(data.decode("utf-8"), parse_constant=_no_constant)
    except RecursionError:  # the decoder gives up near the interpreter's limit
        raise deep from None
    except ValueError as error:  # UnicodeDecodeError too
        raise ToolError("Notebook file is not valid JSON (it may be truncated, corrupted, or still being written): "
                        f"{error}") from None
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if isinstance(cells, list) and len(cells) > MAX_CELLS:
        raise ToolError(f"Notebook file has {len(cells):,} cells, more than the {MAX_CELLS:,} read or edited here. "
                        "Use Bash with jq to work on parts of it.")
    if deeper_than(notebook, MAX_JSON_DEPTH):
        raise deep
    if not isinstance(cells, list) or not all(_is_cell(cell) for cell in cells):
        raise ToolError(_NOT_A_NOTEBOOK)
    ids = [cell["id"] for cell in cells if "id" in cell]
    if odd := next((cell_id for cell_id in ids if not isinstance(cell_id, str) or not _CELL_ID.fullmatch(cell_id)),
                   None):
        raise ToolError(f"Notebook file has a cell id that is not a valid nbformat id (1 to 64 letters, digits, "
                        f"- or _): {json.dumps(odd)[:80]}; fix it with Bash (jq) before reading or editing cells.")
    shown = cell_ids(notebook)  # a cell without an id is shown as `cell-<index>`, which another may have as its own
    if len(set(shown)) != len(shown):
        seen: set[str] = set()
        twice = next(cell_id for cell_id in shown if cell_id in seen or seen.add(cell_id))
        raise ToolError(f"Notebook file has more than one cell with the id {json.dumps(twice)}; cell ids must be "
                        "unique to read or edit cells.")
    return notebook


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def _is_cell(cell: Any) -> bool:
    source = cell.get("source") if isinstance(cell, dict) else None
    return isinstance(source, str) or (isinstance(source, list) and all(isinstance(part, str) for part in source))


def cell_ids(notebook: dict[str, Any]) -> list[str]:
    """Each cell's id as Read shows it: its own, or `cell-<index>` for a notebook older than
    nbformat 4.5 (whose cells have none)."""
    return [cell.get("id") or f"cell-{index}" for index, cell in enumerate(notebook["cells"])]


def joined(value: Any) -> str:
    """A notebook text field (a string, or a list of strings) as one string."""
    if isinstance(value, list):
        return "".join(part for part in value if isinstance(part, str))
    return value if isinstance(value, str) else ""


def show_notebook(path: Path, shown: str) -> str:
    """Read's view of the notebook at `path` (see `notebook_view`)."""
    return notebook_view(load_notebook(path, shown)[0])


def notebook_view(notebook: dict[str, Any]) -> str:
    """Read's view of `notebook` (as `parse_notebook` gave it): every cell as Claude Code shows it,
    each piece on its own line; a notebook whose view passes MAX_SHOWN_BYTES is a tool error, as
    Claude Code's."""
    language = _language(notebook)
    pieces: list[str] = []
    for index, (cell, cell_id) in enumerate(zip(notebook["cells"], cell_ids(notebook))):
        pieces.append(_cell_tag(cell, cell_id, language))
        pieces.extend(_outputs(cell, index))
    text = "\n".join(pieces) + "\n" if pieces else ""
    if (size := len(text.encode("utf-8", errors="replace"))) > MAX_SHOWN_BYTES:
        raise ToolError(
            f"Notebook content ({size / 1024:.1f}KB) exceeds maximum allowed size ({MAX_SHOWN_BYTES // 1024}KB). "
            "Use Bash with jq to read specific portions:\n"
            "  cat <notebook_path> | jq '.cells[:20]' # First 20 cells\n"
            "  cat <notebook_path> | jq '.cells[100:120]' # Cells 100-120\n"
            "  cat <notebook_path> | jq '.cells | length' # Count total cells\n"
            "  cat <notebook_path> | jq '.cells[] | select(.cell_type==\"code\") | .source' # All code sources")
    return text


def _language(notebook: dict[str, Any]) -> str:
    metadata = notebook.get("metadata")
    info = metadata.get("language_info") if isinstance(metadata, dict) else None
    name = info.get("name") if isinstance(info, dict) else None
    return name if isinstance(name, str) and name else "python"


def _cell_tag(cell: dict[str, Any], cell_id: str, language: str) -> str:
    kind = cell.get("cell_type") if isinstance(cell.get("cell_type"), str) else "code"
    head = f"<cell_type>{kind}</cell_type>" if kind != "code" else ""
    if kind == "code" and language != "python":
        head += f"<language>{language}</language>"
    return f'<cell id="{cell_id}">{head}{joined(cell["source"])}</cell id="{cell_id}">'


def _outputs(cell: dict[str, Any], index: int) -> list[str]:
    """The text of a code cell's outputs, one piece each (an image named, as a tool result here
    holds text only); outputs longer than MAX_OUTPUT_CHARS together are named instead."""
    outputs = cell.get("outputs") if cell.get("cell_type", "code") == "code" else None
    pieces = [piece for output in outputs if isinstance(output, dict)
              for piece in _output_pieces(output)] if isinstance(outputs, list) else []
    if sum(len(piece) for piece in pieces) > MAX_OUTPUT_CHARS:
        return [f"\nOutputs are too large to include. Use Bash with: cat <notebook_path> | jq '.cells[{index}].outputs'"]
    return pieces


def _output_pieces(output: dict[str, Any]) -> list[str]:
    kind = output.get("output_type")
    if kind == "stream":
        return ["\n" + joined(output.get("text"))]
    if kind == "error":
        traceback = output.get("traceback")
        lines = [line for line in traceback if isinstance(line, str)] if isinstance(traceback, list) else []
        return ["\n" + "\n".join([f"{joined(output.get('ename'))}: {joined(output.get('evalue'))}", *lines])]
    if kind in ("execute_result", "display_data"):
        data = output.get("data") if isinstance(output.get("data"), dict) else {}
        pieces = ["\n" + joined(data["text/plain"])] if "text/plain" in data else []
        for media in ("image/png", "image/jpeg"):
            if isinstance(data.get(media), (str, list)):
                pieces.append(f"[{media} output of {len(joined(data[media]))} base64 characters, not shown]")
        return pieces
    return []

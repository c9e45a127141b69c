"""NotebookEdit and Read on notebooks written by someone else, end to end: cell ids that Read
would show twice, numbers JSON cannot hold written back, and edits through a symlink judged and
written at its real target (the file's permission mode kept)."""

import json
import os

from scripted_model import call, text
from test_notebook_edit import NOTEBOOK, edit, results


def test_a_notebook_whose_cells_read_would_show_with_one_id_is_refused_and_left_as_it_was(agent):
    # the second cell has no id, so Read names it "cell-1": the id the first cell has of its own
    content = json.dumps({"cells": [{"cell_type": "code", "id": "cell-1", "metadata": {}, "source": "first"},
                                    {"cell_type": "code", "metadata": {}, "source": "second"}],
                          "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    path = agent.write("clash.ipynb", content)
    agent.script(call("Read", file_path="clash.ipynb"),
                 call("Read", file_path="clash.ipynb", offset=1),
                 edit(str(path), cell_id="cell-1", new_source="changed"),
                 text("Done."))
    found = results(agent.run("Edit it.").payloads[-1])
    assert found[0].startswith('Error: Notebook file has more than one cell with the id "cell-1"')
    assert found[2] == "Error: File has not been read yet. Read it first before writing to it."
    assert path.read_text() == content


def test_a_number_json_cannot_hold_is_not_written_back_as_invalid_json(agent):
    content = ('{"cells": [{"cell_type": "code", "id": "a", "metadata": {"big": 1e400}, "outputs": [], '
               '"execution_count": null, "source": "x = 1"}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
    path = agent.write("big.ipynb", content)
    agent.script(call("Read", file_path="big.ipynb"), edit(str(path), cell_id="a", new_source="x = 2"),
                 call("Read", file_path="big.ipynb"), text("Done."))
    found = results(agent.run("Edit it.").payloads[-1])
    assert found[0] == '<cell id="a">x = 1</cell id="a">\n'
    assert found[1].startswith("Error: ") and "1e400" not in found[1] and "too large" in found[1]
    assert found[2] == found[0]  # still readable: never written as Infinity, which is not JSON
    assert path.read_text() == content


def test_an_edit_through_a_symlink_is_judged_and_written_at_its_real_target(agent, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    real = outside / "nb.ipynb"
    real.write_text(json.dumps(NOTEBOOK))
    real.chmod(0o640)
    link = agent.workspace / "link.ipynb"
    link.symlink_to(real)
    inside = agent.write("kept/nb.ipynb", json.dumps(NOTEBOOK))
    (agent.workspace / "kept-link.ipynb").symlink_to(inside)
    steps = (call("Read", file_path="link.ipynb"), edit(str(link), cell_id="code-b", new_source="y = 1"))
    # acceptEdits approves edits inside the workspace only: the link's target is outside it
    agent.settings({"permissions": {"defaultMode": "acceptEdits"}})
    agent.script(*steps, text("Asked."))
    asked = results(agent.run("Edit.").payloads[-1])[1]
    assert asked.startswith("Error: NotebookEdit of 'link.ipynb' (its real path, through a symlink, is outside the "
                            "workspace) needs approval")
    # a deny rule on the real target refuses the edit through a link inside the workspace
    agent.settings({"permissions": {"defaultMode": "bypassPermissions", "deny": ["Edit(kept/**)"]}})
    agent.script(call("Read", file_path="kept-link.ipynb"),
                 edit(str(agent.workspace / "kept-link.ipynb"), cell_id="code-b", new_source="y = 2"), text("Denied."))
    denied = results(agent.run("Edit.").payloads[-1])[1]
    assert denied.startswith("Error: NotebookEdit of 'kept-link.ipynb' is denied by the permission rule 'Edit(kept/**)'")
    assert json.loads(inside.read_text()) == NOTEBOOK
    # allowed, the edit goes to the target: the link stays a link and the file keeps its mode
    agent.settings({"permissions": {"defaultMode": "bypassPermissions"}})
    agent.script(*steps, text("Edited."))
    assert results(agent.run("Edit.").payloads[-1])[1] == "Updated cell code-b with y = 1"
    assert os.path.islink(link) and (real.stat().st_mode & 0o777) == 0o640
    assert json.loads(real.read_text())["cells"][2]["source"] == "y = 1"
    assert [p.name for p in outside.iterdir()] == ["nb.ipynb"]  # no temporary file left beside it


def test_a_notebook_too_costly_to_parse_or_walk_is_refused_before_it_is(agent):
    from agent.tools.notebook_cells import MAX_CELLS, MAX_JSON_CONTAINERS

    agent.write("arrays.ipynb", '{"cells": [], "metadata": {"x": [' + "[]," * MAX_JSON_CONTAINERS + "[]]}}")
    agent.write("cells.ipynb", json.dumps({"cells": [{"source": ""}] * (MAX_CELLS + 1), "metadata": {}}))
    agent.script(call("Read", file_path="arrays.ipynb"), call("Read", file_path="cells.ipynb"), text("Done."))
    found = results(agent.run("Read them.").payloads[-1])
    assert found == ["Error: Notebook file holds more than 1,000,000 JSON objects and arrays; it is not read. "
                     "Use Bash with jq to work on parts of it.",
                     "Error: Notebook file has 10,001 cells, more than the 10,000 read or edited here. "
                     "Use Bash with jq to work on parts of it."]


def test_a_notebook_path_with_a_nul_is_a_plain_tool_error(agent):
    path = agent.write("nb.ipynb", json.dumps(NOTEBOOK))
    agent.script(call("Read", file_path="nb.ipynb"), edit("nb\x00.ipynb", cell_id="code-b", new_source="y"),
                 edit(str(path), cell_id="code-b", new_source="y = 5"), text("Done."))
    found = results(agent.run("Edit.").payloads[-1])
    assert found[1:] == ["Error: File has not been read yet. Read it first before writing to it.",
                         "Updated cell code-b with y = 5"]


def test_accept_edits_still_asks_before_a_notebook_in_a_sensitive_folder_is_edited(agent):
    path = agent.write(".claude/nb.ipynb", json.dumps(NOTEBOOK))
    agent.settings({"permissions": {"defaultMode": "acceptEdits", "allow": ["Edit"]}})
    agent.script(call("Read", file_path=".claude/nb.ipynb"), edit(str(path), cell_id="code-b", new_source="y"),
                 text("Asked."))
    asked = results(agent.run("Edit.").payloads[-1])[1]
    assert asked.startswith("Error: NotebookEdit of '.claude/nb.ipynb'") and "needs approval" in asked
    assert json.loads(path.read_text()) == NOTEBOOK

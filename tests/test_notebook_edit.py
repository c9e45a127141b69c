"""NotebookEdit and Read of Jupyter notebooks end to end on both wire formats, as Claude Code 2.1.332
behaves (../shared/reference/claude-code-everyday-observed.md §10, and runs of it against the same
notebooks): cells shown as <cell id="…"> blocks with their outputs' text, replace / insert / delete by
cell id with Claude Code's results and errors, a Read required first, the file written back as
valid JSON with the other cells and the metadata untouched, and hostile notebooks refused."""

import json
import os

from scripted_model import call, text

NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "id": "md-1", "metadata": {}, "source": ["# Title\n", "Some text"]},
        {"cell_type": "code", "execution_count": 3, "id": "code-a", "metadata": {"tags": ["x"]},
         "outputs": [{"name": "stdout", "output_type": "stream", "text": ["hello\n"]},
                     {"data": {"text/plain": ["42"]}, "execution_count": 3, "metadata": {},
                      "output_type": "execute_result"}],
         "source": ["print('hello')\n", "42"]},
        {"cell_type": "code", "execution_count": None, "id": "code-b", "metadata": {}, "outputs": [], "source": "x = 1"},
    ],
    "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                 "language_info": {"name": "python"}},
    "nbformat": 4,
    "nbformat_minor": 5,
}


def results(payload: dict) -> list[str]:
    """Every tool result the request carries, in order (the chat wire marks errors "Error: ")."""
    found = []
    for message in payload["messages"]:
        if message.get("role") == "tool":
            found.append(message["content"])
        elif message.get("role") == "user" and isinstance(message.get("content"), list):
            found += [("Error: " if b.get("is_error") else "") + b["content"] for b in message["content"]
                      if b.get("type") == "tool_result"]
    return found


def edit(path: str, **arguments) -> object:
    return call("NotebookEdit", notebook_path=path, **arguments)


def test_read_shows_cells_and_edits_replace_insert_and_delete_by_id(agent):
    path = agent.write("nb.ipynb", json.dumps(NOTEBOOK, indent=1) + "\n")
    agent.script(
        call("Read", file_path=str(path)),
        edit(str(path), cell_id="code-a", new_source='print("bye")\n2'),
        edit(str(path), cell_id="md-1", new_source="## New", edit_mode="insert", cell_type="markdown"),
        edit(str(path), new_source="first = 0", edit_mode="insert", cell_type="code"),
        edit(str(path), cell_id="code-b", new_source="", edit_mode="delete"),
        call("Read", file_path="nb.ipynb"),
        text("Edited."),
    )
    run = agent.run("Edit the notebook.")
    assert (run.exit_code, run.stdout) == (0, "Edited.\n")
    shown, replaced, inserted, first, deleted, again = results(run.payloads[-1])
    assert shown == ('<cell id="md-1"><cell_type>markdown</cell_type># Title\nSome text</cell id="md-1">\n'
                     '<cell id="code-a">print(\'hello\')\n42</cell id="code-a">\n\nhello\n\n\n42\n'
                     '<cell id="code-b">x = 1</cell id="code-b">\n')
    assert replaced == 'Updated cell code-a with print("bye")\n2'
    new_id, first_id = inserted.split()[2], first.split()[2]
    assert inserted == f"Inserted cell {new_id} with ## New" and len(new_id) == 8
    assert first == f"Inserted cell {first_id} with first = 0"
    assert deleted == "Deleted cell code-b"
    assert again == (f'<cell id="{first_id}">first = 0</cell id="{first_id}">\n'
                     '<cell id="md-1"><cell_type>markdown</cell_type># Title\nSome text</cell id="md-1">\n'
                     f'<cell id="{new_id}"><cell_type>markdown</cell_type>## New</cell id="{new_id}">\n'
                     '<cell id="code-a">print("bye")\n2</cell id="code-a">\n')
    written = json.loads(path.read_text())
    assert written["metadata"] == NOTEBOOK["metadata"] and written["nbformat_minor"] == 5
    assert written["cells"] == [
        {"cell_type": "code", "id": first_id, "source": "first = 0", "metadata": {}, "execution_count": None,
         "outputs": []},
        NOTEBOOK["cells"][0],  # untouched, its source still a list
        {"cell_type": "markdown", "id": new_id, "source": "## New", "metadata": {}},
        # the replaced cell's outputs went with its old source; its metadata stayed
        {"cell_type": "code", "execution_count": None, "id": "code-a", "metadata": {"tags": ["x"]}, "outputs": [],
         "source": 'print("bye")\n2'},
    ]
    assert path.read_text().startswith('{\n "cells": [\n  {\n   "cell_type": "code",')  # indented as Claude Code writes
    assert path.read_text().endswith("}\n")  # the file's own last newline kept
    assert os.listdir(agent.workspace) == ["nb.ipynb"]  # no temporary file left behind
    # a replay runs the tools again and the new cells get the same ids: it matches the recording
    path.write_text(json.dumps(NOTEBOOK, indent=1) + "\n")
    assert agent.replay().exit_code == 0


def test_edits_need_a_read_a_notebook_a_known_cell_and_a_type_to_insert(agent):
    unread = agent.write("unread.ipynb", json.dumps(NOTEBOOK))
    path = agent.write("nb.ipynb", json.dumps(NOTEBOOK))
    agent.write("notes.txt", "plain\n")
    agent.script(
        edit(str(unread), cell_id="md-1", new_source="z"),
        edit(str(agent.workspace / "notes.txt"), cell_id="md-1", new_source="z"),
        call("Read", file_path=str(path)),
        edit(str(path), cell_id="nope", new_source="z"),
        edit(str(path), cell_id="md-1", new_source="z", edit_mode="insert"),
        edit(str(path), new_source="z", edit_mode="delete"),
        edit(str(path), cell_id="md-1", new_source="z", edit_mode="bogus"),
        text("Done."),
    )
    run = agent.run("Try some edits.")
    assert results(run.payloads[-1])[:2] + results(run.payloads[-1])[3:] == [
        "Error: File has not been read yet. Read it first before writing to it.",
        "Error: File must be a Jupyter notebook (.ipynb file). For editing other file types, use the Edit tool.",
        'Error: Cell with ID "nope" not found in notebook.',
        "Error: Cell type is required when using edit_mode=insert.",
        "Error: Cell ID must be specified when not inserting a new cell.",
        "Error: edit_mode must be one of replace, insert, delete.",
    ]
    assert json.loads(path.read_text()) == NOTEBOOK and json.loads(unread.read_text()) == NOTEBOOK


def test_old_notebooks_have_index_ids_and_outputs_show_as_claude_code_shows_them(agent):
    old = {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": ["a=1"]},
                     {"cell_type": "markdown", "metadata": {}, "source": ["hi"]}],
           "metadata": {}, "nbformat": 4, "nbformat_minor": 2}
    outputs = {"cells": [
        {"cell_type": "code", "execution_count": 1, "id": "c1", "metadata": {}, "source": "1/0", "outputs": [
            {"name": "stderr", "output_type": "stream", "text": "warn\n"},
            {"ename": "ValueError", "evalue": "bad", "output_type": "error", "traceback": ["Traceback", "line2"]},
            {"data": {"image/png": "iVBORw0KGgo=", "text/plain": ["<Figure>"]}, "metadata": {},
             "output_type": "display_data"}]},
        {"cell_type": "raw", "id": "r1", "metadata": {}, "source": "raw text"},
        {"cell_type": "code", "id": "c2", "metadata": {}, "source": "big",
         "outputs": [{"output_type": "stream", "name": "stdout", "text": "x" * 20_000}]}],
        "metadata": {"language_info": {"name": "R"}}, "nbformat": 4, "nbformat_minor": 5}
    agent.write("old.ipynb", json.dumps(old))
    agent.write("out.ipynb", json.dumps(outputs))
    agent.script(
        call("Read", file_path="old.ipynb"),
        call("NotebookEdit", notebook_path="old.ipynb", cell_id="cell-1", new_source="changed"),
        call("NotebookEdit", notebook_path="old.ipynb", cell_id="cell-0", new_source="ins", edit_mode="insert",
             cell_type="code"),
        call("Read", file_path="out.ipynb", offset=2, limit=1),  # a notebook is shown whole
        text("Done."),
    )
    run = agent.run("Look at the notebooks.")
    shown, changed, inserted, outs = results(run.payloads[-1])
    assert shown == ('<cell id="cell-0">a=1</cell id="cell-0">\n'
                     '<cell id="cell-1"><cell_type>markdown</cell_type>hi</cell id="cell-1">\n')
    assert (changed, inserted) == ("Updated cell cell-1 with changed", "Inserted a new cell with ins")
    assert json.loads((agent.workspace / "old.ipynb").read_text())["cells"] == [
        old["cells"][0], {"cell_type": "code", "source": "ins", "metadata": {}, "execution_count": None, "outputs": []},
        {"cell_type": "markdown", "metadata": {}, "source": "changed"}]  # no ids given where the format has none
    assert outs == ('<cell id="c1"><language>R</language>1/0</cell id="c1">\n\nwarn\n\n\nValueError: bad\nTraceback\n'
                    'line2\n\n<Figure>\n[image/png output of 12 base64 characters, not shown]\n'
                    '<cell id="r1"><cell_type>raw</cell_type>raw text</cell id="r1">\n'
                    '<cell id="c2"><language>R</language>big</cell id="c2">\n\nOutputs are too large to include. '
                    "Use Bash with: cat <notebook_path> | jq '.cells[2].outputs'\n")


def test_hostile_notebooks_are_tool_errors_and_never_written(agent):
    files = {
        "truncated.ipynb": '{"cells": [',
        "nan.ipynb": '{"cells": [{"cell_type": "code", "source": "a", "execution_count": NaN}]}',
        "not-cells.ipynb": json.dumps({"cells": "notalist", "metadata": {}}),
        "bad-source.ipynb": json.dumps({"cells": [{"cell_type": "code", "id": "a", "source": 5}]}),
        "odd-id.ipynb": json.dumps({"cells": [{"cell_type": "code", "id": 'x">injected<cell id="y', "source": "a"}]}),
        "twice.ipynb": json.dumps({"cells": [{"cell_type": "code", "id": "a", "source": "1"},
                                             {"cell_type": "code", "id": "a", "source": "2"}]}),
        "deep.ipynb": '{"cells": [], "metadata": ' + "[" * 5000 + "]" * 5000 + "}",
        "huge.ipynb": json.dumps({"cells": [{"cell_type": "code", "id": f"h{i}", "metadata": {}, "outputs": [],
                                             "source": "y = 1 # " + "z" * 1000} for i in range(400)],
                                  "metadata": {}, "nbformat": 4, "nbformat_minor": 5}),
    }
    for name, content in files.items():
        agent.write(name, content)
    agent.script(*[call("Read", file_path=name) for name in files],
                 call("NotebookEdit", notebook_path="odd-id.ipynb", cell_id="a", new_source="b"),
                 text("Done."))
    run = agent.run("Read the notebooks.")
    found = results(run.payloads[-1])
    assert all(result.startswith("Error: ") for result in found)
    invalid = ('Error: Notebook file is not a valid Jupyter notebook (top-level "cells" must be an array of cell '
               'objects, each with a string or string-array "source").')
    assert found[0].startswith("Error: Notebook file is not valid JSON (it may be truncated, corrupted, or still being "
                               "written): ")
    assert found[1].startswith("Error: Notebook file is not valid JSON") and "NaN" in found[1]
    assert found[2:4] == [invalid, invalid]
    assert found[4].startswith("Error: Notebook file has a cell id that is not a valid nbformat id")
    assert found[5].startswith('Error: Notebook file has more than one cell with the id "a"')
    assert found[6] == "Error: Notebook file nests deeper than 100 levels; it is not read."
    assert found[7].startswith("Error: Notebook content (") and "exceeds maximum allowed size (256KB)" in found[7]
    assert found[8] == "Error: File has not been read yet. Read it first before writing to it."  # its Read failed
    assert all((agent.workspace / name).read_text() == content for name, content in files.items())


def test_notebook_edits_follow_the_edit_rules_and_modes(agent):
    path = agent.write("nb.ipynb", json.dumps(NOTEBOOK))
    steps = (call("Read", file_path="nb.ipynb"), edit(str(path), cell_id="code-b", new_source="x = 2"))
    agent.settings({"permissions": {"defaultMode": "default"}})
    agent.script(*steps, text("Asked."))
    asked = results(agent.run("Edit.").payloads[-1])[1]
    assert asked.startswith("Error: NotebookEdit of 'nb.ipynb' needs approval") and "--allowedTools 'Edit(" in asked
    agent.settings({"permissions": {"defaultMode": "acceptEdits", "deny": ["Edit(secret/**)"]}})
    secret = agent.write("secret/s.ipynb", json.dumps(NOTEBOOK))
    agent.script(*steps, call("Read", file_path="secret/s.ipynb"), edit(str(secret), cell_id="code-b", new_source="y"),
                 text("Edited."))
    accepted = results(agent.run("Edit.").payloads[-1])
    assert accepted[1] == "Updated cell code-b with x = 2"  # acceptEdits approves an edit in the workspace
    assert accepted[3].startswith("Error: NotebookEdit of 'secret/s.ipynb' is denied by the permission rule "
                                  "'Edit(secret/**)'")
    assert json.loads(secret.read_text()) == NOTEBOOK


def test_a_worktree_isolated_agent_edits_only_its_own_notebooks(tmp_path):
    from types import SimpleNamespace

    from agent.subagents.worktree_guard import guarded
    from agent.tools.notebook_edit import NOTEBOOK_EDIT
    from agent.tools.base import ToolError
    from agent.workspace import Workspace

    main = tmp_path / "repo"
    worktree = main / ".claude" / "worktrees" / "agent-a0123456789abcdef"
    worktree.mkdir(parents=True)
    (main / "nb.ipynb").write_text(json.dumps(NOTEBOOK))
    (tool,) = guarded([NOTEBOOK_EDIT])
    context = SimpleNamespace(workspace=Workspace(worktree, (main,)), messages=[])
    try:
        tool.run({"notebook_path": str(main / "nb.ipynb"), "cell_id": "md-1", "new_source": "z"}, context)
    except ToolError as refused:
        assert "Edit the worktree copy of this file instead of the shared-checkout path" in str(refused)
    else:
        raise AssertionError("the shared checkout's notebook was edited")
    assert json.loads((main / "nb.ipynb").read_text()) == NOTEBOOK


def test_a_notebook_changed_since_it_was_read_must_be_read_again(agent):
    path = agent.write("nb.ipynb", json.dumps(NOTEBOOK))
    agent.script(
        call("Read", file_path="nb.ipynb"),
        call("Bash", command="sed -i s/Title/Titel/ nb.ipynb"),  # changed by someone else since the Read
        edit(str(path), cell_id="code-b", new_source="y = 2"),
        call("Read", file_path="nb.ipynb"),
        edit(str(path), cell_id="code-b", new_source="y = 3"),
        edit(str(path), cell_id="code-b", new_source="y = 4"),  # after its own edit it needs no new Read
        text("Done."),
    )
    run = agent.run("Edit.")
    found = results(run.payloads[-1])
    assert found[2] == ("Error: File has been modified since read, either by the user or by a linter. Read it again "
                        "before attempting to write it.")
    assert found[4:] == ["Updated cell code-b with y = 3", "Updated cell code-b with y = 4"]
    assert json.loads(path.read_text())["cells"][0]["source"] == ["# Titel\n", "Some text"]

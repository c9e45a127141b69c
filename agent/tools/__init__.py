"""Tools: what a tool is (`base`), the built-ins (`files`, `shell`, `search`; NotebookEdit in
`notebook_edit`, with the notebook view Read shows in `notebook_cells`; WebFetch and WebSearch in
`web`; the todo list in `todo`), what keeps Read and the searches bounded (`reading`: capped lines; `globs`: matching without backtracking;
`listing`: the files a search sees, within its time limit) and the one place tool calls are
executed (`execute`). `instructions` attaches a subfolder's CLAUDE.md and rules after the results
of the calls that touched it.

May import: `conversation`, `errors`, `secrets`, `processes`, `permissions`, `memory` (the instruction
files), `hooks` (the executor fires the tool moments' hooks) and `model` (what the web tools' own
requests ask of the session's client). Tools reach the session, the
workspace and the running agent only through the context object they are called with, so nothing
here imports a layer above.
"""

from __future__ import annotations

from agent.tools.base import Tool


def builtin_tools() -> list[Tool]:
    """Every built-in tool, in the order they are offered: Read, Write, Edit, Bash, Glob, Grep,
    NotebookEdit, WebFetch, WebSearch, then the todo tools (a session offers the task tools or
    TodoWrite of them). All are offered at once: Claude Code 2.1.332 defers the later ones behind
    ToolSearch, which this agent does not."""
    from agent.tools.files import EDIT, READ, WRITE
    from agent.tools.notebook_edit import NOTEBOOK_EDIT
    from agent.tools.search import GLOB, GREP
    from agent.tools.shell import BASH
    from agent.tools.web.fetch_tool import WEB_FETCH
    from agent.tools.todo import todo_tools
    from agent.tools.web.web_search import WEB_SEARCH

    return [READ, WRITE, EDIT, BASH, GLOB, GREP, NOTEBOOK_EDIT, WEB_FETCH, WEB_SEARCH, *todo_tools()]

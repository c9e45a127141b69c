"""Tools: what a tool is (`base`), the six built-ins (`files`, `shell`, `search`), what keeps Read
and the searches bounded (`reading`: capped lines; `globs`: matching without backtracking;
`listing`: the files a search sees, within its time limit) and the one place tool calls are
executed (`execute`). `instructions` attaches a subfolder's CLAUDE.md and rules after the results
of the calls that touched it.

May import: `conversation`, `errors`, `secrets`, `processes`, `permissions`, `memory` (the instruction
files), and `hooks` (the executor fires the tool moments' hooks). Tools reach the session, the
workspace and the running agent only through the context object they are called with, so nothing
here imports a layer above.
"""

from __future__ import annotations

from agent.tools.base import Tool


def builtin_tools() -> list[Tool]:
    """Read, Write, Edit, Bash, Glob and Grep, in the order they are offered."""
    from agent.tools.files import EDIT, READ, WRITE
    from agent.tools.notebook_edit import NOTEBOOK_EDIT
    from agent.tools.search import GLOB, GREP
    from agent.tools.shell import BASH
    from agent.tools.web.fetch_tool import WEB_FETCH
    from agent.tools.todo import todo_tools
    from agent.tools.web.web_search import WEB_SEARCH

    return [READ, WRITE, EDIT, BASH, GLOB, GREP, NOTEBOOK_EDIT, WEB_FETCH, WEB_SEARCH, *todo_tools()]

"""Claude Code's second tool filter: an agent that runs in the background keeps every MCP tool and only
an allow-list of built-ins, whether inherited or named in its `tools` (the subagents page's list;
the first filter, the depth cap, decides Agent and ExitPlanMode wherever it runs). So one
definition can get different tools in the foreground and the background; a continued agent keeps
the set it first ran with (agent.subagents.messaging)."""

from __future__ import annotations

from agent.permissions.rules import MCP_PREFIX
from agent.tools.base import ToolError

# The built-in tools a background agent keeps, as the subagents page lists them (those we do not have
# are named too, so the list reads as Claude Code's): every other built-in is dropped. MCP tools stay,
# and Agent and ExitPlanMode follow the first filter (the depth cap) wherever an agent runs.
BACKGROUND_BUILTINS = frozenset((
    "Read", "Grep", "Glob", "LSP", "Bash", "PowerShell", "Edit", "Write", "NotebookEdit", "WebFetch", "WebSearch",
    "TodoWrite", "Skill", "ToolSearch", "EnterWorktree", "ExitWorktree", "Monitor", "TaskStop", "SendMessage",
    "Artifact", "Agent", "ExitPlanMode",
))


def background_tools(names: list[str], kind: str) -> list[str]:
    """The tool `names` a `kind` agent keeps when it runs in the background: the built-ins of
    BACKGROUND_BUILTINS and every MCP tool, silently; a ToolError when that leaves none of a
    non-empty list (Claude Code refuses an agent with zero tools)."""
    kept = [name for name in names if name in BACKGROUND_BUILTINS or name.startswith(MCP_PREFIX)]
    if names and not kept:
        raise ToolError(f"Agent '{kind}' would be spawned with zero tools: in the background it keeps only "
                        f"{', '.join(sorted(BACKGROUND_BUILTINS))} and MCP tools, and its tools ({', '.join(names)}) "
                        "are none of them. Run it in the foreground (run_in_background: false) or give it other tools.")
    return kept

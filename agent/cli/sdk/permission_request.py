"""The `can_use_tool` request Claude Code 2.1.332 sends the Agent SDK about a call that needs
approval: the tool and its input, the name and short description a prompt would show, the
permission updates that would stop it asking again (`permission_suggestions`: acceptEdits for the
session for an edit in the workspace, the narrowest allow rule otherwise, the folder of a path
outside the workspace), that path (`blocked_path`), the call's id, and a subagent's id."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from agent.permissions.policy import EDIT_FAMILY
from agent.permissions.rules import MCP_PREFIX, read_rule
from agent.transcripts import agent_id_for

MAX_DESCRIPTION = 1000  # characters: a prompt's one line, not the whole input
_PATH_KEYS = {"Read": "file_path", "Write": "file_path", "Edit": "file_path", "NotebookEdit": "notebook_path",
              "Glob": "path", "Grep": "path"}


def can_use_tool_request(tool: str, call_id: str | None, arguments: Any, question: Any) -> dict[str, Any]:
    """The request's fields; `question` is `agent.tools.approving.Question` (None: nothing known
    beyond the call, as for an approver asked without one)."""
    decision, agent, cwd = (question.decision, question.agent, question.cwd) if question is not None else (None, None, Path.cwd())
    request: dict[str, Any] = {"subtype": "can_use_tool", "tool_name": tool, "display_name": display_name(tool),
                               "input": arguments, "description": description(tool, arguments, cwd),
                               "permission_suggestions": suggestions(tool, decision)}
    if decision is not None and decision.path:
        request["blocked_path"] = decision.path
    request["tool_use_id"] = call_id
    if agent is not None and getattr(agent, "depth", 0) > 0:
        request["agent_id"] = agent_id_for(agent.parent_tool_use_id)  # as the Agent call's result names it
    return request


def display_name(tool: str) -> str:
    """The tool's name as Claude Code shows it: an MCP tool as `server - tool (MCP)`."""
    if tool.startswith(MCP_PREFIX) and tool.count("__") >= 2:
        server, name = tool[len(MCP_PREFIX):].split("__", 1)
        return f"{server} - {name} (MCP)"
    return tool


def description(tool: str, arguments: Any, cwd: Path) -> str:
    """A short description of the call: the file (relative to the workspace when inside it) for a
    file tool, the command, a search's pattern, an agent's or a
    skill's name; else the tool's name."""
    args = arguments if isinstance(arguments, dict) else {}
    text = ""
    if isinstance(path := args.get(_PATH_KEYS.get(tool, "")), str) and path:
        text = _shown_path(path, cwd)
    elif tool == "Bash":
        text = args.get("command") if isinstance(args.get("command"), str) else ""
    elif tool in ("Glob", "Grep"):
        text = args.get("pattern") if isinstance(args.get("pattern"), str) else ""
    elif tool == "Agent":
        text = args.get("description") if isinstance(args.get("description"), str) else ""
    elif tool == "Skill":
        text = args.get("skill") if isinstance(args.get("skill"), str) else ""
    text = " ".join(text.split()) or tool
    return text if len(text) <= MAX_DESCRIPTION else text[:MAX_DESCRIPTION] + "..."


def suggestions(tool: str, decision: Any) -> list[dict[str, Any]]:
    """Permission updates that would let such calls run without asking: acceptEdits for the session
    for an edit inside the workspace; the narrowest allow rule (never all of Bash) for the local
    settings, and the folder of a path outside the workspace for the session. None for a call an
    ask rule, a sensitive file or an uncertain command keeps asking about."""
    if decision is None or decision.kind != "approval":
        return []
    if tool in EDIT_FAMILY and not decision.path:
        return [{"type": "setMode", "mode": "acceptEdits", "destination": "session"}]
    found: list[dict[str, Any]] = []
    rule = read_rule(decision.suggestion).strict if decision.suggestion not in ("", "Bash") else None
    if rule is not None:
        value = {"toolName": rule.tool, **({"ruleContent": rule.specifier} if rule.specifier is not None else {})}
        found.append({"type": "addRules", "rules": [value], "behavior": "allow", "destination": "localSettings"})
    if decision.path:
        found.append({"type": "addDirectories", "directories": [os.path.dirname(decision.path) or decision.path],
                      "destination": "session"})
    return found


def _shown_path(path: str, cwd: Path) -> str:
    absolute = Path(path) if os.path.isabs(path) else Path(cwd, path)
    try:
        return absolute.relative_to(cwd).as_posix() or "."
    except ValueError:
        return path

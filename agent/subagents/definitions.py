"""What a subagent is: its definition (who it is, its system prompt, the tools it may use, its own
MCP servers), the built-in definitions, and how a definition's tool lists filter the tools on offer."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Collection

from agent.permissions.rules import ALIASES as TOOL_ALIASES, MCP_PREFIX
from agent.skills.frontmatter import split_frontmatter
from agent.workspace import DEFINITION_FILE_BYTES, read_bounded

log = logging.getLogger("agent")


@dataclass(frozen=True)
class AgentServer:
    """One entry of an agent's `mcpServers`: a server of the session by its name (`config` None),
    or an inline one (`config`: its entry, as in .mcp.json), started only for this agent."""

    name: str
    config: dict[str, Any] | None = field(default=None, hash=False)


@dataclass(frozen=True)
class AgentDefinition:
    """One kind of subagent: who it is, its system prompt, and what it may use."""

    name: str
    description: str
    prompt_text: str | None = None  # the system prompt; None: the body of the file at `path`, read when used
    tools: tuple[str, ...] | None = None  # None = inherit every tool; "Bash(git *)" names the Bash tool
    disallowed_tools: tuple[str, ...] = ()
    model: str | None = None  # alias (sonnet/opus/haiku/inherit) or full id, as written
    max_turns: int | None = None
    skills: tuple[str, ...] = ()  # skill names whose bodies are preloaded
    source: str = "builtin"  # "builtin" | "user" | "project" | "cli"
    path: Path | None = None
    hooks: Any = None  # agent.hooks.config.HookSet of its frontmatter (run only while it runs), or None
    mcp_servers: tuple[AgentServer, ...] = ()  # its own MCP servers: offered to it whatever its `tools` say
    permission_mode: str | None = None  # permissionMode; combined with its parent's (agent.permissions.modes)
    initial_prompt: str | None = None  # initialPrompt: the first turn of a session run as this agent (--agent)
    background: bool = False  # background: true: the main conversation's Agent calls always run it in the background
    # omitClaudeMd: its first message has no CLAUDE.md block (ignored when a session runs as it)
    omit_claude_md: bool = False
    omit_git_status: bool = False  # no git status snapshot either: only the built-in Explore and Plan
    effort: str | None = None  # effort: the level its requests ask (agent.subagents.models)
    memory: str | None = None  # memory: user, project or local (agent.subagents.agent_memory)
    memory_grants: bool = True  # its memory folder may be written without asking (not for an untrusted project's)
    isolation: str | None = None  # isolation: worktree: it works in a git worktree of its own (agent.subagents.worktrees)
    auto_compact_window: int | None = None  # autoCompactWindow: it compacts within this window (agent.compaction)

    @property
    def prompt(self) -> str:
        """The agent's system prompt: given inline, or the body of its file, read now (a start
        with hundreds of agents reads only their frontmatter). Raises OSError if unreadable."""
        if self.prompt_text is not None or self.path is None:
            return self.prompt_text or ""
        text = read_bounded(self.path, DEFINITION_FILE_BYTES).decode("utf-8", errors="replace")
        parts = split_frontmatter(text)
        return (parts[1] if parts else text).strip()

    @property
    def spawnable_types(self) -> tuple[str, ...] | None:
        """The agent types this agent may start when its tools say `Agent(a, b)`; None when it
        may start any (a bare `Agent`, or no tools list). `Agent()` names none."""
        if self.tools is None:
            return None
        types: list[str] | None = None
        for entry in self.tools:
            if tool_name(entry) != "Agent":
                continue
            _, paren, inside = entry.partition("(")
            if not paren:
                return None
            types = (types or []) + [name.strip() for name in inside.rstrip(")").split(",") if name.strip()]
        return tuple(dict.fromkeys(types)) if types is not None else None


_REPORT_BACK = (
    "Your final message is returned to the agent that launched you, and it is all that agent sees of "
    "your work: put everything it needs in that message, and follow any instructions about the form "
    "of the answer exactly."
)

# What Explore and Plan do without, as Claude Code lists their tools ("All tools except Agent, ..., Edit,
# Write, NotebookEdit"): read-only, every other tool kept (Skill, WebFetch, WebSearch, the task tools).
READ_ONLY_DROPPED = ("Agent", "Edit", "Write", "NotebookEdit")
# The depths Claude Code's Explore description offers its caller (who writes one into the task).
EXPLORE_THOROUGHNESS = ('"quick" for a single targeted lookup, "medium" for a moderate exploration, or "very thorough" '
                        "to search across multiple locations and naming conventions")

BUILTIN_AGENTS: dict[str, AgentDefinition] = {
    "Explore": AgentDefinition(
        name="Explore",
        description="Fast read-only agent for exploring a codebase: finding files by pattern, searching code for "
                    "symbols or keywords, answering where something is defined or which files use it. When calling "
                    f"it, say in the prompt how thorough to be: {EXPLORE_THOROUGHNESS}.",
        prompt_text=(
            "You are a read-only exploration agent. Answer the question you were given by finding "
            "files, searching code and reading it. Search broadly first (Glob, Grep), then read what "
            "matters. Match how widely you search to the thoroughness your caller asked for: quick (the "
            "likeliest places, then answer), medium (a few search strategies), or very thorough (every "
            "likely location and naming convention, and related files). "
            "Never modify anything: do not create, edit, move or delete files, and use Bash "
            "only for commands that inspect (ls, git log, git diff, ...), never for ones that change "
            "state. Report your findings with file paths (and line numbers where they help), and say "
            "plainly what you could not find.\n\n" + _REPORT_BACK
        ),
        disallowed_tools=READ_ONLY_DROPPED,
        omit_claude_md=True,  # research stays fast and cheap: no CLAUDE.md, no git status
        omit_git_status=True,
    ),
    "general-purpose": AgentDefinition(
        name="general-purpose",
        description="General-purpose agent for researching complex questions, searching for code, "
                    "and executing multi-step tasks.",
        prompt_text=(
            "You are a general-purpose agent. Another agent delegated the task below to you: do it "
            "completely with the tools you have, searching, reading, running commands and editing "
            "files as the task requires. Look before you act and keep changes minimal. When done, "
            "report back concisely: what you found or changed (with file paths), and anything left "
            "undone.\n\n" + _REPORT_BACK
        ),
    ),
    "Plan": AgentDefinition(
        name="Plan",
        description="Software architect agent for designing implementation plans. Use it when you need to plan how "
                    "to implement a task: it returns a step-by-step plan, names the critical files and weighs the "
                    "architectural trade-offs.",
        prompt_text=(
            "You are a read-only planning agent: a software architect who explores the codebase and designs how "
            "to carry out the task you were given. Never modify anything: do not create, edit, move, copy or "
            "delete files (temporary ones included), and use Bash only for commands that inspect (ls, find, "
            "grep, cat, git status, git log, git diff, ...), never for ones that change state, write files "
            "(no redirections into files) or install anything.\n\n"
            "How to work:\n"
            "1. Understand the requirements, and keep to the perspective you were asked to take, if any.\n"
            "2. Explore: read the files the task names, find the conventions and similar features already "
            "there (Glob, Grep, Read), and trace the code paths involved.\n"
            "3. Design: choose an approach, weigh its trade-offs, and follow the existing patterns where they "
            "fit.\n"
            "4. Plan: the steps in order, what each depends on, and the difficulties to expect.\n\n"
            "End your answer with a section \"### Critical Files for Implementation\" listing the 3-5 files "
            "that matter most for carrying out the plan.\n\n" + _REPORT_BACK
        ),
        disallowed_tools=READ_ONLY_DROPPED,
        omit_claude_md=True,  # as Explore
        omit_git_status=True,
    ),
}

# What CLAUDE_CODE_DISABLE_EXPLORE_PLAN_AGENTS and CLAUDE_AGENT_SDK_DISABLE_BUILTIN_AGENTS switch off
READ_ONLY_BUILTINS = ("Explore", "Plan")
HEADLESS_BUILTINS = ("Explore", "Plan", "general-purpose")  # not the fork type: Claude Code keeps it


def without_disabled_builtins(agents: dict[str, AgentDefinition], read_only_off: bool = False,
                              all_off: bool = False) -> dict[str, AgentDefinition]:
    """`agents` less the built-in definitions switched off: Explore and Plan (`read_only_off`), or
    every built-in (`all_off`). A user's or project's agent of the same name stays."""
    off = HEADLESS_BUILTINS if all_off else READ_ONLY_BUILTINS if read_only_off else ()
    return {name: definition for name, definition in agents.items()
            if not (definition.source == "builtin" and name in off)}


def filter_tools(available: list[str], definition: AgentDefinition, own: Collection[str] = ()) -> list[str]:
    """The names of `available` that `definition` may use, in their order: its disallowedTools
    removed first (by tool name, so `Bash(git push *)` removes all of Bash), then only its `tools`
    kept (all when None) and the `own` tools (its own MCP servers', whatever `tools` says). "Task"
    stands for "Agent"; for MCP entries see `names_tool`. Raises ValueError naming the entries when
    `tools` is given, none of them names an available tool and the agent has no own tools."""
    kept = [tool for tool in available if not any(names_tool(entry, tool, removing=True)
                                                   for entry in definition.disallowed_tools)]
    if definition.tools is None:
        return kept
    unknown = [entry for entry in definition.tools if not any(names_tool(entry, tool) for tool in available)]
    # An explicitly empty list means "no tools", not a typo, so only a list of misses is refused.
    if unknown and len(unknown) == len(definition.tools) and not set(own) & set(kept):
        raise ValueError(
            f"Agent '{definition.name}' would be spawned with zero tools: its tools list resolved to "
            f"nothing (unrecognized: {', '.join(unknown)}). Fix the agent's tools field or use a "
            "different subagent_type."
        )
    if unknown:
        log.info(f"agent {definition.name!r}: ignoring unavailable tools {', '.join(unknown)}")
    return [tool for tool in kept if tool in own or any(names_tool(entry, tool) for entry in definition.tools)]


def names_tool(entry: str, tool: str, removing: bool = False) -> bool:
    """Whether an entry of an agent's `tools` (or, `removing`, its `disallowedTools`) names the
    tool called `tool`, as Claude Code reads them: `Bash(git *)` names Bash; `mcp__kb` and
    `mcp__kb__*` every tool of the server kb (every name starting `mcp__kb__`: a server `kb__v2`'s
    too), `mcp__kb__v2__*` every tool of the server kb__v2, `mcp__kb__lookup` one tool (so
    `mcp__kb__v2` is no server), and in disallowedTools `mcp__*` every MCP tool. No other pattern
    names anything (`mcp__kb__look*` names no tool)."""
    name = tool_name(entry)
    if not name.startswith(MCP_PREFIX) or not tool.startswith(MCP_PREFIX):
        return name == tool_name(tool)
    if name == MCP_PREFIX + "*":
        return removing
    server = name[len(MCP_PREFIX):].removesuffix("__*")
    if "*" in server or not server:
        return False
    if name.endswith("__*") or "__" not in server:  # every tool of the server
        return tool.startswith(f"{MCP_PREFIX}{server}__")
    return name == tool


def tool_name(entry: str) -> str:
    """The tool an entry of a tools list names: `Bash(git *)` names Bash, `Task` names Agent."""
    name = entry.split("(", 1)[0].strip()
    return TOOL_ALIASES.get(name, name)  # old definitions still say Task

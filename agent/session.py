"""A session: everything one run of the agent shares (workspace, model client, limits, discovered
skills and agents, subagent accounting), the catalogs the model sees, and the tool set each of its
agents is offered. Tools reach it through their context."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from agent.skills.catalog import CATALOG_BUDGET_CHARS, Entry, fit, skill_entry
from agent.skills.tool import skill_tool
from agent.subagents.background import Background
from agent.subagents.fork import run_forked_skill
from agent.subagents.forks import FORK_TYPE
from agent.subagents.messaging import AgentRegistry, send_message_tool
from agent.subagents.runner import DEFAULT_MAX_DEPTH
from agent.subagents.tool import DEFAULT_MAX_CONCURRENT, agent_entry, agent_tool
from agent.tools import builtin_tools
from agent.tools.base import Tool
from agent.tools.web.cache import PageCache
from agent.tools.todo import TodoState
from agent.workspace import Workspace


@dataclass(frozen=True)
class Catalogs:
    """The skill and agent-type listings of a session, fitted into one budget together."""

    skill_lines: list[str]
    agent_entries: dict[str, Entry]
    agent_lines: dict[str, str]
    shortened: bool  # descriptions were shortened: the Skill and Agent tools answer `search`


@dataclass
class Session:
    """State shared by the main conversation and every subagent of one run."""

    workspace: Workspace
    client: Any = None  # agent.model.client.ModelClient; None in unit tests of tools that never call a model
    model: str = ""
    max_turns: int = 100
    budget: Any = None  # agent.model.budget.Budget (--max-budget-usd), or None: no limit on spending
    compaction: Any = None  # agent.compaction.settings.CompactionSettings: when conversations are compacted
    fallback_models: tuple[str, ...] = ()  # --fallback-model: what an overloaded or missing model gives way to, in order
    json_schema: dict[str, Any] | None = None  # --json-schema: the main conversation answers through StructuredOutput
    skills: dict[str, Any] = field(default_factory=dict)  # name -> agent.skills.discovery.Skill, sorted by name
    agents: dict[str, Any] = field(default_factory=dict)  # name -> AgentDefinition, sorted by name
    catalog_budget: int = CATALOG_BUDGET_CHARS
    offered_builtins: frozenset[str] | None = None  # --tools: the built-in tools offered (None: every one)
    max_depth: int = DEFAULT_MAX_DEPTH  # how deep subagents may nest
    max_concurrent: int = DEFAULT_MAX_CONCURRENT  # subagents running at once
    subagent_model: str | None = None  # CLAUDE_CODE_SUBAGENT_MODEL
    subagent_model_force: bool = False  # CLAUDE_CODE_SUBAGENT_MODEL_FORCE: it (or the main model) for every subagent
    pinned_aliases: frozenset[str] = frozenset()  # families whose alias ANTHROPIC_DEFAULT_<FAMILY>_MODEL sets
    agent_memory: bool = True  # agents' `memory` applies (off: CLAUDE_CODE_DISABLE_AUTO_MEMORY, autoMemoryEnabled)
    fork_mode: bool = True  # CLAUDE_CODE_FORK_SUBAGENT: the Agent tool offers the fork type (agent.subagents.forks)
    model_aliases: dict[str, str] = field(default_factory=dict)  # alias -> model id, for this provider
    memory: str | None = None  # the CLAUDE.md context block that opens every conversation
    instructions: Any = None  # agent.tools.instructions.Instructions: a subfolder's CLAUDE.md and rules, on demand
    git_status: Any = None  # agent.processes.git_status.GitStatus taken at start (a replay's: recorded), or None
    # agent.processes.git_status.WorktreeSnapshots: the snapshots worktree agents start with (recorded
    # or replayed through the cassette's setup); None: taken from each worktree
    worktree_snapshots: Any = None
    system_prompt: str | None = None  # --system-prompt: replaces our instructions in the main prompt
    append_system_prompt: str | None = None  # --append-system-prompt: added at the end of it
    append_subagent_system_prompt: str | None = None  # --append-subagent-system-prompt: ends every subagent's
    session_agent: Any = None  # the AgentDefinition the session runs as (--agent, settings' agent), or None
    observer: Any = None  # sees every conversation's messages and streamed text (cli: stream-json, the screen)
    # approver(agent, call_id, tool, arguments) -> agent.record.approvals.Approval (once, always or no,
    # and by whom) or None (nobody can answer): a person is asked, or a replay answers as recorded
    approver: Any = None
    session_id: str = ""  # for --resume, the JSON result and the transcripts
    subagent_runs: list[dict[str, Any]] = field(default_factory=list)  # accounting, in start order
    running_subagents: int = 0
    background: Background = field(default_factory=Background)  # the main conversation's background agents
    agent_registry: AgentRegistry = field(default_factory=AgentRegistry)  # subagents SendMessage can continue
    todo: TodoState = field(default_factory=TodoState)  # the task list its agents share, each one's TodoWrite list
    transcripts: Any = None  # agent.transcripts.Transcripts, or None with --no-session-persistence
    policy: Any = None  # agent.permissions.policy.Policy for the main conversation (subagents inherit it)
    permission_denials: list[dict[str, Any]] = field(default_factory=list)
    approved: tuple[str, ...] = ()  # allow rules the person approved "always" (interactive), for every agent
    # called as tool_runs(agent, call_id, tool, arguments, run) wherever a tool would touch the
    # machine: records each result (--record) or answers from the cassette (--replay-tools)
    tool_runs: Any = None
    # called as web_fetches(agent, call_id, url, fetch) for each page WebFetch fetches: records it
    # (--record) or answers from the cassette (--replay, with or without --replay-tools); None: fetched
    web_fetches: Any = None
    web_pages: PageCache = field(default_factory=PageCache)  # WebFetch's 15-minute cache, shared by every agent
    mcp: Any = None  # agent.mcp.servers.McpServers, or None when no MCP server is configured
    # start_agent_servers(configs, where) -> started servers (McpServers' interface) or None: an
    # agent's inline mcpServers (name -> entry as in .mcp.json), started as it runs; set by the cli
    # (agent.subagents.servers.live_starter: the run's environment and MCP timeouts). None: they never start
    start_agent_servers: Any = None
    hooks: Any = None  # agent.hooks.engine.Hooks, or None when no hook is configured (or all are disabled)
    unwritten: list[str] = field(default_factory=list)  # files of the run a full disk kept from being saved, and why
    cancelled: threading.Event = field(default_factory=threading.Event)  # set on Ctrl-C: every agent stops
    lock: threading.Lock = field(default_factory=threading.Lock)
    # reread_agents(session): re-reads the agent folders before each turn, putting changed definitions
    # in place (use_agents); set by the cli (agent.cli.agent_folders), None: read once
    reread_agents: Any = None

    @cached_property
    def catalogs(self) -> Catalogs:
        """The skills the model may invoke and the agent types, fitted into `catalog_budget`
        (computed once, and again only when the agents change between turns: `use_agents`)."""
        skills = [skill_entry(skill) for skill in self.skills.values()
                  if skill.model_invocable and self.offers("Skill")]
        offered = self._tool_names(depth=1)
        agents = {name: agent_entry(definition, offered, self.own_tool_names(definition))
                  for name, definition in self.agents.items() if self.offers("Agent")}
        lines, shortened = fit(skills + list(agents.values()), self.catalog_budget) if skills or agents else ([], False)
        return Catalogs(lines[:len(skills)], agents, dict(zip(agents, lines[len(skills):])), shortened)

    def use_agents(self, agents: dict[str, Any]) -> None:
        """Put `agents` (name -> AgentDefinition, sorted by name) in place of the session's
        definitions, between turns: the next requests' catalogs are fitted to them."""
        self.agents = agents
        self.__dict__.pop("catalogs", None)  # cached_property keeps its value there

    def tools_for(self, depth: int, exclude_skill: str | None = None,
                  agent_types: tuple[str, ...] | None = None) -> list[Tool]:
        """Every tool an agent at `depth` may have before its definition filters them: the six
        built-ins, Skill when there are skills the model may load (less `exclude_skill`, a fork's
        own), Agent below the depth cap (only for `agent_types` when given), and the tools of the
        session's MCP servers that no deny rule removes; of the built-ins, Skill, Agent and
        SendMessage only those --tools offers (the MCP tools whatever it says, as in Claude Code).
        Subagents ask for theirs here, so the layers that start subagents never import the tools
        that start them."""
        tools = [tool for tool in builtin_tools() if self.offers(tool.name)]
        catalogs = self.catalogs
        if self.offers("Skill") and any(s.model_invocable and name != exclude_skill for name, s in self.skills.items()):
            tools.append(skill_tool(self.skills, run_forked_skill, exclude_skill, catalogs.shortened))
        agents = self.agents if agent_types is None else {n: a for n, a in self.agents.items() if n in agent_types}
        if depth < self.max_depth and agents:
            if self.offers("Agent"):
                forks = self.fork_mode and (agent_types is None or FORK_TYPE in agent_types)
                tools.append(agent_tool(agents, catalogs.agent_entries, catalogs.agent_lines, catalogs.shortened, forks,
                                        offers_model=not self.subagent_model_force))
            if depth == 0 and self.offers("SendMessage"):  # the main conversation continues the agents it started
                tools.append(send_message_tool())
        return tools + self.mcp_tools()

    def offers(self, name: str) -> bool:
        """Whether the built-in tool `name` is offered (--tools; the task tools or TodoWrite: `todo`)."""
        return self.todo.offers(name) and (self.offered_builtins is None or name in self.offered_builtins)

    def mcp_tools(self, servers: list[str] | None = None) -> list[Tool]:
        """The tools of the session's MCP servers (all, or those named in `servers`), less those a
        deny rule removes."""
        return self.without_denied(self.mcp.tools(servers)) if self.mcp is not None else []

    def without_denied(self, tools: list[Tool]) -> list[Tool]:
        """`tools` less the ones a deny rule covers entirely (`mcp__kb`, `--disallowedTools
        mcp__kb__add`): as in Claude Code, such an MCP tool is neither offered nor named. The deny
        rules are the session's: no agent adds any (a skill's or an approval only adds allow rules)."""
        return [tool for tool in tools if self.policy is None or not self.policy.removes(tool.name)]

    def own_tool_names(self, definition) -> set[str]:
        """The names of the tools an agent's definition gets from the session's servers it names in
        `mcpServers`, whatever its `tools` say (its inline servers' tools are known once they start)."""
        named = [server.name for server in definition.mcp_servers if server.config is None]
        return {tool.name for tool in self.mcp_tools(named)} if named and self.mcp is not None else set()

    def _tool_names(self, depth: int) -> list[str]:
        """The names `tools_for(depth)` offers, without building the tools."""
        names = [tool.name for tool in builtin_tools() if self.offers(tool.name)]
        if self.offers("Skill") and any(skill.model_invocable for skill in self.skills.values()):
            names.append("Skill")
        if depth < self.max_depth and self.agents and self.offers("Agent"):
            names.append("Agent")
        return names + [tool.name for tool in self.mcp_tools()]

    def record_denial(self, tool_name: str, tool_use_id: str | None, tool_input: dict) -> None:
        """Remember a refused call for the run's JSON result (Claude Code's permission_denials);
        a skill's `!`command`` has no tool_use id."""
        with self.lock:
            self.permission_denials.append({"tool_name": tool_name, "tool_use_id": tool_use_id, "tool_input": tool_input})

    def transcript(self, agent_type: str, agent_id: str | None = None, name: str | None = None,
                   model: str | None = None, effort: str | None = None):
        """The transcript of the main conversation (`agent_type` main) or of subagent `agent_id`
        (None when not persisting); `effort`: the one its Agent call asked for."""
        if self.transcripts is None:
            return None
        if agent_type == "main":
            return self.transcripts.main()
        return self.transcripts.subagent(agent_type, agent_id or "", name, model, effort)

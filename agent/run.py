"""One run of the agent: build the main conversation for a prompt and loop until it is done."""

from __future__ import annotations

import threading

from agent.compaction.command import compact_instructions, compact_now
from agent.conversation import user_message, with_blocks
from agent.errors import ProviderError, UsageError
from agent.hooks import events as hooks
from agent.loop import AgentSpec, Result, run_loop
from agent.prompt import main_system_prompt
from agent.session import Session
from agent.skills.catalog import catalog_section
from agent.skills.commands import command_context
from agent.skills.render import render
from agent.skills.slash import parse_slash, refused_user_invocation
from agent.skills.tool import activate_skill
from agent.subagents.definitions import filter_tools
from agent.subagents.fork import run_forked_skill
from agent.subagents.fork_command import fork_command, forked_turn
from agent.subagents.mentions import mention_reminder, mentionable, mentioned_agents, routed
from agent.subagents.startup import main_context
from agent.tools.base import ToolError
from agent.tools.execute import by_name
from agent.tools.structured_output import structured_output_tool


DELEGATION = (
    "Subagents: the Agent tool hands a self-contained task to a subagent, which starts with only your "
    "prompt and returns one report; its description lists the agent types. When the user asks for an "
    "agent by name (\"use the reviewer agent to ...\"), or a task matches a type's description, "
    "delegate to it with that subagent_type and relay what it reports."
)


def main_agent(session: Session) -> AgentSpec:
    """The main conversation's agent: every tool, and a system prompt carrying the skill catalog
    and the agent types it can delegate to. A session run as an agent (`session.session_agent`)
    has that agent's tools (its `Agent(a, b)` the only types it may start), its prompt in place of
    our instructions (an empty one keeps them) and its frontmatter hooks. With --json-schema it
    also has the StructuredOutput tool, last."""
    definition = session.session_agent
    tools = session.tools_for(depth=0, agent_types=definition.spawnable_types if definition else None)
    instructions = session.system_prompt
    if definition is not None:
        tools = _agent_tools(tools, definition)
        if instructions is None:
            instructions = _agent_prompt(definition)
    if session.json_schema is not None:
        tools.append(structured_output_tool(session.json_schema))
    sections = [catalog_section(session.catalogs.skill_lines, session.catalogs.shortened)]
    if any(tool.name == "Agent" for tool in tools):
        sections.append(DELEGATION)
    return AgentSpec(
        name="main",
        system=main_system_prompt(str(session.workspace.cwd), [s for s in sections if s],
                                  instructions, session.append_system_prompt),
        hooks=definition.hooks if definition is not None else None,  # its Stop is the session's Stop
        context=main_context(session),
        tools=by_name(tools),
        model=session.model,
        max_turns=session.max_turns,
        transcript=session.transcript("main"),
        policy=session.policy,
        observer=session.observer,
    )


def _agent_tools(tools: list, definition) -> list:
    """The session's tools that the agent it runs as may use."""
    try:
        names = filter_tools([tool.name for tool in tools], definition)
    except ValueError as exc:
        raise UsageError(f"--agent {definition.name}: {exc}") from None
    return [tool for tool in tools if tool.name in names]


def _agent_prompt(definition) -> str | None:
    """The prompt of the agent the session runs as, or None (ours) when it is empty."""
    try:
        return definition.prompt or None
    except OSError as error:
        raise UsageError(f"cannot read the {definition.name} agent's file {definition.path}: "
                         f"{error.strerror or error}") from None


class MainConversation:
    """The main conversation of a session: one turn per prompt, each continuing the ones before
    (and `history`, a resumed session's messages). A new conversation's first message carries
    the memory files. A turn that fails or is interrupted leaves the conversation as it was.
    The session's hooks see it start (SessionStart, as it is made) and each prompt
    (UserPromptSubmit), and what they add goes before the (first) prompt."""

    def __init__(self, session: Session, history: list[dict] = (), source: str | None = None) -> None:
        self.session = session
        self.agent = main_agent(session)
        self._agents = session.agents  # the definitions self.agent was built on
        self.messages: list[dict] = list(history)
        # what the SessionStart hooks add, put before the first prompt (None once it has been); the
        # `source` they see is startup or resume, unless the caller says (clear: after /clear)
        source = source or ("resume" if history else "startup")
        self._started: tuple[str, ...] | None = hooks.session_start(session, self.agent, source)
        # the session agent's initialPrompt opens a new conversation (None once sent, or resumed)
        definition = session.session_agent
        self.initial_prompt = definition.initial_prompt if definition is not None and not history else None

    def turn(self, prompt: str) -> Result:
        """Answer `prompt`, expanding a leading run of `/skill` commands; `/fork` and `/subtask`
        fork the conversation (see `_forked`). Agent files changed since the last turn apply
        now, and the agents the prompt @-mentions do its task (agent.subagents.mentions)."""
        self._reread_agents()
        if (forking := fork_command(prompt)) is not None:
            return self._forked(*forking)
        if (instructions := compact_instructions(prompt)) is not None:  # `/compact`: no prompt is sent
            self.messages = compact_now(self.agent, self.messages, self.session, instructions)
            return Result("", "success", 0, messages=self.messages, local_command="compact")
        refused = refused_user_invocation(prompt, self.session.skills)
        if refused:
            raise UsageError(f"/{refused} can only be invoked by the model, not directly by users; ask for it in words")
        self.session.cancelled = threading.Event()  # a Ctrl-C'd earlier turn's subagents stay stopped
        started, self._started = self._started or (), None
        submitted = hooks.user_prompt_submit(self.session, self.agent, prompt)
        if submitted.blocked is not None:  # nothing is sent: the user is told why
            return Result(submitted.blocked, "success", 0, messages=self.messages)
        new = _first_messages(self._opening(prompt), self.session, self.agent)
        if not self.messages:
            new[0] = with_blocks(new[0], list(self.agent.context))
        mentioned = mentioned_agents(prompt, mentionable(self.session)) if "Agent" in self.agent.tools else []
        new[0] = with_blocks(new[0], [*map(mention_reminder, mentioned), *started, *submitted.context])
        result = run_loop(routed(self.agent, mentioned), new, self.session, self.messages)
        self.messages, self.initial_prompt = result.messages, None
        return result

    def _reread_agents(self) -> None:
        """Re-read the agent folders (when the session can: `session.reread_agents`); when the
        definitions changed, this conversation's tools and catalog are built on the new ones."""
        if self.session.reread_agents is not None:
            self.session.reread_agents(self.session)
        if self.session.agents is not self._agents:
            self.agent, self._agents = main_agent(self.session), self.session.agents

    def _forked(self, command: str, directive: str) -> Result:
        """A `/fork <directive>` turn: a fork of the conversation does the directive, and the
        conversation answers its report (agent.subagents.fork_command). No prompt hooks fire:
        the person typed a command, not a prompt."""
        self.session.cancelled = threading.Event()
        told = forked_turn(self.session, self.agent, self.messages, command, directive)
        result = run_loop(self.agent, [told], self.session, self.messages)
        self.messages = result.messages
        return result

    def _opening(self, prompt: str) -> str:
        """`prompt` as sent: on the first turn, after the agent's initialPrompt in one block
        ("<initialPrompt>\n\n<prompt>", as Claude Code joins them); a turn that is the
        initialPrompt itself (interactive, started without a prompt) is sent as it is."""
        initial = self.initial_prompt
        return prompt if initial is None or prompt == initial else f"{initial}\n\n{prompt}"


def _first_messages(prompt: str, session: Session, agent: AgentSpec) -> list[dict]:
    """The user messages a prompt becomes: itself, or the rendered bodies of its `/skill` commands
    (a forked skill's answer in place of its body)."""
    invocation = parse_slash(prompt, session.skills)
    if invocation is None:
        return [user_message(prompt)]
    messages = []
    for skill in invocation.skills:
        if skill.fork:
            # the body runs in a subagent; the main conversation gets only its answer (or its failure)
            try:
                result = run_forked_skill(skill, invocation.arguments, session, agent)
            except (ToolError, ProviderError) as exc:
                messages.append(user_message(f"The /{skill.name} skill could not run in a subagent: {exc}"))
                continue
            messages.append(user_message(f"The /{skill.name} skill ran in a subagent and returned:\n\n{result.text.strip()}"))
        else:
            messages.append(user_message(render(skill, invocation.arguments, command_context(session, agent.policy))))
            activate_skill(agent, skill, session)
    return messages

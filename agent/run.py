"""One run of the agent: build the main conversation for a prompt and loop until it is done."""

from __future__ import annotations

from agent.conversation import user_message
from agent.loop import AgentSpec, Result, run_loop
from agent.prompt import main_system_prompt
from agent.session import Session
from agent.tools import builtin_tools, by_name


def main_agent(session: Session) -> AgentSpec:
    """The main conversation's agent: the full tool set and the main system prompt."""
    return AgentSpec(
        name="main",
        system=main_system_prompt(str(session.workspace.cwd)),
        tools=by_name(builtin_tools()),
        model=session.model,
        max_turns=session.max_turns,
    )


def run_prompt(prompt: str, session: Session) -> Result:
    """Answer `prompt` in a new main conversation."""
    return run_loop(main_agent(session), [user_message(prompt)], session)
